"""What a card can do: BF16, FP8, FlashAttention-2, NVLink, software maturity, weak training cards.

* BF16 tensor cores arrived with Ampere (A100 whitepaper); Turing and Volta have FP16 only.
* FP8 compute needs compute capability 8.9+ (Ada, Hopper, Blackwell; TransformerEngine support matrix);
  vLLM runs FP8 checkpoints on Turing/Ampere as weight-only W8A16 through its FP8 Marlin kernels.
* FlashAttention-2 supports Ampere, Ada and Hopper; Turing is left to FlashAttention 1.x.
* NVLink: RTX 3090/3090 Ti have a 2-way bridge (112.5 GB/s); GeForce 40/50 series have none.
* Software stacks (knowledge/data/sources/gpus.yaml, stacks-*): vLLM, SGLang and TensorRT-LLM need CUDA (vLLM and
  SGLang also ROCm, Gaudi and Ascend through plugins); Apple silicon runs llama.cpp (Metal) and MLX, Ascend runs
  CANN (MindIE, vllm-ascend, llama.cpp's CANN backend), never CUDA.
* FP4 matrix units exist only on NVIDIA Blackwell (NVFP4/MXFP4) and AMD CDNA 4 (MXFP4); elsewhere FP4 weights are
  dequantised (weight-only: memory saved, no FP4 compute speed-up).
* A unified-memory machine (Mac Studio, DGX Spark, Ryzen AI Max) is one unit: several machines are joined over
  Thunderbolt or Ethernet, which carries a pipeline split, never tensor parallelism at NVLink speed.
* Guide-003 rates A10 and T4 weak for training and inference; guide-003 warns of software gaps on old GPUs,
  guide-000 of ROCm and domestic stacks still catching up.
"""

from __future__ import annotations

from rules.common import CONFIG, GUIDE_000, GUIDE_003, INFERENCE, PRE_AMPERE, TRAINING
from rules.conditions import f
from rules.meta import RuleMeta
from rules.stacks import STACK_ENGINES

_PERF_CONCLUSIONS = "part 3 (三), 不同显卡性能对比-重要结论"
_NO_FP8_COMPUTE = ("volta", "turing", "ampere", "cdna2", "davinci", "apple-m3", "apple-m4", "rdna3.5")
_CUDA_ONLY_ENGINES = tuple(sorted(STACK_ENGINES["cuda"] - STACK_ENGINES["cann"]))  # not on Ascend (rules.stacks)
_NOT_ON_METAL = tuple(sorted(STACK_ENGINES["cuda"] - STACK_ENGINES["metal"]))
_FP4_FORMATS = ("nvfp4", "mxfp4", "fp4")

RULES: tuple[RuleMeta, ...] = (
    RuleMeta(
        id="cap-bf16-needs-ampere",
        topic="capability",
        applies_to=CONFIG,
        when=(f.precision == "bf16") & (PRE_AMPERE | (f.bf16 == False)),  # noqa: E712
        severity="warn",
        source="a100-wp",
        section="third-generation Tensor Cores: BF16",
        refs=("turing-wp",),
        summary="BF16 needs Ampere or newer; Turing and Volta cards run FP16 instead.",
        en="BF16 needs an Ampere or newer GPU; the {gpu} ({arch}) has FP16 tensor cores only. Run FP16 (mixed "
           "precision with loss scaling for training); models trained in BF16 can overflow in FP16, so validate "
           "outputs.",
        zh="BF16 需要 Ampere 或更新架构；{gpu}（{arch}）只有 FP16 张量核心。请改用 FP16（训练时用带损失缩放的混合"
           "精度）；以 BF16 训练的模型在 FP16 下可能溢出，需验证输出。",
        alternative="precision=fp16",
    ),
    RuleMeta(
        id="cap-fp8-training",
        topic="capability",
        applies_to=CONFIG,
        when=(f.precision == "fp8") & TRAINING & f.gpu_arch.one_of(*_NO_FP8_COMPUTE),
        severity="block",
        source="te-matrix",
        section="FP8 requires compute capability 8.9 or newer",
        summary="FP8 training needs Ada, Hopper or Blackwell FP8 tensor cores.",
        en="FP8 training needs FP8 tensor cores (Ada, Hopper or Blackwell, compute capability 8.9+); the {gpu} "
           "({arch}) has none. Train in BF16/FP16 mixed precision on it, or choose an FP8-capable card.",
        zh="FP8 训练需要 FP8 张量核心（Ada、Hopper 或 Blackwell，计算能力 8.9 及以上）；{gpu}（{arch}）没有。"
           "请在该卡上使用 BF16/FP16 混合精度训练，或改用支持 FP8 的显卡。",
        alternative="precision=bf16",
    ),
    RuleMeta(
        id="cap-fp8-weight-only",
        topic="capability",
        applies_to=CONFIG,
        when=(f.precision == "fp8") & INFERENCE & f.gpu_arch.one_of("turing", "ampere"),
        severity="warn",
        source="rules-vllm-fp8",
        section="FP8 W8A8: note on compute capability",
        summary="FP8 inference on Turing/Ampere runs weight-only (W8A16): memory saved, no FP8 compute speed-up.",
        en="The {gpu} ({arch}) has no FP8 tensor cores: vLLM runs FP8 checkpoints on it as weight-only W8A16 "
           "(FP8 Marlin), which halves weight memory but computes in 16-bit, so prefill gains nothing. FP8 "
           "mixture-of-experts layers may not be supported on this path.",
        zh="{gpu}（{arch}）没有 FP8 张量核心：vLLM 会以仅权重量化 W8A16（FP8 Marlin）方式运行 FP8 模型，"
           "权重显存减半，但计算仍为 16 位，prefill 没有加速；MoE 的 FP8 层在此路径下可能不受支持。",
    ),
    RuleMeta(
        id="cap-fp8-unsupported",
        topic="capability",
        applies_to=CONFIG,
        when=(f.precision == "fp8") & INFERENCE & (f.gpu_arch == "volta"),
        severity="block",
        source="rules-vllm-fp8",
        section="FP8 W8A8: note on compute capability",
        summary="FP8 checkpoints do not run on Volta (vLLM needs compute capability 7.5+ even for weight-only FP8).",
        en="The {gpu} (Volta, compute capability 7.0) cannot run FP8 checkpoints: vLLM's weight-only FP8 path needs "
           "compute capability 7.5 or newer. Use FP16 or an INT8/INT4 format instead.",
        zh="{gpu}（Volta，计算能力 7.0）无法运行 FP8 模型：vLLM 的仅权重 FP8 路径需要计算能力 7.5 及以上。"
           "请改用 FP16 或 INT8/INT4 格式。",
        alternative="precision=fp16",
    ),
    RuleMeta(
        id="cap-bf16-serving-pre-ampere",
        topic="capability",
        applies_to=CONFIG,
        when=(f.precision == "bf16") & INFERENCE & PRE_AMPERE,
        severity="block",
        source="a100-wp",
        section="third-generation Tensor Cores: BF16",
        refs=("turing-wp", "rules-vllm-quant-hw"),
        summary="Serving a BF16 checkpoint as BF16 is not offered on Turing/Volta: no BF16 kernels.",
        en="The {gpu} ({arch}) has no BF16 tensor cores, so a BF16 configuration is not offered on it: serve it "
           "quantised (GPTQ/AWQ/GGUF, which these cards run) or cast to FP16 (`--dtype half`, validate outputs: "
           "BF16-trained models can overflow in FP16).",
        zh="{gpu}（{arch}）没有 BF16 张量核心，因此不提供 BF16 配置：请改用量化版本（GPTQ/AWQ/GGUF，这类卡可运行）"
           "或转为 FP16（`--dtype half`，需验证输出：以 BF16 训练的模型在 FP16 下可能溢出）。",
        alternative="precision=int4",
    ),
    RuleMeta(
        id="cap-awq-needs-turing",
        topic="capability",
        applies_to=CONFIG,
        when=(f.weight_format == "awq-int4") & (f.gpu_arch == "volta"),
        severity="block",
        source="rules-vllm-quant-hw",
        section="supported hardware table: AWQ",
        summary="AWQ kernels need compute capability 7.5+ (Turing or newer): not offered on Volta (V100).",
        en="The {gpu} (Volta, compute capability 7.0) has no AWQ kernels in vLLM (AWQ needs 7.5 or newer): use a "
           "GPTQ or GGUF checkpoint on it instead.",
        zh="{gpu}（Volta，计算能力 7.0）在 vLLM 中没有 AWQ 内核（AWQ 需要计算能力 7.5 及以上）：请改用 GPTQ 或 GGUF 量化版本。",
        alternative="precision=gptq-int4",
    ),
    RuleMeta(
        id="cap-fa2-training",
        topic="capability",
        applies_to=CONFIG,
        when=PRE_AMPERE & TRAINING & f.flash_attention.is_not_false(),
        severity="warn",
        source="rules-flash-attention",
        section="README: FlashAttention-2 supports Ampere, Ada, or Hopper GPUs; use FlashAttention 1.x for Turing",
        summary="FlashAttention-2 needs Ampere or newer; Turing/Volta training falls back to slower, hungrier attention.",
        en="FlashAttention-2 supports Ampere, Ada and Hopper GPUs; on the {gpu} ({arch}) training falls back to "
           "another attention kernel (FlashAttention 1.x on Turing, or PyTorch's memory-efficient SDPA), which is "
           "slower and needs more activation memory at long sequence lengths. Size activations without FlashAttention-2.",
        zh="FlashAttention-2 支持 Ampere、Ada 与 Hopper；在 {gpu}（{arch}）上训练会退回其他注意力实现"
           "（Turing 上的 FlashAttention 1.x 或 PyTorch 的内存高效 SDPA），长序列下更慢且激活显存更大。"
           "请按不使用 FlashAttention-2 估算激活显存。",
        alternative="flash_attention=false",
    ),
    RuleMeta(
        id="cap-fa2-inference",
        topic="capability",
        applies_to=CONFIG,
        when=PRE_AMPERE & INFERENCE & f.flash_attention.is_not_false(),
        severity="info",
        source="rules-flash-attention",
        section="README: FlashAttention-2 supports Ampere, Ada, or Hopper GPUs; use FlashAttention 1.x for Turing",
        summary="No FlashAttention-2 on Turing/Volta: serving engines use other attention kernels there.",
        en="The {gpu} ({arch}) does not support FlashAttention-2; serving engines use other attention kernels on "
           "it (e.g. xFormers or PyTorch SDPA), so long-context prefill is slower than on Ampere or newer cards.",
        zh="{gpu}（{arch}）不支持 FlashAttention-2，推理引擎会改用其他注意力实现（如 xFormers 或 PyTorch "
           "SDPA），长上下文 prefill 比 Ampere 及更新架构慢。",
    ),
    RuleMeta(
        id="cap-no-nvlink",
        topic="capability",
        applies_to=CONFIG,
        when=(f.wants_nvlink == True) & (f.nvlink == False),  # noqa: E712
        severity="block",
        source=GUIDE_003,
        section="part 1 (一), GPU计算性能核心参数详细介绍: NVLink&NVSwitch",
        refs=("ga102-nvlink-quote", "ada-wp"),
        summary="A configuration relying on NVLink with a card that has none (e.g. 'two RTX 4090 over NVLink').",
        en="This configuration relies on NVLink, but the {gpu} has none (GeForce 40 and 50 series have no NVLink "
           "connector), so 'two RTX 4090 over NVLink' as in guide-000 is not possible. The RTX 3090 and 3090 Ti have "
           "a 2-way bridge of 112.5 GB/s; otherwise plan for PCIe between the cards.",
        zh="该方案依赖 NVLink，但 {gpu} 不支持（GeForce 40 与 50 系列没有 NVLink 接口），指南（000）中的“双 RTX "
           "4090 NVLink”无法实现。RTX 3090 与 3090 Ti 支持 112.5 GB/s 的双卡桥接；否则卡间通信走 PCIe。",
        alternative="rtx-3090",
    ),
    RuleMeta(
        id="cap-3090-nvlink-bridge",
        topic="capability",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-3090", "rtx-3090ti")) & (f.count == 2),
        severity="info",
        source=GUIDE_003,
        section="part 1 (一), GPU计算性能核心参数详细介绍: 30系显卡取消了NVLink",
        refs=("ga102-nvlink-quote", "ga102-wp"),
        summary="Two RTX 3090 can share a 2-way NVLink bridge (guide-003's '30 series dropped NVLink' is wrong).",
        en="Two {gpu} cards can be joined with a 2-way NVLink bridge (112.5 GB/s in total), several times what "
           "they get over PCIe; guide-003's 'the 30 series dropped NVLink' is wrong.",
        zh="两张 {gpu} 可以用双卡 NVLink 桥接（总带宽 112.5 GB/s），是 PCIe 通信带宽的数倍；指南（003）“30 系显卡"
           "取消了 NVLink”的说法有误。",
    ),
    RuleMeta(
        id="cap-3090-nvlink-pairs",
        topic="capability",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-3090", "rtx-3090ti")) & (f.count > 2),
        severity="info",
        source=GUIDE_003,
        section="part 1 (一), GPU计算性能核心参数详细介绍: 30系显卡取消了NVLink",
        refs=("ga102-nvlink-quote", "ga102-wp"),
        summary="RTX 3090 NVLink bridges join pairs only: with more than two cards, pairs talk over PCIe.",
        en="The {gpu}'s NVLink bridge (112.5 GB/s in total; guide-003's 'the 30 series dropped NVLink' is wrong) joins "
           "pairs only: with {count} cards, traffic between pairs still goes over PCIe, so keep tensor parallelism "
           "within a bridged pair.",
        zh="{gpu} 的 NVLink 桥接（总带宽 112.5 GB/s；指南（003）“30 系显卡取消了 NVLink”的说法有误）只能两两相连："
           "{count} 张卡时，不同卡对之间仍走 PCIe，张量并行请限制在桥接的一对卡内。",
        alternative="tp=2",
    ),
    RuleMeta(
        id="cap-a10-t4-training",
        topic="capability",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("a10", "t4")) & TRAINING,
        severity="warn",
        source=GUIDE_003,
        section=_PERF_CONCLUSIONS + ": A10、T4等显卡在深度学习推理与训练方面表现较差",
        summary="Guide-003 rates the A10 and T4 weak for deep-learning training.",
        en="Guide-003 rates the A10 and T4 as weak for deep-learning training and inference (little compute and "
           "memory bandwidth for LLM work). For training prefer an RTX 3090/4090-class card or a data-centre "
           "training card.",
        zh="指南（003）认为 A10、T4 等显卡在深度学习推理与训练方面表现较差（用于大模型时算力和显存带宽不足）。"
           "训练请优先选择 RTX 3090/4090 级别或数据中心训练卡。",
    ),
    RuleMeta(
        id="cap-a10-t4-inference",
        topic="capability",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("a10", "t4")) & INFERENCE,
        severity="info",
        source=GUIDE_003,
        section=_PERF_CONCLUSIONS + ": A10、T4等显卡在深度学习推理与训练方面表现较差",
        refs=(GUIDE_000,),
        summary="A10/T4 for inference: weak per guide-003, energy-efficient for small always-on loads per guide-000.",
        en="Guide-003 rates the A10 and T4 weak for LLM inference, while guide-000 lists the T4 (with the L40S) as "
           "an energy-efficient choice for always-on inference: fine for small models at low load, slow for large "
           "models or many concurrent users.",
        zh="指南（003）认为 A10、T4 的大模型推理表现较差，而指南（000）把 T4（以及 L40S）列为长期运行推理的高能效"
           "选择：适合低负载的小模型，大模型或高并发时速度偏慢。",
    ),
    RuleMeta(
        id="cap-old-arch-software",
        topic="capability",
        applies_to=CONFIG,
        when=PRE_AMPERE,
        severity="info",
        source=GUIDE_003,
        section="part 3 (三), 显卡性价比对比-重要结论: 还需要综合考虑旧版GPU在软件上的一些不适配问题",
        summary="Older GPUs (Turing, Volta) have software gaps; check framework support before committing.",
        en="The {gpu} is a {arch} card: guide-003 warns that older GPUs have software compatibility gaps. "
           "Current stacks increasingly assume Ampere or newer (BF16, FlashAttention-2, FP8 kernels), so check "
           "support for compute capability 7.x in the exact framework versions you plan to use.",
        zh="{gpu} 属于 {arch} 架构：指南（003）提醒旧款 GPU 存在软件不适配问题。当前软件栈越来越多地默认 "
           "Ampere 及以上（BF16、FlashAttention-2、FP8 内核），请确认所用框架版本对计算能力 7.x 的支持。",
    ),
    RuleMeta(
        id="cap-non-cuda-stack",
        topic="capability",
        applies_to=CONFIG,
        when=f.gpu_arch.one_of("cdna2", "cdna3", "cdna4", "davinci", "gaudi3"),
        severity="info",
        source=GUIDE_000,
        section="GPU选型的综合决策框架: 技术维度 (软件生态: AMD ROCm和国产GPU的软件栈正在追赶)",
        summary="AMD ROCm and domestic (Ascend) stacks still trail CUDA in operator coverage and tuning.",
        en="The {gpu} runs outside CUDA: guide-000 notes that AMD ROCm and domestic GPU software stacks are catching "
           "up but still trail in operator coverage and performance tuning. Check that your framework, kernels "
           "and quantisation formats are supported on it.",
        zh="{gpu} 不使用 CUDA 生态：指南（000）指出 AMD ROCm 和国产 GPU 的软件栈正在追赶，但在算子覆盖率和性能优化上"
           "仍有差距。请确认所用框架、内核与量化格式在该卡上受支持。",
    ),
    RuleMeta(
        id="cap-metal-engines",
        topic="capability",
        applies_to=CONFIG,
        when=(f.software_stack == "metal") & f.engine.one_of(*_NOT_ON_METAL),
        severity="block",
        source="stacks-vllm-platforms",
        section="supported hardware (no Apple Metal GPU backend)",
        refs=("stacks-llamacpp-backends", "stacks-mlx", "stacks-trtllm"),
        summary="Apple silicon: vLLM, SGLang, TensorRT-LLM, DeepSpeed and Megatron do not run on the Metal GPU.",
        en="The {gpu} runs Apple's Metal stack: {engine} has no Metal GPU backend (vLLM runs only on the CPU of a Mac; "
           "TensorRT-LLM, DeepSpeed and Megatron need CUDA). Serve with llama.cpp (Metal) or MLX (mlx-lm), which "
           "also fine-tunes with LoRA.",
        zh="{gpu} 使用苹果 Metal 软件栈：{engine} 没有 Metal GPU 后端（vLLM 在 Mac 上只能用 CPU；TensorRT-LLM、"
           "DeepSpeed、Megatron 需要 CUDA）。请用 llama.cpp（Metal）或 MLX（mlx-lm，也支持 LoRA 微调）。",
        alternative="engine=llama.cpp",
    ),
    RuleMeta(
        id="cap-metal-stack",
        topic="capability",
        applies_to=CONFIG,
        when=(f.software_stack == "metal") & (f.engine.missing() | f.engine.one_of("llama.cpp", "transformers")),
        severity="info",
        source="stacks-llamacpp-backends",
        section="supported backends: Metal",
        refs=("stacks-mlx", "stacks-vllm-platforms"),
        summary="Apple silicon serves LLMs with llama.cpp (GGUF) or MLX; no CUDA, no FP8, no FlashAttention-2.",
        en="The {gpu} runs Apple's Metal stack: the engines are llama.cpp (GGUF quantisations) and MLX (MLX 4/8-bit "
           "formats); there is no CUDA, FP8 or FlashAttention-2, and vLLM does not use its GPU.",
        zh="{gpu} 使用苹果 Metal 软件栈：可用引擎为 llama.cpp（GGUF 量化）与 MLX（MLX 4/8 位格式）；没有 CUDA、FP8 "
           "和 FlashAttention-2，vLLM 也无法使用其 GPU。",
    ),
    RuleMeta(
        id="cap-cann-engines",
        topic="capability",
        applies_to=CONFIG,
        when=(f.software_stack == "cann") & f.engine.one_of(*_CUDA_ONLY_ENGINES),
        severity="block",
        source="stacks-mindie",
        section="MindIE / vllm-ascend on CANN",
        refs=("stacks-trtllm", "stacks-vllm-platforms"),
        summary="Ascend runs CANN: TensorRT-LLM (CUDA only) is not available; use MindIE or vllm-ascend.",
        en="The {gpu} runs Huawei's CANN stack, not CUDA: {engine} is not available on it. Serve with MindIE or "
           "vLLM through the vllm-ascend plugin (llama.cpp also has a CANN backend); train with MindSpore or "
           "torch_npu.",
        zh="{gpu} 使用华为 CANN 软件栈而非 CUDA：{engine} 无法在其上运行。推理请用 MindIE 或 vLLM 的 vllm-ascend "
           "插件（llama.cpp 也有 CANN 后端）；训练请用 MindSpore 或 torch_npu。",
        alternative="engine=vllm (vllm-ascend)",
    ),
    RuleMeta(
        id="cap-fp4-weight-only",
        topic="capability",
        applies_to=CONFIG,
        when=f.weight_format.one_of(*_FP4_FORMATS) & (f.fp4_native == False),  # noqa: E712
        severity="info",
        source="stacks-trtllm",
        section="NVFP4 on Blackwell",
        refs=("mi350-amd-specs", "bw-rtx-wp"),
        summary="FP4 weights run natively only on Blackwell (NVFP4/MXFP4) and CDNA 4 (MXFP4); elsewhere weight-only.",
        en="The {gpu} ({arch}) has no FP4 matrix units (only NVIDIA Blackwell and AMD CDNA 4 have them): FP4 weights "
           "are dequantised to 16 bits for the matrix multiplies, which keeps the memory saving but not the FP4 "
           "compute speed.",
        zh="{gpu}（{arch}）没有 FP4 矩阵单元（只有英伟达 Blackwell 与 AMD CDNA 4 具备）：FP4 权重会反量化为 16 位参与"
           "矩阵乘法，节省显存但没有 FP4 算力加速。",
    ),
    RuleMeta(
        id="cap-machine-not-a-card",
        topic="capability",
        applies_to=CONFIG,
        when=(f.machine == True) & (f.count > 1),  # noqa: E712
        severity="warn",
        source="dgx-spark-aiinfra",
        section="two units linked over ConnectX-7 200 GbE",
        refs=("metal-working-set-exo", "stacks-llamacpp-backends"),
        summary="Unified-memory machines are whole computers: N of them are a network cluster, not an N-GPU server.",
        en="The {gpu} is a whole computer with unified memory, not a card: {count} of them are {count} machines "
           "joined over Thunderbolt or Ethernet (exo, llama.cpp RPC, MLX distributed, or 200 GbE for DGX Spark), "
           "which carries a pipeline split at network speed, not tensor parallelism over NVLink.",
        zh="{gpu} 是一台统一内存的整机，不是显卡：{count} 台就是通过雷雳或以太网连接的 {count} 台机器（exo、llama.cpp "
           "RPC、MLX 分布式，DGX Spark 为 200 GbE），只能按流水线切分并受网络速度限制，不能像 NVLink 那样做张量并行。",
    ),
    RuleMeta(
        id="cap-machine-no-tp",
        topic="capability",
        applies_to=CONFIG,
        when=(f.machine == True) & (f.tp > 1),  # noqa: E712
        severity="block",
        source="dgx-spark-aiinfra",
        section="two units linked over ConnectX-7 200 GbE",
        refs=("metal-working-set-exo",),
        summary="Tensor parallelism across unified-memory machines is not a deployable layout.",
        en="Tensor parallel degree {tp} across {gpu} machines is not a deployable layout: each is a separate computer "
           "and the link between them is Thunderbolt or Ethernet, far below what a per-layer all-reduce needs. Use "
           "one machine with more memory, or a pipeline split.",
        zh="在多台 {gpu} 之间做 {tp} 路张量并行不可行：每台都是独立的计算机，它们之间只有雷雳或以太网，远低于每层 "
           "all-reduce 所需的带宽。请改用内存更大的单台机器，或按流水线切分。",
    ),
)
