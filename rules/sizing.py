"""Sanity rules over the estimator's results for one configuration.

The estimator and cost model compute the numbers; the facts carry them with the derived ratios
(`rules.facts`): headroom, KV share, tensor-parallel layout, host RAM for offload, training time against
the deadline, price against the budget, power against the limit, throughput and latency against targets,
context against the model's maximum. Hard constraints the user stated (memory, budget, power, deadline,
targets) block; thresholds near them warn.

Thresholds: 10% headroom mirrors vLLM's default `gpu_memory_utilization` of 0.9 (a tenth of memory left
for the CUDA context, activations and fragmentation); a KV cache above half of the per-GPU memory is where
KV precision, context and concurrency matter more than the weights; tensor parallelism over PCIe beyond 2
GPUs; host RAM above 80% of the node's for offload; training above 80% of the deadline.
"""

from __future__ import annotations

from rules.common import CONFIG, GUIDE_000, INFERENCE
from rules.conditions import f
from rules.meta import RuleMeta

_PRINCIPLES = "模型规模与GPU配置的精准匹配策略: 硬件配置的优化原则"

RULES: tuple[RuleMeta, ...] = (
    RuleMeta(
        id="sizing-does-not-fit",
        topic="sizing",
        applies_to=CONFIG,
        when=f.fits == False,  # noqa: E712
        severity="block",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 显存容量优先",
        refs=("rules-estimator",),
        summary="The estimated memory per GPU exceeds the card's memory.",
    ),
    RuleMeta(
        id="sizing-low-headroom",
        topic="sizing",
        applies_to=CONFIG,
        when=(f.fits == True) & (f.headroom_ratio < 0.10),  # noqa: E712
        severity="warn",
        source="rules-vllm-engine-args",
        section="--gpu-memory-utilization (default 0.9)",
        refs=("rules-estimator",),
        summary="Less than 10% of GPU memory left after the estimate.",
    ),
    RuleMeta(
        id="sizing-kv-dominates",
        topic="sizing",
        applies_to=CONFIG,
        when=INFERENCE & (f.kv_share > 0.5),
        severity="info",
        source="rules-vllm-engine-args",
        section="--kv-cache-dtype, --max-model-len, --max-num-seqs",
        refs=("rules-estimator",),
        summary="The KV cache is more than half of the per-GPU memory.",
        alternative="kv=fp8",
    ),
    RuleMeta(
        id="sizing-pcie-tensor-parallel",
        topic="sizing",
        applies_to=CONFIG,
        when=(f.tp > 2) & (f.nvlink == False),  # noqa: E712
        severity="warn",
        source=GUIDE_000,
        section=_PRINCIPLES + ": 通信带宽优化 (NVLink比PCIe更适合GPU间通信)",
        refs=("stas-net",),
        summary="Tensor parallelism across more than 2 GPUs over PCIe only.",
        alternative="tp=2",
    ),
    RuleMeta(
        id="sizing-dp-attention",
        topic="sizing",
        applies_to=CONFIG,
        when=f.attention_dp == True,  # noqa: E712
        severity="info",
        source="sglang-dp-attention",
        section="Data Parallelism Attention (DPA): the problem with tensor parallelism for MLA models",
        refs=("vllm-data-parallel", "vllm-recipes-762-dp8", "rules-estimator"),
        summary="MLA model served with DP attention: each GPU caches its own requests' KV and holds the whole attention.",
    ),
    RuleMeta(
        id="sizing-tp-spans-nodes",
        topic="sizing",
        applies_to=CONFIG,
        when=f.tp_spans_nodes == True,  # noqa: E712
        severity="warn",
        source=GUIDE_000,
        section="千亿级模型(100B+): 张量并行、流水线并行和数据并行相结合的3D并行策略",
        refs=("stas-net",),
        summary="Tensor parallelism larger than one node: per-layer all-reduces cross the network.",
        alternative="tp=gpus_per_node",
    ),
    RuleMeta(
        id="sizing-tp-heads",
        topic="sizing",
        applies_to=CONFIG,
        when=f.tp_divides_heads == False,  # noqa: E712
        severity="block",
        source="rules-vllm-tp-heads",
        section="Total number of attention heads must be divisible by tensor parallel size",
        summary="The tensor-parallel size does not divide the model's attention heads.",
    ),
    RuleMeta(
        id="sizing-offload-ram-short",
        topic="sizing",
        applies_to=CONFIG,
        when=f.offload_ram_ratio > 1.0,
        severity="block",
        source="rules-deepspeed-memory",
        section="Memory requirements: ZeRO-3 / ZeRO-Offload CPU memory estimates",
        refs=("rules-estimator",),
        summary="The CPU memory needed for offload exceeds the node's RAM.",
    ),
    RuleMeta(
        id="sizing-offload-ram-tight",
        topic="sizing",
        applies_to=CONFIG,
        when=f.offload_ram_ratio.between(0.8, 1.0),
        severity="warn",
        source="rules-deepspeed-memory",
        section="Memory requirements: ZeRO-3 / ZeRO-Offload CPU memory estimates",
        refs=("rules-estimator",),
        summary="Offload uses more than 80% of the node's RAM.",
    ),
    RuleMeta(
        id="sizing-layer-offload-slow",
        topic="sizing",
        applies_to=CONFIG,
        when=f.offload_cpu_layers > 0,
        severity="warn",
        source="inventivehq-vram-cliff",
        section="-ngl sweep, Qwen2.5-Coder-14B Q4_K_M on one RTX 5060 Ti: 43.18 tok/s at -ngl 99, 12.5 at -ngl 40, "
                "2.89 at -ngl 0",
        refs=("llmfit-rtx2080-offload", "rules-estimator"),
        summary="llama.cpp layer offload: the layers in system RAM bound decode speed by host memory bandwidth.",
    ),
    RuleMeta(
        id="sizing-deadline-missed",
        topic="sizing",
        applies_to=CONFIG,
        when=f.deadline_ratio > 1.0,
        severity="block",
        source="rules-transformer-math",
        section="compute requirements: C ≈ 6·N·D",
        refs=("rules-estimator",),
        summary="Estimated training time exceeds the stated deadline.",
    ),
    RuleMeta(
        id="sizing-deadline-tight",
        topic="sizing",
        applies_to=CONFIG,
        when=f.deadline_ratio.between(0.8, 1.0),
        severity="warn",
        source="rules-transformer-math",
        section="compute requirements: C ≈ 6·N·D",
        refs=("rules-estimator",),
        summary="Estimated training time uses more than 80% of the deadline.",
    ),
    RuleMeta(
        id="sizing-over-budget",
        topic="sizing",
        applies_to=CONFIG,
        when=f.budget_ratio > 1.0,
        severity="block",
        source=GUIDE_000,
        section="经济维度：总体拥有成本(TCO)的全面计算: 初始投资",
        summary="The configuration's price exceeds the budget.",
    ),
    RuleMeta(
        id="sizing-over-power",
        topic="sizing",
        applies_to=CONFIG,
        when=f.power_ratio > 1.0,
        severity="block",
        source=GUIDE_000,
        section="经济维度：总体拥有成本(TCO)的全面计算: 能源消耗",
        summary="The GPUs' rated power exceeds the power limit.",
    ),
    RuleMeta(
        id="sizing-throughput-short",
        topic="sizing",
        applies_to=CONFIG,
        when=f.throughput_ratio < 1.0,
        severity="block",
        source="rules-estimator",
        section="throughput: decode roofline and batching",
        summary="Estimated total throughput is below the target.",
    ),
    RuleMeta(
        id="sizing-latency-short",
        topic="sizing",
        applies_to=CONFIG,
        when=f.latency_ratio > 1.0,
        severity="block",
        source="rules-estimator",
        section="throughput: decode roofline and batching",
        summary="Estimated time per output token is above the latency target.",
    ),
    RuleMeta(
        id="sizing-context-over-model",
        topic="sizing",
        applies_to=CONFIG,
        # pre-training sets the model's context itself
        when=(f.context_ratio > 1.0) & ((f.task != "pretrain") | f.task.missing()),
        severity="warn",
        source="rules-vllm-engine-args",
        section="--max-model-len (defaults to the model's configured maximum)",
        summary="The requested context exceeds the model's maximum context.",
    ),
    RuleMeta(
        id="sizing-guide-config-short",
        topic="sizing",
        applies_to=CONFIG,
        when=f.guide_config.exists() & (f.fits == False),  # noqa: E712
        severity="warn",
        source=GUIDE_000,
        section="模型规模与GPU配置的精准匹配策略 (size table)",
        cite_fact=("guide_source", "guide_section"),
        refs=("rules-estimator",),
        summary="A configuration the guide recommends does not fit by the estimate.",
    ),
    RuleMeta(
        id="sizing-guide-config-tight",
        topic="sizing",
        applies_to=CONFIG,
        when=f.guide_config.exists() & (f.fits == True) & (f.headroom_ratio < 0.10),  # noqa: E712
        severity="info",
        source=GUIDE_000,
        section="模型规模与GPU配置的精准匹配策略 (size table)",
        cite_fact=("guide_source", "guide_section"),
        refs=("rules-estimator",),
        summary="A configuration the guide recommends fits only with less than 10% memory to spare.",
    ),
)
