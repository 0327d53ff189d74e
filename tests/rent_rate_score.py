"""Score the user-stated rental rate on the development and held-out sets (tests/data/rent_rate_*.json).

    PYTHONPATH=$PWD python -m tests.rent_rate_score [dev|heldout]

Two scores per set: `read`, the share of cases whose typed request carries the expected rate (per GPU-hour, within
half a cent), currency and provider (or carries none where none was said); `lead`, the share of cases with a rate
whose first paragraph shows the rate and, where the card count is the person's, the month's figure
(cards × 730 h × rate, by hand in the set) within one unit of money as printed."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


def cases(name: str) -> list[dict[str, Any]]:
    return list(json.loads((DATA / f"rent_rate_{name}.json").read_text(encoding="utf-8"))["cases"])


def stated(request: dict[str, Any]) -> tuple[float | None, str | None, str | None]:
    """(rate per GPU-hour, currency, provider) the typed request carries as stated by the person."""
    limits = {v["name"]: v for v in request.get("limits", [])}
    r, p = limits.get("rent_rate"), limits.get("rent_provider")
    return ((float(r["value"]) if r else None), (str(r.get("unit", "")).split()[0] if r else None),
            (str(p["value"]) if p else None))


def money_in(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"[$¥]\s?(\d[\d,]*(?:\.\d+)?)", text)]


def read_ok(case: dict[str, Any], request: dict[str, Any]) -> bool:
    rate, cur, provider = stated(request)
    if case["rate"] is None:
        return rate is None
    return (rate is not None and abs(rate - case["rate"]) < 0.005 and cur == case["currency"]
            and provider == case["provider"])


def lead_ok(case: dict[str, Any], answer: str) -> bool:
    head = answer.strip().split("\n\n")[0]
    found = money_in(head)
    if not any(abs(x - case["rate"]) < 0.005 for x in found):
        return False
    return case["month"] is None or any(abs(x - case["month"]) <= 1 for x in found)


def score(name: str, verbose: bool = False) -> tuple[int, int, int, int]:
    from advisor.conversation.session import Conversation
    n_read = n_lead = ok_read = ok_lead = 0
    for case in cases(name):
        turn = Conversation(lang=case["lang"]).respond(case["text"])
        request = dict(turn.extra.get("request") or {})
        n_read += 1
        r = read_ok(case, request)
        ok_read += r
        lead = None
        if case["rate"] is not None:
            n_lead += 1
            lead = lead_ok(case, turn.answer)
            ok_lead += lead
        if verbose and (not r or lead is False):
            print(f"{'read' if not r else 'lead'} miss: {case['text']}\n   got {stated(request)}\n   "
                  f"{turn.answer.strip().split(chr(10) * 2)[0][:300]}")
    return ok_read, n_read, ok_lead, n_lead


if __name__ == "__main__":
    for which in [a for a in sys.argv[1:] if not a.startswith("-")] or ["dev", "heldout"]:
        a, b, c, d = score(which, verbose="-v" in sys.argv or which == "dev")
        print(f"{which}: read {a}/{b}, lead {c}/{d}")
