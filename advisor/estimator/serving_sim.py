"""Serving under load: a continuous-batching engine simulated step by step on the CPU.

Scheduler (vLLM V1 / SGLang semantics, per step):
  1. every running request whose prompt is done decodes one token (decode first);
  2. prompts being prefilled continue, then waiting requests are admitted in arrival order, while fewer than
     `max_num_seqs` run, the step's token budget `max_num_batched_tokens` lasts and the KV cache has room;
     with chunked prefill a prompt takes what the budget leaves (the rest next step), without it a prompt is
     admitted only when all of it fits in the budget left after the decodes (`prefill_first`, vLLM V0 without
     chunked prefill: a step that admits or continues prompts runs them alone, the decodes wait it out, and the
     budget is all theirs; serving_rate cites it; the decodes' ITL does not record that stall, their TPOT does);
  3. when a decode step would overflow the KV cache, the most recently admitted request is preempted (its blocks
     freed, recomputed later from its prompt and the tokens it had: vLLM's recompute preemption).
  Prefix caching is off (benchmarks of random prompts). Engines without continuous batching (transformers
  generate()) take the waiting requests as one static batch when the previous batch has finished.

Step cost on one GPU of the TP group (advisor.estimator.throughput, the calibrated roofline):
  t = pmax(W(T)/(B·η_w), T·2N/(P·η_c)) + pmax(KV/(B·η_kv), F_attn/(P16·η_attn)) + all-reduce(T)
      + c_step + c_layer·L + c_seq·n                       T = decode tokens + prefill tokens of the step
  KV = Σ decodes' KV bytes at their context + each prefill chunk's KV up to its end; F_attn likewise (a chunk
  attends to the prompt before it plus its own causal triangle). c_* per engine: knowledge/data/engines.yaml.

Event skipping: between events (an arrival, a prompt finishing, a request finishing, the KV cache filling) the
batch is the same decodes, each one token longer per step; such a stretch of k steps is costed once at its middle
context (exact for the linear KV and attention terms) and advanced k steps at once. Closed loop: `concurrency`
clients, each sending its next request when the last one finished (vllm bench serve --max-concurrency, AIPerf
--concurrency); open loop: Poisson arrivals at `rate` per second from a fixed seed.

Metrics (as the benchmark clients report them): TTFT = first token's step end − arrival + request overhead, plus
in the closed loop the wait for the step in flight when the request reaches a busy engine: at a random point of a
step that is the renewal-theory residual E[t²]/(2·E[t]) over the measured stretch's steps (a long step is more
likely to be hit; Kleinrock 1975, §5.2), 0 when the engine is idle;
TPOT = (last token − first token)/(output − 1) per request; ITL = every gap between tokens of a request (p50/p95
over all tokens); output throughput = output tokens / makespan (open loop, and all requests at once), or for C
closed-loop clients the steady state's C / R requests/s (R: mean send → last token). Closed-loop latencies are those
of CYCLES × MEASURED requests in steady state (requests C … C+63: after the first wave, while C more keep every
client busy; the run stops when they are done): whole cycles of the mix, so the same lengths at every C, each cycle
in its own order (RequestMix.draw); past the load at which the engine is
full (`saturation`) the extra users queue for a slot (`queued`): TTFT grows, TPOT stays the full engine's. Speculative decoding (an explicit option): each
decode step verifies `k` drafted tokens (a (k+1)-token step) and yields (1 − α^(k+1))/(1 − α) tokens on average
at acceptance rate α (Leviathan et al. 2023, eq. 1).
"""

from __future__ import annotations

import collections
import functools
import heapq
import math

import msgspec
from msgspec.structs import replace

from knowledge.errors import InputError

from .collectives import seconds as allreduce_seconds
from .throughput import Hardware, SpeedProfile, matmul_s_per_token

MAX_REQUESTS = 1200  # a simulation asked for a number of requests never serves more than this (bounded time)
MAX_RATE_REQUESTS = 5000  # nor an open-loop one (an MLPerf-style run needs several request lifetimes, serving_rate)
MEASURED = 64  # a cycle of the conversational mix: its 64 strata, each once
CYCLES = 1  # closed loop: whole cycles of the mix measured in steady state (the same lengths at every C; two cycles
# cost 1.5× and moved no validation row by more than 1 %)
MAX_EVENTS = 40_000  # nor runs more scheduler events
OPEN_LOOP_REQUESTS = 300  # Poisson arrivals by default: a minute of traffic, at most 300 requests (p95 from 15 above it)


class Scheduler(msgspec.Struct, frozen=True):
    """An engine's scheduler limits and fixed costs (engines.yaml `serving`), and the KV cache it has."""

    engine: str
    max_num_seqs: int
    max_num_batched_tokens: int
    chunked_prefill: bool
    continuous_batching: bool
    step_s: float
    layer_s: float
    seq_s: float
    request_s: float
    kv_capacity_tokens: int  # tokens of KV cache per replica (engine_memory), not counting block rounding
    prefill_first: bool = False  # vLLM V0 without chunked prefill: a step that starts prompts runs no decodes


class Speculation(msgspec.Struct, frozen=True):
    """Speculative decoding: `k` drafted tokens per step accepted with probability `acceptance` each."""

    k: int = 3
    acceptance: float = 0.7
    draft_cost: float = 0.05  # a draft step's cost as a share of the target's (EAGLE-class heads: a few %)

    def tokens_per_step(self) -> float:
        a = self.acceptance
        return float(self.k + 1) if a >= 1.0 else (1.0 - a ** (self.k + 1)) / (1.0 - a)


class RequestMix(msgspec.Struct, frozen=True):
    """Fixed lengths (`prompt`, `output`), or a conversational distribution (lognormal around those medians,
    clipped to [1, 8 × median]) drawn from `seed`."""

    prompt: int
    output: int
    conversational: bool = False
    sigma: float = 0.8
    seed: int = 0

    @classmethod
    def with_means(cls, prompt: float, output: float, *, sigma: float = 1.0, seed: int = 0) -> RequestMix:
        """A conversational mix whose lognormal lengths have these means (median = mean · e^(−σ²/2))."""
        f = math.exp(-sigma * sigma / 2.0)
        return cls(max(1, round(prompt * f)), max(1, round(output * f)), conversational=True, sigma=sigma, seed=seed)

    def draw(self, n: int, first: int = 0) -> list[tuple[int, int]]:
        """`n` requests' (prompt, output) lengths. Conversational lengths are stratified (Latin hypercube): MEASURED
        strata take the lognormal's quantiles (k + ½)/MEASURED for the prompt and, paired by a seeded shuffle, for
        the output. Requests come in cycles of MEASURED, cycle j = (i − `first`) // MEASURED holding every stratum
        once in its own seeded order (cycle 0 in stratum order), so any whole cycles hold exactly the same lengths
        whatever the concurrency (common random numbers), while the sequence is not periodic: with one order
        repeated, a closed loop of C clients locks into a pattern that depends on C modulo the cycle (which long
        prompt shares steps with which), as a benchmark's sample never does (vllm bench serve's ShareGPT dataset,
        vllm/benchmarks/datasets/sharegpt.py: the conversations shuffled with --seed, the first --num-prompts valid
        ones sent, none twice). Measured: 1,021 → 975 and 1,004 → 930 falls in the seeded sweeps of 300 cases
        (benchmarks/sweep_serving_properties.py --raw, seeds 1 and 2)."""
        if not self.conversational:
            return [(self.prompt, self.output)] * n
        strata = _strata(self)
        out = []
        for i in range(n):
            cycle, pos = divmod(i - first, MEASURED)
            out.append(strata[_cycle_order(self.seed, cycle)[pos]])
        return out


@functools.lru_cache(maxsize=256)
def _cycle_order(seed: int, cycle: int) -> tuple[int, ...]:
    """The order of the MEASURED strata in cycle `cycle` of a conversational mix (cycle 0: stratum order)."""
    order = list(range(MEASURED))
    if cycle:
        import random  # start-up: only a conversational mix reorders its cycles (the recommender's runs never do)

        random.Random(f"{seed}:{cycle}").shuffle(order)
    return tuple(order)


@functools.lru_cache(maxsize=32)
def _strata(mix: RequestMix) -> tuple[tuple[int, int], ...]:
    """MEASURED (prompt, output) pairs of a conversational mix: fixed quantiles of the clipped lognormals, outputs
    paired by a seeded shuffle (the prompt order itself from a second shuffle, so long prompts are not at one end)."""
    import random  # start-up: only a conversational mix draws lengths (statistics and random ≈ 2 ms to import)
    import statistics

    nd = statistics.NormalDist(0.0, mix.sigma)
    z = [nd.inv_cdf((k + 0.5) / MEASURED) for k in range(MEASURED)]
    rng = random.Random(mix.seed)
    po, oo = list(range(MEASURED)), list(range(MEASURED))
    rng.shuffle(po)
    rng.shuffle(oo)

    def one(median: int, zk: float) -> int:
        return max(1, min(8 * median, round(median * math.exp(zk))))

    return tuple((one(mix.prompt, z[po[k]]), one(mix.output, z[oo[k]])) for k in range(MEASURED))


class ServingResult(msgspec.Struct, frozen=True):
    concurrency: int | None
    rate: float | None
    requests: int
    ttft_p50_s: float
    ttft_p95_s: float
    tpot_p50_s: float
    tpot_p95_s: float
    itl_p50_s: float
    itl_p95_s: float
    output_tokens_per_s: float  # all replicas
    requests_per_s: float
    makespan_s: float
    preemptions: int
    mean_batch: float  # mean running decodes per decode step
    steps: int
    events: int
    notes: list[str] = msgspec.field(default_factory=list)
    e2e_mean_s: float = 0.0  # mean send → last token of the measured requests
    queue_s: float = 0.0  # wait for a free slot beyond the saturated engine (closed loop past saturation)
    ttft_p99_s: float = 0.0  # the 99th percentiles: what MLPerf's Server/Interactive bounds are judged on
    tpot_p99_s: float = 0.0

    @property
    def per_user_tokens_per_s(self) -> float:
        return 1.0 / self.tpot_p50_s if self.tpot_p50_s > 0 else 0.0


class _Req(msgspec.Struct):
    idx: int
    arrival: float
    prompt: int
    output: int
    done_prefill: int = 0
    generated: int = 0
    first_token: float = -1.0
    last_token: float = -1.0
    finish_step: int = 0  # global decode-step index at which the last token is produced
    start_step: int = 0  # global decode-step index of its first decode
    client: int = -1
    orig_output: int = 0
    residual: float = 0.0  # expected wait for the step in flight when it reached the scheduler (closed loop; −1:
    # the engine was busy, the steady state's mean residual is filled in at the end)


class _Costs:
    """The step cost's terms as per-step constants, computed once per simulation (the hot loop's only arithmetic):
        t = pmax(W(T)·w_s, T·mm_s) + pmax(KV·kv_s, F·attn_s) + AR(T) + fixed_0 + seq_s·(decodes + chunks)
    the same terms as throughput.Step.total_s (AR: the all-reduce lines of collectives.pieces, one-shot, two-shot or
    NCCL by the step's tokens)."""

    __slots__ = ("allreduce", "attn_s", "draft", "fixed0", "inv_p", "kv_s", "mm_s", "moe", "p", "q_per", "seq_s",
                 "w_bytes_s", "w_s", "weight_read")

    def __init__(self, prof: SpeedProfile, hw: Hardware, sch: Scheduler, spec: Speculation | None) -> None:
        ref = 4096
        kv_tok = prof.kv_bytes(ref) / ref  # KV bytes per token of context per GPU
        attn_tok = prof.attention_flops(float(ref)) / ref  # attention FLOPs per (query × key token) per GPU
        self.moe = bool(prof.n_experts)
        self.weight_read = prof.weight_read_bytes
        self.w_bytes_s = 1.0 / (hw.bandwidth * hw.eta_w)
        self.w_s = prof.weight_read_bytes(1.0) * self.w_bytes_s  # dense: the same at every token count
        self.mm_s = matmul_s_per_token(prof, hw)
        self.kv_s = kv_tok / (hw.bandwidth * hw.eta_kv)
        self.attn_s = attn_tok / (hw.attn_peak * hw.eta_attn)
        self.p = hw.sharpness
        self.inv_p = 1.0 / hw.sharpness
        self.allreduce = hw.allreduce  # lines in the step's tokens (collectives.pieces); () without TP
        self.fixed0 = sch.step_s + sch.layer_s * prof.layers
        self.seq_s = sch.seq_s
        self.q_per = spec.k + 1 if spec else 1  # query tokens per decode
        self.draft = spec.k * spec.draft_cost if spec else 0.0

    def _pmax(self, a: float, b: float) -> float:
        hi, lo = (a, b) if a >= b else (b, a)
        if hi <= 0.0:
            return 0.0
        smooth: float = hi * (1.0 + (lo / hi) ** self.p) ** self.inv_p  # throughput.smooth_max
        return smooth

    def decode(self, n_dec: int, sum_ctx: float) -> float:
        """Seconds of a step of `n_dec` decodes whose contexts sum to `sum_ctx`, no prefill."""
        q = n_dec * self.q_per
        w = self.weight_read(q) * self.w_bytes_s if self.moe else self.w_s
        pmax = self._pmax
        roof = (pmax(w, q * self.mm_s) + pmax(sum_ctx * self.kv_s, sum_ctx * self.q_per * self.attn_s)
                + (allreduce_seconds(q, self.allreduce) if self.allreduce else 0.0))
        return roof + self.fixed0 + self.seq_s * n_dec + (self.draft * roof if n_dec else 0.0)

    def step(self, n_dec: int, sum_ctx: float, chunks: list[tuple[int, int]]) -> float:
        """Seconds of one step with `n_dec` decodes whose contexts sum to `sum_ctx` and prefill `chunks`
        (start, length): a chunk reads the KV up to its end and attends to its prefix plus its own triangle."""
        q = n_dec * self.q_per
        tokens, kv, attn = q, sum_ctx, sum_ctx * self.q_per if n_dec else 0.0
        for s0, c in chunks:
            tokens += c
            kv += s0 + c
            attn += c * (s0 + (c + 1) / 2)
        w = self.weight_read(tokens) * self.w_bytes_s if self.moe else self.w_s
        roof = (self._pmax(w, tokens * self.mm_s) + self._pmax(kv * self.kv_s, attn * self.attn_s)
                + (allreduce_seconds(tokens, self.allreduce) if self.allreduce else 0.0))
        return roof + self.fixed0 + self.seq_s * (n_dec + len(chunks)) + (self.draft * roof if n_dec else 0.0)


def _pct(values: list[float], q: float) -> float:
    """The q-quantile interpolated between order statistics (numpy's default, as vllm bench serve reports it)."""
    if not values:
        return 0.0
    s = sorted(values)
    x = q * (len(s) - 1)
    i = min(int(x), len(s) - 2) if len(s) > 1 else 0
    return s[i] if len(s) == 1 else s[i] + (s[i + 1] - s[i]) * (x - i)


def _weighted_pcts(pairs: list[tuple[float, float]], qs: tuple[float, ...]) -> tuple[float, ...]:
    """The q-quantiles of values weighted by counts, [(value, weight)], for each q of `qs` (ascending), from one
    sort."""
    if not pairs:
        return tuple(0.0 for _ in qs)
    pairs = sorted(pairs)
    total = sum(w for _, w in pairs)
    out: list[float] = []
    acc, i = 0.0, 0
    for v, w in pairs:
        acc += w
        while i < len(qs) and acc >= qs[i] * total - 1e-9:
            out.append(v)
            i += 1
        if i == len(qs):
            break
    return (*out, *(pairs[-1][0] for _ in qs[len(out):]))


def saturation(sch: Scheduler, lens: list[tuple[int, int]]) -> int:
    """Requests the engine runs at once when it is full: `max_num_seqs`, or as many whole requests (prompt +
    output, mean lengths) as the KV cache holds, whichever is fewer."""
    mean = sum(p + o for p, o in lens) / max(len(lens), 1)
    return max(1, min(sch.max_num_seqs, int(max(sch.kv_capacity_tokens, 1) // max(mean, 1.0))))


def queued(base: ServingResult, concurrency: int, full: int) -> ServingResult:
    """C closed-loop clients in front of an engine that is full at K < C requests: the engine runs K requests
    whatever the queue (its steady state is the simulation at K), the other C − K wait for a free slot. With no think
    time the interactive response-time law gives R(C) = C / X (Denning & Buzen 1978), X = K / R(K) requests/s, so
    every request waits (C − K) · R(K) / K more before its first token; the running batch, and so TPOT and ITL,
    stay those at K (NIM's sweep past saturation: ITL 92.91, 92.86, 93.06 ms at 100, 150, 200 users)."""
    wait = (concurrency - full) * base.e2e_mean_s / full
    return replace(base, concurrency=concurrency, ttft_p50_s=base.ttft_p50_s + wait, ttft_p95_s=base.ttft_p95_s + wait,
                   ttft_p99_s=base.ttft_p99_s + wait,
                   e2e_mean_s=base.e2e_mean_s + wait, queue_s=wait,
                   notes=[*base.notes, f"the engine is full at {full} requests: {concurrency - full} more users wait "
                                       f"{wait:.2f} s for a free slot"])


def simulate(prof: SpeedProfile, hw: Hardware, sch: Scheduler, mix: RequestMix, *, concurrency: int | None = None,
             rate: float | None = None, requests: int | None = None, seed: int = 0,
             spec: Speculation | None = None, stagger: bool = True) -> ServingResult:
    """Serve `requests` requests of `mix` on one replica (module doc); `concurrency` (closed loop) or `rate`
    (requests/s, open loop) sets the load. `stagger=False`: the first wave of C requests arrives at once."""
    if (concurrency is None) == (rate is None):
        raise InputError("give a concurrency or a request rate, not both", field="concurrency")
    if concurrency is not None and concurrency < 1:
        raise InputError(f"concurrency must be ≥ 1, got {concurrency}", field="concurrency", accepted="≥ 1")
    if rate is not None and not rate > 0:
        raise InputError(f"request rate must be positive, got {rate}", field="rate", accepted="> 0 requests/s")
    # closed loop by default: a first wave of C (warm-up), CYCLES whole cycles of the mix measured in steady state
    # (the same lengths at every C), C more that keep all
    # C clients busy until the last measured one is done (the run stops there)
    window = concurrency is not None and requests is None and stagger
    if requests:
        n = min(requests, MAX_REQUESTS if rate is None else MAX_RATE_REQUESTS)
    elif concurrency is not None:
        n = CYCLES * MEASURED + 2 * concurrency
    else:
        n = min(OPEN_LOOP_REQUESTS, max(64, int(rate * 60) if rate else 64))
    typical = mix.draw(MEASURED)  # every length the mix has (fixed: one; conversational: the strata)
    cap = max(sch.kv_capacity_tokens, 1)
    longest = max(p + o for p, o in (typical if n >= MEASURED else mix.draw(n, concurrency or 0)))
    if longest > cap:
        raise InputError(f"one request of {longest} tokens does not fit the KV cache of "
                         f"{cap} tokens", field="context", accepted=f"≤ {cap} tokens per request")
    full = saturation(sch, typical)
    if concurrency is not None and stagger and concurrency > full:
        base = simulate(prof, hw, sch, mix, concurrency=full, seed=seed, spec=spec,
                        requests=None if requests is None else max(16, n * full // concurrency))
        return queued(base, concurrency, full)
    lens = mix.draw(n, concurrency or 0)
    costs = _Costs(prof, hw, sch, spec)
    per_step_tokens = spec.tokens_per_step() if spec else 1.0
    max_seqs = sch.max_num_seqs
    reqs = [_Req(i, 0.0, p, o, orig_output=o) for i, (p, o) in enumerate(lens)]
    arrivals: list[tuple[float, int]] = []  # heap of (time, request index) not yet arrived
    if rate is not None:
        import random  # start-up: only an open-loop run draws arrivals (the recommender's runs are closed-loop)

        rng = random.Random(seed)
        t = 0.0
        for r in reqs:
            t += rng.expovariate(rate)
            r.arrival = t
            arrivals.append((t, r.idx))
        next_req = n
    else:  # closed loop: C clients in steady state, their phases spread evenly over one request's duration
        assert concurrency is not None
        start = min(concurrency, n)
        p0 = round(sum(p for p, _ in typical) / MEASURED)  # the mean request, the same at every C
        o0 = round(sum(o for _, o in typical) / MEASURED)
        one = (costs.step(0, 0.0, [(0, min(p0, sch.max_num_batched_tokens))]) * math.ceil(p0 / sch.max_num_batched_tokens)
               + o0 / per_step_tokens * costs.decode(start, start * (p0 + o0 / 2.0)))
        for i in range(start):  # phases spread evenly over one request: independent clients in steady state
            reqs[i].client = i
            reqs[i].arrival = one * i / start if stagger else 0.0
            arrivals.append((reqs[i].arrival, i))
        heapq.heapify(arrivals)
        next_req = start
    waiting: collections.deque[_Req] = collections.deque()
    running: dict[int, _Req] = {}  # admitted, in admission order
    prefilling: list[_Req] = []  # the running requests whose prompt is not done, in admission order
    decoding: list[tuple[int, int]] = []  # heap of (finish_step, idx)
    dec_set: set[int] = set()
    now, gstep = 0.0, 0
    sum_base = 0.0  # Σ over decoding (prompt + generated_at_start − start_step·per_step) so Σctx = base + n·g·per
    kv_used_prefill = 0  # tokens held by prompts being prefilled
    itl: list[tuple[float, float]] = []
    preempt = steps = events = 0
    dec_weight = 0.0
    dec_steps = 0
    finished: list[_Req] = []
    lo, hi = (concurrency, concurrency + CYCLES * MEASURED) if window and concurrency is not None else (0, n)
    left = hi - lo  # measured requests not finished yet: the run stops when none is left

    # the hot loop's attribute and module lookups as locals (≈ 250 events per run, 8 runs per recommend)
    heappush, heappop, ceil = heapq.heappush, heapq.heappop, math.ceil
    step_cost, decode_cost = costs.step, costs.decode
    batched_tokens, chunked, continuous = sch.max_num_batched_tokens, sch.chunked_prefill, sch.continuous_batching
    prefill_first = sch.prefill_first
    t_last = 0.0  # duration of the last step
    st1 = st2 = 0.0  # Σt and Σt² over the steps once the measured requests are being sent

    def finish_decode(r: _Req) -> None:
        nonlocal sum_base, next_req, left
        dec_set.discard(r.idx)
        if lo <= r.idx < hi:
            left -= 1
        sum_base -= r.prompt + r.generated - r.start_step * per_step_tokens
        del running[r.idx]
        finished.append(r)
        if rate is None and next_req < n:  # the client sends its next request now; after the request overhead
            nr = reqs[next_req]  # it lands at a random point of the step in flight, if there is one
            nr.arrival, nr.client = now, r.client
            nr.residual = -1.0 if running or waiting else 0.0  # the engine busy: filled in at the end
            heappush(arrivals, (nr.arrival, nr.idx))
            next_req += 1

    while left > 0 and events < MAX_EVENTS:
        events += 1
        while arrivals and arrivals[0][0] <= now + 1e-12:
            waiting.append(reqs[heappop(arrivals)[1]])
        if not running and not waiting:
            if not arrivals:
                break
            now = arrivals[0][0]
            continue
        # one scheduled step: decodes first, then prefill chunks
        n_dec = len(dec_set)
        ctx = sum_base + n_dec * gstep * per_step_tokens  # Σ context of the decodes (unchanged until the step)
        budget = batched_tokens - (0 if prefill_first else n_dec)
        kv_free = cap - (ctx + n_dec * per_step_tokens) - kv_used_prefill
        chunks: list[tuple[_Req, int]] = []
        for r in prefilling:
            if budget <= 0:
                break
            c = min(budget, r.prompt - r.done_prefill) if chunked else r.prompt - r.done_prefill
            if c > budget:
                break
            chunks.append((r, c))
            budget -= c
        blocked = not continuous and bool(running)
        while waiting and not blocked and len(running) < max_seqs and budget > 0:
            r = waiting[0]
            need = r.prompt
            if need > kv_free:
                break
            c = min(budget, need) if chunked else need
            if c > budget and (n_dec or chunks):
                break  # no chunking: the whole prompt waits for a step with room
            waiting.popleft()
            running[r.idx] = r
            prefilling.append(r)
            kv_free -= need
            kv_used_prefill += need
            chunks.append((r, c))
            budget -= c
        if not chunks and n_dec == 0:
            if arrivals:
                now = max(now, arrivals[0][0])
                continue
            break
        if not chunks:
            # a stretch of pure decode steps: until the next finish, arrival or KV overflow
            k = decoding[0][0] - gstep if decoding else 1
            while decoding and decoding[0][1] not in dec_set:
                heappop(decoding)
                k = decoding[0][0] - gstep if decoding else 1
            k = max(1, k)
            room = cap - kv_used_prefill - ctx
            k_kv = int(room // max(n_dec * per_step_tokens, 1))
            if k_kv < 1:  # preempt the newest running request (recompute later)
                victim = running.popitem()[1]
                if victim.idx in dec_set:
                    dec_set.discard(victim.idx)
                    sum_base -= victim.prompt + victim.generated - victim.start_step * per_step_tokens
                    made = victim.generated + int((gstep - victim.start_step) * per_step_tokens)
                    made = min(made, victim.output - 1)
                    victim.prompt += made
                    victim.output -= made
                else:
                    kv_used_prefill -= victim.prompt
                    prefilling.remove(victim)
                victim.generated = 0
                victim.done_prefill = 0
                waiting.appendleft(victim)
                preempt += 1
                continue
            k = min(k, k_kv)
            t_mid = decode_cost(n_dec, ctx + n_dec * per_step_tokens * (k - 1) / 2.0)
            if arrivals and not waiting and len(running) < max_seqs and continuous:
                k = max(1, min(k, ceil((arrivals[0][0] - now) / t_mid)))
            now += k * t_mid
            t_last = t_mid
            if next_req > lo:
                st1 += k * t_mid
                st2 += k * t_mid * t_mid
            gstep += k
            steps += k
            dec_steps += k
            dec_weight += k * n_dec
            itl.append((t_mid / per_step_tokens, k * n_dec * per_step_tokens))
        else:
            alone = prefill_first and n_dec > 0  # the decodes wait out this step (their gap grows by it)
            t = step_cost(0 if alone else n_dec, 0.0 if alone else ctx, [(r.done_prefill, c) for r, c in chunks])
            now += t
            t_last = t
            if next_req > lo:
                st1 += t
                st2 += t * t
            gstep += 0 if alone else 1
            steps += 1
            if n_dec and not alone:
                dec_steps += 1
                dec_weight += n_dec
                itl.append((t / per_step_tokens, n_dec * per_step_tokens))
            prompts_done = False
            for r, c in chunks:
                r.done_prefill += c
                if r.done_prefill >= r.prompt:  # prompt done: the first token comes out of this step
                    prompts_done = True
                    kv_used_prefill -= r.prompt
                    r.first_token = now if r.first_token < 0 else r.first_token
                    r.generated = 1
                    r.start_step = gstep
                    r.finish_step = gstep + max(0, ceil((r.output - 1) / per_step_tokens))
                    dec_set.add(r.idx)
                    sum_base += r.prompt + r.generated - r.start_step * per_step_tokens
                    heappush(decoding, (r.finish_step, r.idx))
            if prompts_done:
                prefilling = [r for r in prefilling if r.done_prefill < r.prompt]
        # requests whose last token came out by now
        while decoding and decoding[0][0] <= gstep:
            _, idx = heappop(decoding)
            r = reqs[idx]
            if idx in dec_set and r.finish_step <= gstep:
                r.last_token = now
                finish_decode(r)
    done = [r for r in finished if r.first_token >= 0]
    if not done:
        raise InputError("the simulation served no request", field="concurrency")
    if window:
        lat = [r for r in done if lo <= r.idx < hi]
    elif concurrency is not None and n >= 3 * concurrency and stagger:
        # steady state: requests C … n−C−1. The first wave is the warm-up; request j < n−C finishes before the last
        # request is sent (its finish sends request j+C), so all C clients were busy or queued through its whole
        # life; the last C ones run while the clients stop one by one (a shrinking batch: the drain).
        lat = [r for r in done if concurrency <= r.idx < n - concurrency]
    elif concurrency is not None and len(done) > 2 * concurrency:
        lat = [r for r in done if r.idx >= concurrency]
    else:
        lat = done
    wait = st2 / (2 * st1) if st1 > 0 else 0.5 * t_last
    for r in lat:
        if r.residual < 0:
            r.residual = wait
    ttft = [r.first_token - r.arrival + sch.request_s + r.residual for r in lat]  # client send → first token
    tpot = [(r.last_token - r.first_token) / (r.orig_output - 1) for r in lat
            if r.orig_output > 1 and r.last_token > 0]
    e2e = [r.last_token - r.arrival + sch.request_s + r.residual for r in lat if r.last_token > 0]
    tokens = sum(r.orig_output for r in done)
    span = max(r.last_token for r in done) - min(r.arrival for r in done)
    out_rate, req_rate = (tokens / span, len(done) / span) if span > 0 else (0.0, 0.0)
    steady = [r for r in lat if r.last_token > 0]
    if concurrency is not None and stagger and steady and lat is not done:
        # C clients with no think time in steady state: X = C / R (interactive response-time law, Denning & Buzen
        # 1978), R the mean send → last token of the steady-state requests. tokens/makespan would count the staggered
        # start and the drain of a short run (3 requests per client: ~¼ of the span with fewer than C busy clients),
        # which a benchmark client of 10+ requests per slot, started together, hardly sees.
        r_mean = sum(r.last_token - r.arrival + sch.request_s + r.residual for r in steady) / len(steady)
        req_rate = min(concurrency, n) / r_mean
        out_rate = req_rate * sum(r.orig_output for r in steady) / len(steady)

    itl_p50, itl_p95 = _weighted_pcts(itl, (0.5, 0.95))
    notes = []
    if left > 0:
        notes.append(f"simulation stopped after {events} events ({len(finished)} of {n} requests)")
    return ServingResult(
        concurrency=concurrency, rate=rate, requests=len(done), ttft_p50_s=_pct(ttft, 0.5), ttft_p95_s=_pct(ttft, 0.95),
        tpot_p50_s=_pct(tpot, 0.5) if tpot else 0.0, tpot_p95_s=_pct(tpot, 0.95) if tpot else 0.0,
        itl_p50_s=itl_p50, itl_p95_s=itl_p95,
        output_tokens_per_s=out_rate, requests_per_s=req_rate,
        makespan_s=span, preemptions=preempt, mean_batch=dec_weight / dec_steps if dec_steps else 0.0, steps=steps,
        events=events, notes=notes, e2e_mean_s=sum(e2e) / len(e2e) if e2e else 0.0,
        ttft_p99_s=_pct(ttft, 0.99), tpot_p99_s=_pct(tpot, 0.99) if tpot else 0.0)
