"""Which serving engine is faster on a configuration ("Is vLLM or llama.cpp faster for Qwen2.5-14B on a 4090?").

Each engine runs the formats it usually serves (the most precise first): vLLM, SGLang and TensorRT-LLM the
checkpoint's precision, FP8 where the card has FP8 tensor cores, then AWQ-INT4; llama.cpp (Ollama, LM Studio) GGUF
BF16, Q8_0, Q4_K_M; transformers BF16, bitsandbytes INT8, NF4. The first format that fits with the recommender's
headroom (`advisor.recommend.search.sized` on `estimate_memory` with the engine's own memory profile) is timed with
`advisor.estimator.throughput.estimate_throughput` at the asked concurrency and the request lengths the answer's
speeds use (`advisor.workload.speed_workload`: one chat turn unless stated), with that engine's fixed
costs per step (knowledge/data/calibration.yaml `engine_fixed_costs`). A format the user stated is used for every
engine instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import EngineRun, asked_option
from advisor.analysis.steps import Step, timed
from advisor.estimator.calibration import load_calibration
from advisor.estimator.formats import bits_per_weight
from advisor.estimator.memory import default_inference_format, estimate_memory
from advisor.estimator.serving import saturating_concurrency, simulate_serving
from advisor.estimator.throughput import estimate_throughput
from advisor.recommend.search import sized
from advisor.workload import Workload, speed_workload
from knowledge.errors import AdvisorError
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.analysis.request import AnalysisRequest
    from advisor.analysis.result import Analysis
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec, ModelSpec

SERVER_ENGINES = ("vllm", "sglang", "trtllm")


def engine_formats(engine: str, gpu: GpuSpec) -> tuple[str, ...]:
    """The weight formats `engine` usually serves on `gpu`, the most precise first."""
    if engine == "llama.cpp":
        return ("bf16", "q8_0", "q4_k_m")
    if engine == "transformers":
        return ("bf16", "bnb-int8", "nf4")
    return ("bf16", "fp8", "awq-int4") if gpu.supports_fp8 else ("bf16", "int8", "awq-int4")


def engine_run(model: ModelSpec, workload: Workload, gpu: GpuSpec, count: int, engine: str,
               stated_weights: str | None = None, attention_dp: bool = False, kv_stated: bool = True,
               full_load: bool = False) -> EngineRun:
    """`engine` on `count` × `gpu`: the most precise of its formats (no more precise than the checkpoint) that fits,
    and its decode speed there; weights "" when none fits. `attention_dp`: the configuration runs an MLA model's
    attention data-parallel (the recommender's layout), which the server engines offer (vLLM and SGLang
    --enable-dp-attention, TensorRT-LLM enable_attention_dp) and llama.cpp and transformers do not. `kv_stated`
    False: a server engine that holds the load only with an FP8 KV cache (--kv-cache-dtype fp8) keeps its weights
    at that format, as the recommender's own change does, before a less precise weight format is tried.
    `full_load`: "which has more throughput?" with no load said: each engine timed at the chat turns it runs at once
    (its max_num_seqs, no more than its KV cache holds: `saturating_concurrency`), as an offline throughput benchmark
    runs it."""
    own = default_inference_format(model)
    formats = [stated_weights] if stated_weights else [
        f for f in engine_formats(engine, gpu) if bits_per_weight(f) <= bits_per_weight(own)]
    dpa = attention_dp and engine in SERVER_ENGINES
    kvs = [workload.kv] + (["fp8"] if not kv_stated and engine in SERVER_ENGINES and workload.kv != "fp8" else [])
    for fmt, kv in ((f, k) for f in formats for k in kvs):
        w = replace(workload, weights=fmt, kv=kv, engine=engine, gpus=count, tp=count, nodes=1, attention_dp=dpa)
        try:
            est = estimate_memory(model, w, gpu)
            if not sized(est, gpu):
                continue
            most = saturating_concurrency(model, gpu, count, speed_workload(w), load_calibration(),
                                          engine=engine) if full_load else 0
            per_user, total, ttft = _speed(model, gpu, count, replace(w, concurrency=most) if most else w)
        except (AdvisorError, ValueError):
            continue
        return EngineRun(engine, gpu.id, gpu.name, count, fmt, est.per_gpu.total, est.usable_bytes(gpu),
                         per_user, total, ttft, kv=kv if kv != workload.kv else "", full_load=most)
    return EngineRun(engine, gpu.id, gpu.name, count, "")


def _speed(model: ModelSpec, gpu: GpuSpec, count: int, w: Workload) -> tuple[float, float, float]:
    """Decode tokens/s per user and in total, and the median first-token seconds: one user from the roofline
    (estimate_throughput), several from the
    continuous-batching simulation at that concurrency, the computation the answer's load sentence uses
    (advisor.analysis.limits.serving_load), so the two never disagree for the same engine and format."""
    chat = speed_workload(w)
    if (w.concurrency or 1) > 1:
        rep = simulate_serving(model, gpu, count, chat, load_calibration(), concurrency=w.concurrency)
        return rep.result.per_user_tokens_per_s, rep.output_tokens_per_s, rep.result.ttft_p50_s
    tput = estimate_throughput(model, gpu, count, chat, load_calibration(), with_capacity=False)
    return tput.decode_tokens_per_s, tput.decode_tokens_per_s_total, tput.ttft.s


def engine_runs(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step],
                ev: Analysis) -> list[EngineRun]:
    """Each engine of `request.engines` on the one configuration named (else the answer's leading one)."""
    o = asked_option(ev)
    if o is None:
        return []
    gpu = catalog.gpu(o.gpu)
    stated = request.workload.weights if "weights" in request.stated else None
    kv_stated = "kv" in request.stated
    full = request.asks_full_load and "concurrency" not in request.stated  # "which has more throughput?"
    return timed(steps, "compare_engines", {"gpu": gpu.id, "count": o.count, "engines": list(request.engines)},
                 lambda: [engine_run(model, request.workload, gpu, o.count, e, stated, o.layout.attention_dp, kv_stated,
                                     full_load=full)
                          for e in request.engines],
                 lambda r: "; ".join(f"{x.engine}: {x.weights or 'does not fit'} {x.tokens_per_s:.0f} tok/s" for x in r))
