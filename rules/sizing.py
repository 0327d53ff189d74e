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
        en="Does not fit: the estimate needs {per_gpu_gib:.1f} GiB per GPU and the {gpu} has {memory_gib:.1f} GiB. "
           "Lower the precision, shorten the context or batch, shard across more GPUs, or pick a card with more "
           "memory.",
        zh="放不下：估算每卡需要 {per_gpu_gib:.1f} GiB 显存，而 {gpu} 只有 {memory_gib:.1f} GiB。请降低精度、缩短上下文"
           "或批量、切分到更多 GPU，或选用显存更大的卡。",
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
        en="Tight: the estimate uses {per_gpu_gib:.1f} of {memory_gib:.1f} GiB per GPU, leaving {headroom_ratio:.0%}. "
           "Serving engines keep about a tenth free by default (vLLM's gpu_memory_utilization is 0.9), and "
           "fragmentation or a longer request can then run out of memory.",
        zh="余量不足：估算每卡使用 {memory_gib:.1f} GiB 中的 {per_gpu_gib:.1f} GiB，只剩 {headroom_ratio:.0%}。推理引擎"
           "默认预留约十分之一显存（vLLM 的 `gpu_memory_utilization` 为 0.9），碎片或更长的请求可能导致显存溢出。",
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
        en="The KV cache is {kv_share:.0%} of the memory per GPU ({kv_cache_gib:.1f} GiB): context and concurrency "
           "drive the size more than the weights. An FP8 KV cache halves it; a shorter maximum context or fewer "
           "concurrent sequences shrink it in proportion.",
        zh="KV 缓存占每卡显存的 {kv_share:.0%}（{kv_cache_gib:.1f} GiB）：决定显存的主要是上下文长度和并发，而非权重。"
           "FP8 KV 缓存可减半；缩短最大上下文或减少并发序列会按比例减少。",
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
        en="Tensor parallelism of {tp} over PCIe only (the {gpu} has no NVLink): every layer all-reduces activations "
           "across {tp} cards through PCIe and the host, so speed-up falls well short of {tp}×. Prefer tp=2 with "
           "pipeline or data parallelism, or NVLink cards.",
        zh="仅通过 PCIe 做 {tp} 路张量并行（{gpu} 不支持 NVLink）：每一层都要经 PCIe 和主机在 {tp} 张卡间做 all-reduce，"
           "加速远低于 {tp} 倍。建议 tp=2 配合流水线或数据并行，或选用支持 NVLink 的卡。",
        alternative="tp=2",
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
        en="Tensor parallelism of {tp} is larger than a node ({gpus_per_node} GPUs), so per-layer all-reduces cross "
           "the network. Keep tensor parallelism within a node and use pipeline parallelism between nodes.",
        zh="{tp} 路张量并行超出单机（每台 {gpus_per_node} 张卡），每层的 all-reduce 都要跨网络。请将张量并行限制在单机"
           "内，机间使用流水线并行。",
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
        en="Tensor parallelism of {tp} does not divide the model's attention heads evenly; vLLM refuses to start "
           "('Total number of attention heads must be divisible by tensor parallel size'). Use a divisor of the "
           "head count (e.g. 2, 4 or 8) and pipeline parallelism for the rest.",
        zh="{tp} 路张量并行不能整除模型的注意力头数；vLLM 会拒绝启动（“Total number of attention heads must be divisible "
           "by tensor parallel size”）。请使用头数的约数（如 2、4、8），其余用流水线并行。",
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
        en="CPU RAM too small: offloading needs {offload_cpu_gib:.1f} GiB of host memory per node, but the node has "
           "{cpu_ram_gib:.1f} GiB. Add RAM, offload less (optimizer only), or use more GPUs so that less is offloaded.",
        zh="内存不足：卸载（offload）每台机器需要 {offload_cpu_gib:.1f} GiB 主机内存，而机器只有 {cpu_ram_gib:.1f} GiB。"
           "请增加内存、减少卸载内容（仅卸载优化器），或增加 GPU 以减少卸载量。",
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
        en="Offloading needs {offload_cpu_gib:.1f} of the node's {cpu_ram_gib:.1f} GiB of RAM ({offload_ram_ratio:.0%}); "
           "the data loader, pinned buffers and the OS also need memory. Plan more RAM.",
        zh="卸载需要占用机器 {cpu_ram_gib:.1f} GiB 内存中的 {offload_cpu_gib:.1f} GiB（{offload_ram_ratio:.0%}）；"
           "数据加载、锁页缓冲和操作系统也需要内存，请增加内存。",
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
        en="{offload_cpu_layers} layers run from system RAM (llama.cpp -ngl {offload_gpu_layers}): every token reads "
           "them at host memory speed, so decode drops to about {offload_tokens_per_s:.1f} tokens/s. Measured on one "
           "card, a 14B Q4_K_M model falls from 43 tokens/s with every layer on the GPU to 12.5 with 8 of its 48 "
           "layers in RAM. Good for trying a model or batch jobs, not for interactive serving: a smaller format "
           "that fits, or a second card, keeps every layer on the GPU.",
        zh="有 {offload_cpu_layers} 层放在系统内存（llama.cpp -ngl {offload_gpu_layers}）：每生成一个 token 都要按内存带宽"
           "读取这些层，解码速度降到约 {offload_tokens_per_s:.1f} tokens/s。实测单卡上 14B Q4_K_M 模型全部层在 GPU "
           "时 43 tokens/s，48 层中有 8 层在内存时只有 12.5。适合试用模型或离线批处理，不适合交互式服务：换更小的能放下"
           "的量化格式，或加一张卡，让所有层都在 GPU 上。",
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
        en="Too slow: training takes an estimated {train_days:.1f} days on {count} × {gpu}, beyond the deadline of "
           "{deadline_days:.1f} days. More or faster GPUs, fewer tokens, or a parameter-efficient method would "
           "shorten it.",
        zh="太慢：在 {count} × {gpu} 上训练估计需要 {train_days:.1f} 天，超过 {deadline_days:.1f} 天的期限。"
           "可增加或换用更快的 GPU、减少训练 token，或改用参数高效微调。",
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
        en="Tight schedule: training takes an estimated {train_days:.1f} of the {deadline_days:.1f} days available "
           "({deadline_ratio:.0%}); a restart, a slower-than-assumed MFU or data issues would miss the deadline.",
        zh="工期紧张：训练估计需要 {train_days:.1f} 天，期限为 {deadline_days:.1f} 天（占 {deadline_ratio:.0%}）；"
           "一次重启、低于假设的 MFU 或数据问题都可能导致延期。",
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
        en="Over budget: {price_amount:,.0f} {currency} against a budget of {budget_amount:,.0f} {currency} "
           "({budget_ratio:.0%}).",
        zh="超出预算：价格 {price_amount:,.0f} {currency}，预算 {budget_amount:,.0f} {currency}（{budget_ratio:.0%}）。",
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
        en="Over the power limit: {count} × {tdp_w:.0f} W = {power_w:,.0f} W of GPU power against a limit of "
           "{power_limit_w:,.0f} W.",
        zh="超出功率上限：{count} × {tdp_w:.0f} W = {power_w:,.0f} W 显卡功耗，上限为 {power_limit_w:,.0f} W。",
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
        en="Below the throughput target: about {tokens_per_s:,.0f} tokens/s in total against the {min_tokens_per_s:,.0f} "
           "tokens/s required ({throughput_ratio:.0%}).",
        zh="未达吞吐目标：总吞吐约 {tokens_per_s:,.0f} tokens/s，目标为 {min_tokens_per_s:,.0f} tokens/s"
           "（{throughput_ratio:.0%}）。",
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
        en="Misses the latency target: about {ms_per_token:.1f} ms per output token against at most "
           "{max_ms_per_token:.1f} ms.",
        zh="未达延迟目标：每个输出 token 约 {ms_per_token:.1f} ms，目标不超过 {max_ms_per_token:.1f} ms。",
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
        en="The context of {context:,} tokens exceeds the model's maximum of {max_context:,}; engines refuse a longer "
           "--max-model-len unless overridden, and quality beyond the trained length is not assured.",
        zh="上下文 {context:,} tokens 超过模型最大上下文 {max_context:,}；推理引擎默认不接受更长的 --max-model-len，"
           "且超出训练长度后效果无法保证。",
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
        en="The guide's configuration “{guide_config}” does not fit this workload: the estimate needs "
           "{per_gpu_gib:.1f} GiB per GPU{kv_note} against the {gpu}'s {memory_gib:.1f} GiB.",
        zh="指南推荐的配置“{guide_config}”放不下该任务：估算每卡需要 {per_gpu_gib:.1f} GiB{kv_note_zh}，而 {gpu} 只有 "
           "{memory_gib:.1f} GiB。",
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
        en="The guide's configuration “{guide_config}” fits only just: {per_gpu_gib:.1f} GiB per GPU{kv_note} of "
           "{memory_gib:.1f} GiB, {headroom_ratio:.0%} free.",
        zh="指南推荐的配置“{guide_config}”勉强放得下：每卡使用 {per_gpu_gib:.1f} GiB{kv_note_zh}，共 {memory_gib:.1f} "
           "GiB，余量 {headroom_ratio:.0%}。",
    ),
)
