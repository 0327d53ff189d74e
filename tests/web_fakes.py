"""Test double of the conversation layer for the web tests (never used by the app itself).

`FakeConversation` follows `advisor.conversation.session.Conversation`'s interface: `stream(text)` yields one
Step per tool call, then a Turn built from fixed, hand-checked numbers.
"""

from __future__ import annotations

from advisor.conversation.turn import Number, Step, Turn
from rules.findings import Finding

GIB = 2**30

LAYOUT = {"pp": 1, "dp": 1, "zero": 0, "offload": "none", "engine": "vllm", "weights": "int4", "kv": "fp16",
          "recompute": None}

# Shaped like `advisor.recommend.recommender.Option.to_contract()`: `price` is one card, the TCO holds the purchase total.
OPTIONS = [
    {"gpu": "h100-sxm", "gpu_name": "NVIDIA H100 SXM", "count": 2, "nodes": 1, "layout": {"tp": 2, **LAYOUT},
     "labels": ["best_value"],
     "per_gpu_bytes": {"weights": 35 * GIB, "gradients": 0, "optimizer_states": 0, "activations": 2 * GIB,
                       "kv_cache": 20 * GIB, "overhead": 3 * GIB, "total": 60 * GIB},
     "capacity_bytes": 80 * GIB, "fits": True,
     "throughput": {"decode_tokens_per_s": 41.5, "decode_tokens_per_s_total": 2075.0},
     "price": {"amount": 30000.0, "currency": "USD", "as_of": "2025-06-01"},
     "tco": {"currency": "USD", "years": 3.0,
             "purchase": {"gpus": {"amount": 60000.0, "currency": "USD"},
                          "rest_of_system": {"amount": 15000.0, "currency": "USD"},
                          "total": {"amount": 75000.0, "currency": "USD"}},
             "tco": {"amount": 95000.0, "currency": "USD"}},
     "launch_hint": "vllm serve meta-llama/Meta-Llama-3-70B --tensor-parallel-size 2",
     "findings": [{"rule_id": "sanity.headroom", "severity": "info", "message": "25% headroom", "source": "estimator"}]},
    {"gpu": "l40s", "gpu_name": "NVIDIA L40S", "count": 4, "nodes": 1, "layout": {"tp": 4, **LAYOUT},
     "labels": ["lowest_cost"],
     "per_gpu_bytes": {"weights": 17.5 * GIB, "gradients": 0, "optimizer_states": 0, "activations": 1 * GIB,
                       "kv_cache": 10 * GIB, "overhead": 2 * GIB, "total": 30.5 * GIB},
     "capacity_bytes": 48 * GIB, "fits": True,
     "throughput": {"decode_tokens_per_s": 20.0, "decode_tokens_per_s_total": 1000.0},
     "price": {"amount": 9000.0, "currency": "USD", "as_of": "2025-06-01"}, "tco": None, "findings": []},
]

FINDING = Finding(rule_id="capability.nvlink.4090", severity="warn", message="The RTX 4090 has no NVLink.",
                  message_zh="RTX 4090 没有 NVLink。", source="NVIDIA RTX 4090 spec sheet", as_of="2024-01-01")


class FakeConversation:
    driver = "deterministic"
    settings = None

    def __init__(self) -> None:
        self.lang = "en"
        self.turns: list[str] = []

    def stream(self, text: str):
        self.turns.append(text)
        self.lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en"
        if "boom" in text:
            raise RuntimeError("driver exploded")
        if "clarify" in text:
            yield Turn(answer="Which model?", lang=self.lang, questions=["Which model?"])
            return
        if "echo" in text:
            yield Turn(answer="You said: " + text, lang=self.lang)
            return
        step = Step(name="recommend", arguments={"model": "llama-3-70b", "context": 8192}, duration_s=0.012,
                    summary="2 options")
        yield step
        n = len(self.turns)
        yield Turn(answer=f"Turn {n}: **2× H100-SXM** needs 60.0 GiB per GPU of 80 GiB.", lang=self.lang,
                   numbers=[Number(name="per_gpu_total", value=60 * GIB, unit="bytes", source="estimator")],
                   findings=[FINDING], options=OPTIONS, steps=[step],
                   memory={**OPTIONS[0]["per_gpu_bytes"], "capacity_bytes": 80 * GIB},
                   workload={"model": "llama-3-70b", "task": "inference", "context": 8192})
