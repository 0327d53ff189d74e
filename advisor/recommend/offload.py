"""The llama.cpp partial-offload option of a recommendation: offered when the user names one card and the model
does not fit on it, even at 4 bits (after the quantised options), labelled "offload" with its speed.

The option keeps `-ngl` layers on the card and the rest in system RAM (advisor/estimator/offload.py); the rule
sizing-layer-offload-slow warns that the layers in RAM bound decode speed by the host's memory bandwidth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.estimator.calibration import load_calibration
from advisor.estimator.formats import FORMATS, NATIVE_GGUF
from advisor.estimator.memory import default_inference_format, estimate_memory
from advisor.estimator.results import Breakdown
from advisor.recommend.options import target_misses
from advisor.recommend.parts import LayerOffload, OptionLayout, ServingFigures
from advisor.recommend.prices import option_price, option_tco
from advisor.recommend.results import Option
from knowledge.errors import InputError
from knowledge.messages import t
from knowledge.quantities import GIB, Seconds
from knowledge.structs import replace

if TYPE_CHECKING:  # the recommender is imported where an offload option is made: the dialog imports this module
    from advisor.estimator.offload import OffloadPlan
    from advisor.estimator.results import MemoryEstimate
    from advisor.recommend.results import Recommendation
    from advisor.recommend.search import Search
    from advisor.workload import Workload
    from knowledge.schemas import GpuSpec

OFFLOAD_FORMAT = "q4_k_m"  # the GGUF format people run on one card (llama.cpp); a GGUF format the user gave wins


def named_single_card(search: Search) -> GpuSpec | None:
    """The one card the user named: `existing` of count 1, or a single candidate with one GPU per node and node."""
    c, catalog = search.constraints, search.catalog
    if c.existing is not None:
        return catalog.gpu(c.existing.gpu) if c.existing.count == 1 else None
    ids = {catalog.gpu(n).id for n in c.candidates}
    if len(ids) == 1 and c.max_gpus_per_node == 1 and c.max_nodes == 1:
        return catalog.gpu(next(iter(ids)))
    return None


def _format(weights: str | None, native: str) -> str | None:
    if weights is None:
        return native if native in NATIVE_GGUF else OFFLOAD_FORMAT
    return weights if FORMATS[weights].family == "gguf" or (weights == native and native in NATIVE_GGUF) else None


def offload_option(search: Search, gpu: GpuSpec, options: list[Option]) -> Option | None:
    """The offload Option for one `gpu`, or None: training, several sequences, a non-GGUF format asked for, a
    one-card option that already fits, a model that fits whole at 4 bits, a rule that blocks it, or a machine whose
    GPU shares one unified memory with the system (a Mac, DGX Spark): there is no separate host RAM to spill layers
    into, only the SSD."""
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.offload
    from advisor.estimator.offload import default_host, offload_for

    w = search.workload
    fmt = _format(w.weights, default_inference_format(search.model))
    if w.is_training or w.concurrency > 1 or w.batch > 1 or fmt is None or gpu.interface == "soc":
        return None
    if any(o.gpu == gpu.id and o.count == 1 and o.fits for o in options):
        return None
    ow = replace(w, weights=fmt, engine="llama.cpp", gpus=1, nodes=1, tp=1, pp=1)
    calib = load_calibration()
    try:
        plan = offload_for(search.model, gpu, 1, ow, calib, default_host(gpu, calib))
    except InputError:
        return None
    if plan.full_offload or plan.gpu_layers == 0:
        return None
    return _offload_option(search, gpu, plan, ow, estimate_memory(search.model, ow, gpu))


def _offload_option(search: Search, gpu: GpuSpec, plan: OffloadPlan, ow: Workload, full: MemoryEstimate
                    ) -> Option | None:
    """The option of an offload plan: the GPU and host sides of its memory, its speed, price and findings (None
    when a rule blocks it)."""
    # late binding: tests patch advisor.recommend.rules.evaluate_rules
    from advisor.recommend.rules import blocked, config_facts, evaluate_rules

    w, fmt = search.workload, str(ow.weights)
    gpu_side = Breakdown(weights=plan.gpu_weights_bytes, kv_cache=plan.gpu_kv_bytes,
                         activations=plan.compute_buffer_bytes, overhead=plan.cuda_context_bytes)
    cpu_side = Breakdown(weights=plan.cpu_weights_bytes, kv_cache=plan.cpu_kv_bytes)
    est = replace(full, per_gpu=gpu_side, cpu=cpu_side)
    tps = plan.decode_tokens_per_s
    opt = Option(
        gpu=gpu.id, gpu_name=gpu.name, count=1, nodes=1,
        layout=OptionLayout(tp=1, pp=1, dp=1, replicas=1, engine="llama.cpp", weights=fmt, kv=w.kv,
                            layer_offload=LayerOffload(ngl=plan.ngl, cpu_layers=plan.cpu_layers,
                                                       system_ram_bytes=plan.system_ram_bytes)),
        per_gpu=gpu_side, cpu=cpu_side, capacity=gpu.memory,
        usable=gpu.memory, headroom_ratio=(gpu.memory - gpu_side.total).ratio(gpu.memory),
        fits=True, price=option_price(search, gpu), labels=["offload"],
        throughput=ServingFigures(decode_tokens_per_s=tps, decode_tokens_per_s_total=tps, tpot=Seconds(1 / tps),
                                  prefill_tokens_per_s=plan.prefill_tokens_per_s, ttft=Seconds(plan.ttft_s),
                                  bound="host-memory", concurrency=1, max_concurrency=1, offload=plan.to_contract()),
        formulas=list(plan.formulas), assumptions=list(plan.assumptions),
        launch_hint=f"llama-server -m {search.model.name}-{fmt.upper()}.gguf -ngl {plan.ngl} -c {w.context}",
    )
    if search.constraints.existing is not None:
        opt.labels.append("existing")
    opt.set_memory(est, ow)
    opt.tco = option_tco(search, gpu, opt)
    opt.misses = target_misses(search, gpu, opt)
    opt.meets_targets = not opt.misses
    facts = config_facts(search, gpu, opt, est, ow)
    facts.pop("offload_cpu_bytes", None)  # the host's RAM is not known here: no server RAM assumed for a desktop
    facts.pop("cpu_ram_bytes", None)
    facts.pop("offload_ram_ratio", None)
    facts.update(offload_gpu_layers=plan.gpu_layers, offload_cpu_layers=plan.cpu_layers, offload_tokens_per_s=tps)
    opt.findings = evaluate_rules([facts])
    return None if blocked(opt) else opt


def offer(search: Search, rec: Recommendation) -> None:
    """Add the offload option to `rec` (after the quantised options; among the closest when it misses a target)
    and say so in the assumptions, in English and Chinese."""
    gpu = named_single_card(search)
    if gpu is None:
        return
    opt = offload_option(search, gpu, list(rec.options))
    if opt is None:
        return
    if opt.meets_targets:
        at = max((i + 1 for i, o in enumerate(rec.options) if "quantised" in o.labels), default=len(rec.options))
        rec.options.insert(at, opt)
    else:
        rec.closest.insert(0, opt)
    fig, lo = opt.throughput, opt.layout.layer_offload
    assert fig is not None and fig.offload is not None and lo is not None  # an offload option
    fields = {"gpu": gpu.name, "model": search.model.name, "ngl": lo.ngl, "cpu_layers": lo.cpu_layers,
              "ram": lo.system_ram_bytes / GIB, "tps": fig.decode_tokens_per_s}
    rec.assumptions.append(t("recommend.offload", "en", host=fig.offload["host"], **fields))
    rec.assumptions_zh.append(t("recommend.offload", "zh", host=_host_zh(fig.offload["host"]), **fields))


# the host memory classes of knowledge/data/calibration.yaml and advisor.estimator.offload's words, replaced in this
# order (the catalog's "recommend.host.*" entries)
_HOST_WORDS = ("hedt", "workstation", "server", "desktop", "assumed", "stated")


def _host_zh(label: str) -> str:
    """A host's memory class ("desktop, 2 × DDR5-5600 = 89.6 GB/s (assumed)") in Chinese."""
    for word in _HOST_WORDS:
        label = label.replace(t(f"recommend.host.{word}", "en"), t(f"recommend.host.{word}", "zh"), 1)
    return label
