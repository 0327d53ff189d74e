"""Which engines run on which software stack, as data with its sources (the recommender's search and the
capability rules read it).

A card's stack is `knowledge.schemas.GpuSpec.stack` (cuda, rocm, cann, metal, synapseai). An engine absent from a
stack's set does not run there: vLLM, SGLang, TensorRT-LLM, DeepSpeed and Megatron have no Apple Metal backend
(llama.cpp and MLX are Apple's engines; MLX is not an engine the estimator sizes); TensorRT-LLM is CUDA only;
Ascend runs vLLM through vllm-ascend, llama.cpp through its CANN backend, DeepSpeed and Megatron (MindSpeed) through
torch_npu; Gaudi runs vLLM through vllm-gaudi and DeepSpeed through Intel's fork, and llama.cpp has no Gaudi
backend.
"""

from __future__ import annotations

from typing import Final

_ALL = frozenset({"transformers", "vllm", "llama.cpp", "sglang", "trtllm", "deepspeed", "megatron"})

STACK_ENGINES: Final[dict[str, frozenset[str]]] = {
    "cuda": _ALL | {"fsdp"},  # PyTorch FSDP with bitsandbytes 4-bit (FSDP + QLoRA) is sized on CUDA only
    "rocm": _ALL - {"trtllm"},
    "cann": _ALL - {"trtllm"},
    "metal": frozenset({"transformers", "llama.cpp"}),
    "synapseai": frozenset({"transformers", "vllm", "deepspeed", "megatron"}),
}
# the sources registry ids behind each stack's set (knowledge/data/sources/gpus.yaml)
STACK_SOURCES: Final[dict[str, tuple[str, ...]]] = {
    "cuda": ("stacks-vllm-platforms", "stacks-trtllm", "stacks-llamacpp-backends"),
    "rocm": ("stacks-vllm-platforms", "stacks-llamacpp-backends", "stacks-sglang", "stacks-trtllm"),
    "cann": ("stacks-mindie", "stacks-vllm-platforms", "stacks-llamacpp-backends", "stacks-sglang", "stacks-trtllm"),
    "metal": ("stacks-vllm-platforms", "stacks-llamacpp-backends", "stacks-mlx", "stacks-trtllm"),
    "synapseai": ("stacks-vllm-platforms", "gaudi3-yobitel", "stacks-llamacpp-backends"),
}


def runs(stack: str, engine: str) -> bool:
    """Whether `engine` runs on `stack` (an unknown stack runs nothing)."""
    return engine in STACK_ENGINES.get(stack, frozenset())


def engines_on(stack: str) -> tuple[str, ...]:
    """The engines that run on `stack`, sorted."""
    return tuple(sorted(STACK_ENGINES.get(stack, frozenset())))
