"""A guide's specification or price claim that a message quotes or asks about ("H100 的 FP16 是 1513 TFLOPS 吗",
"A800 一张卡要 170 万吗", "two 4090s over NVLink"): reading the message, for the deterministic dialog, which then
has it checked (advisor.analysis.claims.claim_findings)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from advisor.conversation.reader.text import normalise

if TYPE_CHECKING:
    from knowledge.guides import Claim

_VERIFY = re.compile(r"文章|教程|指南|攻略|博客|网上|据说|听说|号称|宣称|说|对吗|对不对|是真的|真的吗|正确吗|准确吗|靠谱吗|吗|"
                     r"\bguide\b|\barticle\b|\bblog\b|\bclaims?\b|\bsays?\b|\bsaid\b|according to|is (?:that|it|this) "
                     r"(?:right|true|correct|accurate)|\breally\b|\?|？")
_SPEC_NUMBER = re.compile(r"(?<![\d.])(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)\s*(?P<scale>万|亿|k\b|m\b|million)?\s*"
                          r"(?P<unit>tflops|tops|tb/s|gb/s|tbps|gbps|元|块|人民币|rmb|cny|瓦|w\b)?", re.I)
_UNIT_OF = {"tflops": "TFLOPS", "tops": "TOPS", "tb/s": "GB/s", "tbps": "GB/s", "gb/s": "GB/s", "gbps": "GB/s",
            "元": "CNY", "块": "CNY", "人民币": "CNY", "rmb": "CNY", "cny": "CNY", "瓦": "W", "w": "W"}
_KEYWORD_CLAIMS = {"nvlink": re.compile(r"nvlink|nv\s*link|桥接"), "architecture": re.compile(r"ada|lovelace|架构")}


def _gpu_family(gpu_id: str) -> str:
    """"h100-pcie" and "h100-sxm" -> "h100"; "rtx-4090" stays (but is not "rtx-4090d")."""
    parts = gpu_id.split("-")
    return "-".join(parts[:2]) if parts[0] == "rtx" else parts[0]


def match_spec_claim(text: str, gpus: Iterable[str]) -> Claim | None:
    """The guide claim about a GPU's specification or price that `text` quotes or asks about ("H100 的 FP16 是 1513
    TFLOPS 吗", "A800 一张卡要 170 万吗", "two 4090s over NVLink"): same card family and the same figure (±2 %,
    units converted), or for NVLink/architecture claims the keyword. None when nothing matches."""
    from knowledge.guides import load_guides  # start-up: `gpu-advisor ask` never loads knowledge.guides

    mentioned = {_gpu_family(g) for g in gpus}
    s = normalise(text)
    if not mentioned or not _VERIFY.search(s):
        return None
    figures: list[tuple[float, str | None]] = []
    for m in _SPEC_NUMBER.finditer(s):
        value = float(m.group("num").replace(",", ""))
        scale = (m.group("scale") or "").lower()
        value *= {"万": 1e4, "亿": 1e8, "k": 1e3, "m": 1e6, "million": 1e6}.get(scale, 1.0)
        unit = _UNIT_OF.get((m.group("unit") or "").lower())
        if (m.group("unit") or "").lower() in ("tb/s", "tbps"):
            value *= 1000.0
        if unit is None and scale in ("万", "亿"):
            unit = "CNY"
        if unit is None and not scale and m.group("num").isdigit() and 1990 <= value <= 2039:
            continue  # "worth buying in 2026": a year, not a figure of the card
        figures.append((value, unit))
    budget = re.search(r"预算|budget|花费|不超过|控制在", s)
    best = None
    for c in load_guides().claims:
        spec_gpus = {_gpu_family(g) for g in c.gpus}
        if not spec_gpus & mentioned:
            continue
        v, unit = c.claimed.value, c.claimed.unit
        hit = False
        if isinstance(v, (int, float)) and not isinstance(v, bool) and unit in ("TFLOPS", "TOPS", "GB/s", "CNY", "W"):
            if unit == "CNY" and budget:
                continue
            hit = any(abs(x - float(v)) <= 0.02 * float(v) and (u is None or u == unit or {u, unit} <= {"TFLOPS", "TOPS"})
                      for x, u in figures)
        elif c.check in _KEYWORD_CLAIMS:
            hit = bool(_KEYWORD_CLAIMS[c.check].search(s))
        if hit and (best is None or (c.design_error and not best.design_error)):
            best = c
    return best


