"""The H200 runs of tests/data/measured (see its PROVENANCE.md): each run as a Workload, and the estimator's
prediction of its peak reserved memory (total − the CUDA-context line, which the measured figures exclude)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.estimator.engines import default_engines
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.hf_config import load_hf_config
from knowledge.schemas import ModelSpec

DATA = Path(__file__).resolve().parent / "data" / "measured"
RUNS = DATA / "h200_hf_measure_2026-12-04.jsonl"
HELD_OUT = frozenset({3, 4, 9, 13})  # line numbers (device line = 0) kept out while the model was built


@dataclass(frozen=True)
class Run:
    line: int
    record: dict[str, Any]

    @property
    def held_out(self) -> bool:
        return self.line in HELD_OUT

    @property
    def label(self) -> str:
        r = self.record
        if r["kind"] == "train":
            return (f"{r['model']} {r['mode']} {r['seq']}×{r['micro_batch']}"
                    f"{' ckpt' if r['grad_ckpt'] else ''}")
        return f"{r['model']} infer {r['prompt']}×{r['batch']}"

    def model(self) -> ModelSpec:
        return load_hf_config(DATA / "configs" / f"{self.record['model']}.json")

    def workload(self) -> Workload:
        r = self.record
        if r["kind"] == "train":
            return Workload(task="lora" if r["mode"] == "lora" else "full",
                            optimizer="adamw-bf16" if r["mode"] == "full-bf16" else "adamw",
                            context=r["seq"], batch=r["micro_batch"], engine="transformers",
                            recompute="full" if r["grad_ckpt"] else "none")
        return Workload(engine="transformers", context=r["prompt"] + r["new_tokens"], prompt_tokens=r["prompt"],
                        batch=r["batch"])

    def predicted_reserved(self) -> int:
        e = estimate_memory(self.model(), self.workload())
        return e.per_gpu.total.n - int(default_engines().get("transformers").cuda_context_bytes.value)

    @property
    def measured_reserved(self) -> int:
        return int(self.record["peak_reserved_bytes"])


def runs() -> list[Run]:
    out = []
    for i, line in enumerate(RUNS.read_text().splitlines()):
        rec = json.loads(line)
        if rec["kind"] in ("train", "infer"):
            out.append(Run(i, rec))
    return out
