"""Serving figures for a model on GPUs: the scheduler simulation (serving_sim) set up from the catalog, the engine
profile (knowledge/data/engines.yaml `serving`) and the engine's KV cache (engine_memory), and the largest load that
meets a latency target.

Replicas: `count` GPUs form count/tp copies of the TP group, independent engines with their own weights and KV cache
serving separate requests (vLLM's Data Parallel Deployment, docs.vllm.ai/en/latest/serving/data_parallel_deployment/;
SGLang's DP guide: throughput "multiplied nearly linearly"); a closed-loop concurrency C is split evenly (⌈C/r⌉ on
each), an open-loop rate λ as λ/r; tokens/s in total = one replica's × r, or × C/⌈C/r⌉ when fewer users than
replicas leave some idle (`ServingReport.streams`).

Pipelines: a continuous-batching engine keeps pp batches in flight in a replica of pp stages, one in each stage
(vLLM `max_concurrent_batches`: "PP requires PP-size concurrent batches to fill the pipeline"; TensorRT-LLM and SGLang
likewise), so the replica is simulated as pp microbatch streams, each with 1/pp of its KV cache, each step costing a
pass through every stage.
"""

from __future__ import annotations

import collections
import math
import threading
from typing import Any

import msgspec
from msgspec.structs import replace

from advisor.workload import CHAT_OUTPUT_TOKENS, CHAT_PROMPT_TOKENS, Workload, request_lengths
from knowledge.errors import InputError
from knowledge.quantities import GIB
from knowledge.schemas import GpuSpec, ModelSpec

from .activations import prefill_workspace_bytes
from .calibration import Calibration
from .collectives import hand_overs
from .engine_memory import engine_kv_budget, visible_bytes
from .engines import default_engines
from .formats import check_format, native_compute, weight_bytes
from .kv_cache import kv_cache_bytes
from .memory import default_inference_format
from .serving_ladder import Envelope
from .serving_sim import MEASURED, RequestMix, Scheduler, ServingResult, Speculation, saturation, simulate
from .throughput import (
    act_quant_per_layer,
    attention_dp_on,
    default_engine,
    hardware,
    memory_class,
    speed_profile,
    tp_link,
)

# Conversational traffic: lognormal lengths with σ = 1 around the stated means. ShareGPT as sampled by the vLLM and
# SGLang benchmark clients averages ≈ 215 prompt and ≈ 195 output tokens per request (advisor.workload's chat turn,
# cited there); σ = 1 is a stated prior for its long tail (a few requests 5-8 × the median).
CONVERSATION_PROMPT_MEAN = CHAT_PROMPT_TOKENS
CONVERSATION_OUTPUT_MEAN = CHAT_OUTPUT_TOKENS
CONVERSATION_SIGMA = 1.0


class ServingReport(msgspec.Struct, frozen=True):
    engine: str
    tp: int
    replicas: int
    result: ServingResult  # one replica
    scheduler: Scheduler
    fp4: bool
    speculation: Speculation | None
    max_concurrency_for_target: int | None = None
    target: dict[str, float] | None = None
    microbatches: int = 1  # batches in flight in each pipelined replica (its pp stages)
    ladder: bool = False  # the latency figures are those for up to C users (serving_ladder)
    users: int | None = None  # closed loop: the concurrency over all replicas (None: an open-loop rate)

    @property
    def streams(self) -> float:
        """The replica streams (replicas × microbatches) the totals count: all of them at a rate; in a closed loop of
        C users, each stream simulated at ⌈C/streams⌉, the C/⌈C/streams⌉ streams' worth that C users fill (1 user
        on 4 replicas is one stream's tokens, not four; uneven shares are counted at the busier stream's speed)."""
        streams = self.replicas * self.microbatches
        if not self.users or not self.result.concurrency:
            return float(streams)
        return min(float(streams), self.users / self.result.concurrency)

    @property
    def output_tokens_per_s(self) -> float:
        return self.result.output_tokens_per_s * self.streams

    @property
    def requests_per_s(self) -> float:
        """Requests completed per second over all the streams (the result's are one replica's)."""
        return self.result.requests_per_s * self.streams

    def formulas(self) -> list[str]:
        r, s = self.result, self.scheduler
        load = f"{r.concurrency} concurrent requests" if r.concurrency else f"{r.rate:g} requests/s"
        lines = [
            f"continuous-batching simulation ({self.engine}: max_num_seqs {s.max_num_seqs}, max_num_batched_tokens "
            f"{s.max_num_batched_tokens}, chunked prefill {'on' if s.chunked_prefill else 'off'}, KV cache "
            f"{s.kv_capacity_tokens:,} tokens per replica) at {load} per replica, {r.requests} requests: "
            f"TTFT p50 {r.ttft_p50_s * 1e3:.1f} ms, p95 {r.ttft_p95_s * 1e3:.1f} ms; TPOT p50 "
            f"{r.tpot_p50_s * 1e3:.2f} ms; ITL p95 {r.itl_p95_s * 1e3:.2f} ms; {self.output_tokens_per_s:,.0f} "
            f"output tokens/s over {self.replicas} replica(s)"
            + (f" of {self.microbatches} pipelined microbatches each" if self.microbatches > 1 else "")
            + f"; mean decode batch {r.mean_batch:.1f}",
            f"step = roofline(tokens of the step) + {s.step_s * 1e3:.2f} ms + {s.layer_s * 1e6:.0f} µs × layers + "
            f"{s.seq_s * 1e6:.0f} µs × sequences; TTFT adds {s.request_s * 1e3:.1f} ms per request",
        ]
        if r.queue_s > 0:
            lines.append(f"past the load the engine holds at once, users queue for a slot: TTFT includes "
                         f"{r.queue_s:.2f} s of waiting (R = C/X, the running batch and TPOT stay the full engine's)")
        if self.ladder:
            lines.append("TTFT, TPOT and ITL are those for up to this load: the worst simulated at 1, 2, 4, 8 … users "
                         "(and where the engine is full) up to it, read linearly between the two loads around it "
                         "(never lower for more users)")
        if self.speculation:
            sp = self.speculation
            lines.append(f"speculative decoding: {sp.k} drafted tokens, acceptance {sp.acceptance:.0%} → "
                         f"{sp.tokens_per_step():.2f} tokens per verification step")
        if self.max_concurrency_for_target is not None and self.target:
            lines.append(f"largest concurrency meeting {_target_text(self.target)}: {self.max_concurrency_for_target}")
        return lines

    def to_contract(self) -> dict[str, Any]:
        r = self.result
        return {"engine": self.engine, "concurrency": r.concurrency, "rate": r.rate, "replicas": self.replicas,
                "ttft_s": r.ttft_p50_s, "ttft_p95_s": r.ttft_p95_s, "tpot_s": r.tpot_p50_s,
                "tpot_p95_s": r.tpot_p95_s, "itl_s": r.itl_p50_s, "itl_p95_s": r.itl_p95_s,
                "per_user_tokens_per_s": r.per_user_tokens_per_s, "output_tokens_per_s": self.output_tokens_per_s,
                "requests_per_s": r.requests_per_s * self.streams, "preemptions": r.preemptions,
                "microbatches": self.microbatches,
                "queue_s": r.queue_s,
                "mean_batch": r.mean_batch, "kv_capacity_tokens": self.scheduler.kv_capacity_tokens,
                "max_num_seqs": self.scheduler.max_num_seqs,
                "max_num_batched_tokens": self.scheduler.max_num_batched_tokens,
                "chunked_prefill": self.scheduler.chunked_prefill, "fp4_compute": self.fp4,
                "speculative": None if self.speculation is None else {
                    "k": self.speculation.k, "acceptance": self.speculation.acceptance},
                "max_concurrency_for_target": self.max_concurrency_for_target, "target": self.target}


def _target_text(target: dict[str, float]) -> str:
    parts = [f"TPOT ≤ {target['tpot_s'] * 1e3:g} ms" if "tpot_s" in target else "",
             f"TTFT ≤ {target['ttft_s'] * 1e3:g} ms" if "ttft_s" in target else ""]
    return " and ".join(p for p in parts if p)


def scheduler_for(engine: str, model: ModelSpec, gpu: GpuSpec, *, tp: int, weights: str, kv: str, context: int,
                  calib: Calibration, chunked_prefill: bool | None = None, max_num_seqs: int | None = None,
                  max_num_batched_tokens: int | None = None, pp: int = 1, attention_dp: bool = False) -> Scheduler:
    """The engine's scheduler and fixed costs on `gpu`, with the KV cache its memory model gives one replica.

    Under DP attention (`attention_dp`) the group's GPUs are data-parallel ranks, each scheduling its own
    max_num_seqs and token budget (vLLM: one engine core per DP rank [vllm-data-parallel]): the replica's limits
    are tp times one rank's, and its KV cache the ranks' together.

    A replica of `pp` pipeline stages: each GPU holds 1/pp of the layers, so 1/pp of the weights and of every
    token's KV (per GPU, kv_tok = the TP group's bytes per token for all layers):
        cap(pp) = pp · (cap(1) + W_tp · (1 − 1/pp) / kv_tok)      W_tp = weights per GPU of the TP group alone"""
    prof = default_engines().get(engine)
    sv = prof.serving
    if sv is None:
        raise InputError(f"{prof.name} is not a serving engine", field="engine",
                         accepted="vllm, sglang, trtllm, transformers, transformers-compiled, llama.cpp")
    large = gpu.memory_bytes >= 70 * GIB and not gpu.id.startswith(("a100", "a800"))
    seqs, budget = sv.max_num_seqs, sv.max_num_batched_tokens
    if engine == "vllm" and not large:  # vLLM's defaults below 70 GiB (and on A100/A800): 256 and 2048
        seqs, budget = 256, 2048
    budget = max(budget, 1) if (chunked_prefill if chunked_prefill is not None else sv.chunked_prefill) \
        else max(budget, context)
    layer_s = sv.layer_s.value
    if engine == "llama.cpp":
        fixed = calib.inference.engine_fixed_costs.get("llama.cpp")
        if fixed is not None:
            layer_s = fixed.layer_s["hbm" if memory_class(gpu) == "hbm" else "gddr"].value
    layer_s += act_quant_per_layer(engine, model, native_compute(weights, gpu) == "fp8")
    if attention_dp:
        seqs, budget = seqs * tp, budget * tp
    # KV bytes per token at the context; an engine that does not free window blocks (TensorRT-LLM) holds every
    # layer's pool at the whole sequence, as if the model had no sliding window
    held = model if sv.window_kv_freed else replace(model, sliding_window=None)
    kv_tok = max(1, kv_cache_bytes(held, context, 1, kv, tp, attention_dp=attention_dp) // context)
    b = engine_kv_budget(engine, model, gpu, tp=tp, weights=weights, kv=kv, max_model_len=context,
                         attention_dp=attention_dp)
    if b is not None:
        cap = b.kv_tokens
        if kv_tok < b.kv_bytes_per_token and sv.window_kv_freed:
            # hybrid attention (gpt-oss, Gemma 3): the engine's start-up figure sizes every layer for the whole
            # sequence, but a running request's sliding-window layers keep only their window (vLLM V1's
            # SlidingWindowManager frees the blocks that leave it), so the pool holds more tokens in service.
            # TensorRT-LLM keeps one pool per attention window only when kv_cache_config.max_attention_window lists
            # the windows (default None: every layer at the whole sequence, as its perf-overview runs gpt-oss)
            cap = int(b.kv_tokens * b.kv_bytes_per_token // kv_tok)
    elif engine == "llama.cpp":
        # llama.cpp takes what it needs of the whole card, as the memory estimate counts it (usable fraction 1): the
        # card less its share of the weights, the CUDA context and one ubatch's compute buffer (prefill temporaries
        # of prefill_chunk_tokens with flash attention and the logits of one sequence). Two 24 GB cards hold a 70B
        # Q4_K_M this way (measured 19 tokens/s on 2× RTX 4090, XiongjieDai GPU-Benchmarks-on-LLM-Inference)
        chunk = int(prof.prefill_chunk_tokens.value) if prof.prefill_chunk_tokens else 512
        free = (visible_bytes(gpu) - weight_bytes(model, check_format(weights).name, tp=tp)
                - prof.cuda_context_bytes.value - prefill_workspace_bytes(model, chunk, context, tp=tp))
        cap = int(max(0.0, free) // kv_tok)
    else:  # engines without a start-up reservation: 90 % of the card less weights and ~1.5 GiB of runtime
        free = (0.9 * visible_bytes(gpu) - weight_bytes(model, check_format(weights).name, tp=tp,
                                                          attention_dp=attention_dp) - 1.5 * GIB)
        cap = int(max(0.0, free) // kv_tok)
    if pp > 1:
        freed = weight_bytes(model, check_format(weights).name, tp=tp, attention_dp=attention_dp) * (1.0 - 1.0 / pp)
        cap = int(pp * (cap + freed // kv_tok))
    return Scheduler(engine=engine, max_num_seqs=max_num_seqs or seqs,
                     max_num_batched_tokens=max_num_batched_tokens or budget,
                     chunked_prefill=sv.chunked_prefill if chunked_prefill is None else chunked_prefill,
                     continuous_batching=sv.continuous_batching, step_s=sv.step_s.value, layer_s=layer_s,
                     seq_s=sv.seq_s.value, request_s=sv.request_s.value, kv_capacity_tokens=int(cap))


def serving_setup(model: ModelSpec, gpu: GpuSpec, count: int, w: Workload, calib: Calibration, engine: str | None,
           chunked_prefill: bool | None, max_num_seqs: int | None = None,
           max_num_batched_tokens: int | None = None) -> tuple[Any, Any, Scheduler, int, int, RequestMix, bool]:
    weights = w.weights or default_inference_format(model)
    kv = w.kv or "fp16"
    wtp, pp = int(w.tp or 1), int(w.pp or 1)
    world = int(w.gpus or 1) * int(w.nodes or 1)
    tp = wtp if (wtp > 1 or world == count or pp > 1) else count
    if pp > 1 and count % (tp * pp):
        pp = 1  # a pipeline the GPUs given cannot hold (`--pp` with fewer `--count`): TP alone, as the roofline reads it
    if tp < 1 or count % (tp * pp):
        raise InputError(f"tensor × pipeline parallelism {tp} × {pp} must divide the GPU count {count}", field="tp",
                         accepted=f"tp × pp a divisor of {count}")
    eng = engine or w.engine or default_engine(weights)
    context = int(w.context)
    prompt, output = request_lengths(context, w.prompt_tokens, w.output_tokens)
    dpa = attention_dp_on(model, w, tp)
    # llama.cpp spreads the layers over the GPUs (--split-mode layer): a step passes through them one after another,
    # costing what one GPU holding every layer would, plus a hand-over per boundary (as throughput._steps costs it);
    # the other engines shard every layer and all GPUs work at once
    layer_split = eng == "llama.cpp" and tp > 1
    prof = speed_profile(model, weights, kv, 1 if layer_split else tp, dpa)
    fp4 = check_format(weights).name in ("fp4", "nvfp4", "mxfp4") and bool(getattr(gpu, "fp4_dense_flops", None))
    hw = hardware(gpu, prof, calib, "trtllm" if eng in ("vllm", "sglang", "transformers",
                                                        "transformers-compiled") else eng)  # FP4 peak where fp4
    if layer_split:
        link_bw, alpha, _name = tp_link(gpu, 2, calib)
        hw = replace(hw, allreduce=hand_overs(tp, model.hidden_size, link_bw, alpha))
    # a pipelined replica steps each batch through its stages one after another: a step costs what the TP group's
    # step over all layers costs; the pp batches in flight at once are simulate_serving's microbatch streams
    sch = scheduler_for(eng, model, gpu, tp=tp, weights=weights, kv=kv, context=max(context, prompt + output),
                        calib=calib, chunked_prefill=chunked_prefill, pp=pp, max_num_seqs=max_num_seqs,
                        max_num_batched_tokens=max_num_batched_tokens, attention_dp=dpa)
    return prof, hw, sch, tp, count // (tp * pp), RequestMix(prompt, output), fp4


def microbatched(sch: Scheduler, count: int, tp: int, replicas: int) -> tuple[Scheduler, int]:
    """The scheduler one microbatch stream of a pipelined replica sees (1/pp of the KV cache) and pp; unchanged and 1
    without a pipeline or without continuous batching."""
    mb = max(1, count // (tp * replicas)) if sch.continuous_batching else 1
    return (replace(sch, kv_capacity_tokens=sch.kv_capacity_tokens // mb) if mb > 1 else sch), mb


def simulate_serving(model: ModelSpec, gpu: GpuSpec, count: int, workload: Workload, calib: Calibration, *,
                     concurrency: int | None = None, rate: float | None = None, engine: str | None = None,
                     conversational: bool = False, speculation: Speculation | None = None,
                     chunked_prefill: bool | None = None, requests_per_client: int | None = None,
                     target_tpot_s: float | None = None, target_ttft_s: float | None = None,
                     stagger: bool = True, requests: int | None = None, max_num_seqs: int | None = None,
                     max_num_batched_tokens: int | None = None, ladder: bool = True,
                     ttft_percentile: int = 50) -> ServingReport:
    """TTFT, TPOT/ITL and throughput of `model` on `count` × `gpu` under the workload's lengths, at `concurrency`
    concurrent requests (default: the workload's) or at `rate` requests/s; with a target, also the largest
    concurrency that meets it (:func:`max_concurrency_for_target`; the TTFT target at `ttft_percentile`: 50, 95 or
    99). `max_num_seqs` and
    `max_num_batched_tokens` override the engine's defaults (its batch and per-step token budget flags).

    A closed loop in steady state reports its latency figures for up to C users (serving_ladder: the worst over a
    ladder of loads up to C, so they never fall as C grows and the capacity search reads the same figures);
    `ladder=False`, an explicit request count or `stagger=False` give the one simulation at C as it came out."""
    prof, hw, sch, tp, replicas, mix, fp4 = serving_setup(model, gpu, count, workload, calib, engine, chunked_prefill,
                                                   max_num_seqs, max_num_batched_tokens)
    if conversational:  # the workload's prompt/output lengths are the means of a ShareGPT-like spread
        mix = RequestMix.with_means(mix.prompt, mix.output, sigma=CONVERSATION_SIGMA)
    vsch, mb = microbatched(sch, count, tp, replicas)
    env = _envelope(prof, hw, vsch, mix, speculation)
    used_ladder = False
    if rate is None:
        concurrency = int(concurrency or workload.concurrency or 1)
        per = max(1, math.ceil(concurrency / (replicas * mb)))
        if ladder and requests is None and requests_per_client is None and stagger and sch.continuous_batching:
            res, used_ladder = env.result(per), True  # the figures for up to `per` users (serving_ladder)
        else:
            res = simulate(prof, hw, vsch, mix, concurrency=per,
                           requests=requests or (requests_per_client * per if requests_per_client else None),
                           spec=speculation, stagger=stagger and sch.continuous_batching)
    else:
        res = simulate(prof, hw, vsch, mix, rate=rate / (replicas * mb), spec=speculation, requests=requests)
    report = ServingReport(engine=sch.engine, tp=tp, replicas=replicas, result=res, scheduler=sch, fp4=fp4,
                           speculation=speculation, microbatches=mb, ladder=used_ladder,
                           users=concurrency if rate is None else None)
    if target_tpot_s is None and target_ttft_s is None:
        return report
    limit = _max_concurrency(env, vsch, target_tpot_s, target_ttft_s, ttft_percentile)
    target = {k: v for k, v in (("tpot_s", target_tpot_s), ("ttft_s", target_ttft_s)) if v is not None}
    if target_ttft_s is not None and ttft_percentile != 50:
        target["ttft_percentile"] = ttft_percentile
    return replace(report, max_concurrency_for_target=limit * replicas * mb, target=target)


def request_fits(model: ModelSpec, gpu: GpuSpec, count: int, workload: Workload, calib: Calibration, *,
                 engine: str | None = None) -> bool:
    """Whether one request (prompt + output tokens) fits the KV cache the engine has beside the weights."""
    _prof, _hw, sch, _tp, _replicas, mix, _fp4 = serving_setup(model, gpu, count, workload, calib, engine, None)
    return sch.kv_capacity_tokens >= mix.prompt + mix.output


def saturating_concurrency(model: ModelSpec, gpu: GpuSpec, count: int, workload: Workload, calib: Calibration, *,
                           engine: str | None = None, max_num_seqs: int | None = None) -> int:
    """Requests in flight at an infinite request rate: as many as the scheduler runs (`max_num_seqs`: its flag,
    else the engine's default) and the KV cache holds whole (prompt + output), over all replicas."""
    _prof, _hw, sch, tp, replicas, mix, _fp4 = serving_setup(model, gpu, count, workload, calib, engine, None,
                                                             max_num_seqs)
    vsch, mb = microbatched(sch, count, tp, replicas)
    per = min(vsch.max_num_seqs, max(1, vsch.kv_capacity_tokens // (mix.prompt + mix.output)))
    return per * replicas * mb


_ENVELOPES: collections.OrderedDict[bytes, Envelope] = collections.OrderedDict()
_ENVELOPES_LOCK = threading.Lock()
ENVELOPES_KEPT = 64  # the ladders of the last 64 setups (an answer's figures and its capacity search share one)


def _envelope(prof: Any, hw: Any, sch: Scheduler, mix: RequestMix, spec: Speculation | None) -> Envelope:
    """The closed-loop steady state's figures over the ladder of loads (serving_ladder) for one replica; the
    simulations are deterministic, so a setup simulated before in this process reuses its runs."""
    key = msgspec.json.encode((prof, hw, sch, mix, spec))
    with _ENVELOPES_LOCK:
        env = _ENVELOPES.get(key)
        if env is None:
            env = Envelope(lambda c: simulate(prof, hw, sch, mix, concurrency=c, spec=spec),
                           saturation(sch, mix.draw(MEASURED)))
            _ENVELOPES[key] = env
            while len(_ENVELOPES) > ENVELOPES_KEPT:
                _ENVELOPES.popitem(last=False)
        else:
            _ENVELOPES.move_to_end(key)
        return env


def clear_envelopes() -> None:
    """Forget the simulated ladders (benchmarks time a cold answer)."""
    with _ENVELOPES_LOCK:
        _ENVELOPES.clear()


def _max_concurrency(env: Envelope, sch: Scheduler, tpot: float | None, ttft: float | None,
                     ttft_percentile: int = 50) -> int:
    """Largest per-replica concurrency whose median TPOT and TTFT (at `ttft_percentile`), as printed for that load
    (serving_ladder: the worst over the loads up to it), meet the targets (0: not even one request); at most
    min(max_num_seqs, 1024)."""
    key = f"ttft_p{ttft_percentile if ttft_percentile in (95, 99) else 50}_s"

    def ok(f: dict[str, float]) -> bool:
        return (tpot is None or f["tpot_p50_s"] <= tpot) and (ttft is None or f[key] <= ttft)

    return env.max_meeting(ok, min(sch.max_num_seqs, 1024))


def max_concurrency_for_target(model: ModelSpec, gpu: GpuSpec, count: int, workload: Workload, calib: Calibration,
                               *, tpot_s: float | None = None, ttft_s: float | None = None,
                               engine: str | None = None, max_num_seqs: int | None = None,
                               max_num_batched_tokens: int | None = None, chunked_prefill: bool | None = None) -> int:
    """The most concurrent requests `count` × `gpu` serve with median TPOT ≤ `tpot_s` and TTFT ≤ `ttft_s`."""
    if tpot_s is None and ttft_s is None:
        raise InputError("give a TPOT or TTFT target", field="target", accepted="tpot_s and/or ttft_s > 0")
    for name, v in (("tpot_s", tpot_s), ("ttft_s", ttft_s)):
        if v is not None and not v > 0:
            raise InputError(f"{name} target must be positive, got {v}", field=name, accepted="> 0 s")
    prof, hw, sch, tp, replicas, mix, _fp4 = serving_setup(model, gpu, count, workload, calib, engine, chunked_prefill,
                                                    max_num_seqs, max_num_batched_tokens)
    vsch, mb = microbatched(sch, count, tp, replicas)
    return _max_concurrency(_envelope(prof, hw, vsch, mix, None), vsch, tpot_s, ttft_s) * replicas * mb


def merge_into_contract(contract: dict[str, Any], report: ServingReport) -> dict[str, Any]:
    """The `throughput --json` contract with the simulation's figures at the stated load: ttft_s (median), the
    per-sequence decode speed 1/TPOT, total output tokens/s, plus tpot_s, itl_p95_s, ttft_p95_s and
    max_concurrency_for_target; the steady-state roofline figures stay under `roofline`."""
    r = report.result
    out = dict(contract)
    out["roofline"] = {k: contract.get(k) for k in ("decode_tokens_per_s", "decode_tokens_per_s_total", "ttft_s",
                                                    "ms_per_token")}
    if r.tpot_p50_s > 0:
        out["decode_tokens_per_s"] = 1.0 / r.tpot_p50_s
        out["ms_per_token"] = r.tpot_p50_s * 1e3
    out["decode_tokens_per_s_total"] = report.output_tokens_per_s
    out["ttft_s"] = r.ttft_p50_s
    out.update({"tpot_s": r.tpot_p50_s, "tpot_p95_s": r.tpot_p95_s, "itl_s": r.itl_p50_s, "itl_p95_s": r.itl_p95_s,
                "ttft_p95_s": r.ttft_p95_s, "max_concurrency_for_target": report.max_concurrency_for_target,
                "serving": report.to_contract()})
    out["formulas"] = list(contract.get("formulas", [])) + report.formulas()
    return out


def simulate_estimate(est: Any, model: ModelSpec, gpu: GpuSpec, workload: Workload, calib: Calibration, *,
                      engine: str | None = None, rate: float | None = None, target_tpot_s: float | None = None,
                      target_ttft_s: float | None = None, conversational: bool = False,
                      speculation: Speculation | None = None, ttft_percentile: int = 50) -> ServingReport | None:
    """The simulation behind a ThroughputEstimate (its GPUs, layout and concurrency), as `gpu-advisor throughput`
    and the estimate_throughput tool report it; None where it does not apply (llama.cpp split over GPUs)."""
    eng = engine or workload.engine or default_engine(est.weights)
    if eng == "llama.cpp" and est.tp > 1:
        return None
    if not request_fits(model, gpu, est.count, workload, calib, engine=eng):
        return None  # the weights leave no KV cache for one whole request: nothing to serve, so nothing to simulate
    return simulate_serving(model, gpu, est.count, workload, calib, concurrency=None if rate else est.concurrency,
                            rate=rate, engine=eng, target_tpot_s=target_tpot_s, target_ttft_s=target_ttft_s,
                            conversational=conversational, speculation=speculation, ttft_percentile=ttft_percentile)
