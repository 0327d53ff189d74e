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
_NO_FP8_COMPUTE = ("volta", "turing", "ampere", "cdna2", "davinci", "apple-m1", "apple-m2", "apple-m3", "apple-m4",
                   "apple-m5", "rdna3", "rdna3.5")
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
        summary="BF16 needs hardware support (NVIDIA: Ampere or newer); cards without it run FP16 instead.",
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
        alternative="precision=fp16",
    ),
    RuleMeta(
        id="cap-fp8-ascend",
        topic="capability",
        applies_to=CONFIG,
        when=(f.precision == "fp8") & INFERENCE & (f.gpu_arch == "davinci"),
        severity="warn",
        source="rules-vllm-ascend-quant",
        section="Quantize model: W8A8 weights with ModelSlim, --quantization ascend",
        summary="Ascend NPUs have no FP8: an FP8 checkpoint is served as W8A8 INT8 converted with msModelSlim (the same "
                "byte per weight), started with --quantization ascend.",
        alternative="precision=int8",
    ),
    RuleMeta(
        id="cap-fp4-ascend",
        topic="capability",
        applies_to=CONFIG,
        when=f.weight_format.one_of("mxfp4", "nvfp4") & INFERENCE & (f.gpu_arch == "davinci"),
        severity="block",
        source="sglang-ascend-quant",
        section="Quantization on Ascend: MXFP4 rows (A2 ×, A3 ×, Ascend 950 √)",
        refs=("rules-vllm-ascend-quant",),
        summary="Ascend A2/A3 NPUs (910B/C, 310P) have no MXFP4/NVFP4 kernels: an FP4 checkpoint runs as W8A8 INT8 "
                "(msModelSlim), twice the bytes.",
        alternative="precision=int8",
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
    ),
)
