"""Which engines free a hybrid-attention model's sliding-window blocks (docs/speed.md, Dec 8): vLLM V1 and SGLang keep
only the window of a running request's sliding layers; TensorRT-LLM holds every layer at the whole sequence unless
kv_cache_config.max_attention_window lists the windows (its default, and the perf overview's gpt-oss options, do not).
The scheduler's KV capacity follows; models without sliding windows are unaffected."""

from __future__ import annotations

import pytest

from advisor.estimator.calibration import load_calibration
from advisor.estimator.engines import default_engines
from advisor.estimator.kv_cache import kv_cache_bytes
from advisor.estimator.serving import scheduler_for
from knowledge.catalog import load_catalog
from knowledge.structs import replace

CAT = load_catalog()


def _cap(engine: str, model: str, gpu: str, weights: str) -> int:
    return scheduler_for(engine, CAT.model(model), CAT.gpu(gpu), tp=1, weights=weights, kv="fp16", context=2000,
                         calib=load_calibration()).kv_capacity_tokens


def _freed(monkeypatch: pytest.MonkeyPatch) -> None:
    """TensorRT-LLM as if it freed window blocks (max_attention_window listing the windows)."""
    import msgspec

    from advisor.estimator import serving

    real = default_engines()
    trt = real.get("trtllm")
    assert trt is not None and trt.serving is not None
    freed = msgspec.structs.replace(trt, serving=msgspec.structs.replace(trt.serving, window_kv_freed=True))

    class Engines:
        def get(self, name: str) -> object:
            return freed if name == "trtllm" else real.get(name)

    monkeypatch.setattr(serving, "default_engines", Engines)


def test_engines_say_whether_they_free_window_blocks() -> None:
    engines = default_engines()
    assert engines.get("vllm").serving.window_kv_freed
    assert engines.get("sglang").serving.window_kv_freed
    assert not engines.get("trtllm").serving.window_kv_freed


@pytest.mark.parametrize(("model", "gpu"), [("gpt-oss-120b", "h200-sxm"), ("gpt-oss-20b", "b200")])
def test_trtllm_holds_about_half_the_gpt_oss_tokens(model: str, gpu: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """gpt-oss: every other layer slides over 128 tokens. Counted at the whole sequence, a 2,000-token request costs
    all its layers instead of about half: the same free memory holds about half the tokens."""
    spec = CAT.model(model)
    hybrid = kv_cache_bytes(spec, 2000, 1, "fp16", 1)
    full = kv_cache_bytes(replace(spec, sliding_window=None), 2000, 1, "fp16", 1)
    assert 1.8 < full / hybrid < 2.0
    held = _cap("trtllm", model, gpu, "mxfp4")
    _freed(monkeypatch)
    freed = _cap("trtllm", model, gpu, "mxfp4")
    assert freed / held == pytest.approx(full / hybrid, rel=0.01)


def test_models_without_windows_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Llama-3.1-8B has no sliding window: the flag does not change its capacity."""
    held = _cap("trtllm", "llama-3.1-8b", "h100-sxm", "bf16")
    _freed(monkeypatch)
    assert _cap("trtllm", "llama-3.1-8b", "h100-sxm", "bf16") == held
