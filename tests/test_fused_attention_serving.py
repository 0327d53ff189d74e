"""Serving engines attend with fused kernels on every card they run on (vLLM: FlashAttention from Ampere on, xFormers
or Triton kernels before; vllm-ascend: torch_npu's fused attention), so a card without FlashAttention-2 (Ascend,
Turing, Volta) stores no s × s attention scores under vLLM; under transformers' eager path it does. And the question
after an answer offers the context the answer assumed (DeepSeek-R1: its own long default, not 4096)."""

from __future__ import annotations

from advisor.conversation.session import Conversation
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.catalog import load_catalog

CAT = load_catalog()


def _activations(gpu: str, engine: str) -> int:
    w = Workload(model="qwen2.5-32b", concurrency=4, context=32768, engine=engine, tp=1)
    return estimate_memory(CAT.model("qwen2.5-32b"), w, CAT.gpu(gpu)).per_gpu.activations.n


def test_vllm_activations_do_not_depend_on_flash_attention_2() -> None:
    assert not CAT.gpu("ascend-910c").supports_flash_attention_2 and CAT.gpu("h200-sxm").supports_flash_attention_2
    assert _activations("ascend-910c", "vllm") == _activations("h200-sxm", "vllm")
    # the eager path without FlashAttention-2 keeps the scores of a 32k-token prompt: far more
    assert _activations("ascend-910c", "transformers") > 4 * _activations("ascend-910c", "vllm")


def test_deepseek_r1_fits_sixteen_ascend_910c_for_fifty_users() -> None:
    """By hand: FP8 weights 626.9 GiB / 16 = 39.2 GiB a card (40.0 with the unsplit 16-bit parts); MLA latent KV
    50 × 32768 tokens × 61 layers / PP 2 (31 on the larger stage) × 576 values × 2 B = 54.5 GiB; under 115.2 GiB."""
    answer = Conversation(lang="zh").respond("DeepSeek-R1 在 16 张 910C 上，50 人同时用，速度多少").answer
    first = answer.split("\n")[0]
    assert "按原样跑不起来" not in first and "16× Huawei Ascend 910C" in first, first


def test_the_context_question_offers_the_context_assumed() -> None:
    answer = Conversation(lang="zh").respond("给 500 个员工用 DeepSeek-R1 做内部问答，峰值大概 50 人同时在线，需要什么配置").answer
    assert "32768 tokens 上下文" in answer and "默认 4096 tokens" not in answer, answer[:1500]
