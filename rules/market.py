"""China-market availability and US export rules, as dated facts. Applied when the user's region is cn.

Dates (all from the cited sources; none of this is legal advice):

* 2022-10-07: licence required for the A100 and H100 (interconnect ≥ 600 GB/s and TPP ≥ 4,800);
  NVIDIA answered with the A800 (2022-11) and H800 (2023-03).
* 2023-10-17: the Interim Final Rule; NVIDIA's 8-K names A100, A800, H100, H800, L40, L40S and RTX 4090
  (effective for the RTX 4090 on 2023-11-17). Cards above the thresholds by computation (RTX 6000 Ada,
  L4 by performance density, B200, MI300X, MI250X) are treated the same way.
* Built for the market afterwards: L20, RTX 4090 D (2023-12-28), H20 (2024), RTX 5090 D (2025-01; V2 with
  24 GB from 2025-08-12).
* 2025-04-09: the H20 needs a licence too (NVIDIA's ~US$5.5B charge). July/August 2025: H20 licences resume against
  15% of China revenue to the US government; in August Chinese regulators discourage H20 purchases. July 2025: a
  cut-down Blackwell for China, the RTX Pro 6000D ("B40": GDDR7, no NVLink); 2025-09-17: China's CAC tells ByteDance,
  Alibaba and others to stop testing and ordering it. 2025-08-19: Reuters reports the B30A (single-die Blackwell,
  about half a B300), subject to US approval, which did not come.
* 2025-12-08: the US allows H200 sales to approved Chinese customers with 25% of revenue to the US government
  (Blackwell and Rubin excluded); interagency licence review from 2025-12-19; January 2026 rules (third-party
  testing, China volume ≤ 50% of US supply, similar treatment for the MI325X). 2026-01-10: a report of approval and
  ≈¥190,000 per chip. Whether China lets the H200 in is open.

A new purchase of a restricted card is blocked; owned or locally rented hardware gets an info finding.
"""

from __future__ import annotations

from rules.common import BUY, CN, CONFIG, NOT_BUY, NOT_OWNED
from rules.conditions import f
from rules.meta import RuleMeta

_8K = "Item 8.01: licence requirement for A100, A800, H100, H800, L40, L40S and GeForce RTX 4090 (2023-10-17)"
_RESTRICTED = ("a100", "h100", "a800", "h800", "l40", "l40s", "rtx-4090", "rtx-5090",
               "rtx-6000-ada", "l4", "b200", "mi300x", "mi250x", "rtx-pro-6000", "b300", "gb200", "gb300",
               "mi350x", "mi355x", "gaudi3")
_BLACKWELL_DC = ("b300", "gb200", "gb300")

RULES: tuple[RuleMeta, ...] = (
    RuleMeta(
        id="market-cn-restricted-2022",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("a100", "h100")) & CN & BUY,
        severity="block",
        source="sec-8k-2023",
        section=_8K,
        refs=("aiwiki-a800", "aiwiki-h800"),
        as_of="2023-10-17",
        summary="A100/H100: licence required for China since 2022-10-07; not a new-purchase option there.",
    ),
    RuleMeta(
        id="market-cn-restricted-2023",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("a800", "h800", "l40", "l40s")) & CN & BUY,
        severity="block",
        source="sec-8k-2023",
        section=_8K,
        refs=("aiwiki-a800", "aiwiki-h800"),
        as_of="2023-10-17",
        summary="A800/H800/L40/L40S: licence required for China since 2023-10-17 (the guides' China advice is dated).",
    ),
    RuleMeta(
        id="market-cn-4090-restricted",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-4090") & CN & BUY,
        severity="block",
        source="sec-8k-2023",
        section=_8K,
        refs=("evertiq-4090d", "hmc-4090d", "bloomberg-4090"),
        as_of="2023-12-28",
        summary="RTX 4090: licence required for China since 2023-11-17; the market version is the RTX 4090 D.",
        alternative="rtx-4090d",
    ),
    RuleMeta(
        id="market-cn-5090-not-sold",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-5090") & CN & BUY,
        severity="block",
        source="toms-5090d",
        section="RTX 5090 D / 5090 D V2 for China",
        as_of="2025-08-12",
        summary="RTX 5090: not sold in China; the market versions are the RTX 5090 D and 5090 D V2.",
        alternative="rtx-5090d",
    ),
    RuleMeta(
        id="market-cn-a10g-aws-only",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "a10g") & CN & BUY,
        severity="block",
        source="baseten-a10-vs-a10g",
        section="A10 vs A10G: 'you won't find any A10s on AWS … AWS has a special variant, the A10G, which powers their G5 instances'",
        as_of="2023-11-28",
        summary="A10G: an AWS-only part (EC2 G5), sold as a card nowhere, so not bought in China either; the A10 is.",
        alternative="a10",
    ),
    RuleMeta(
        id="market-cn-restricted-threshold",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-6000-ada", "l4", "b200", "mi300x", "mi250x", "mi350x", "mi355x", "gaudi3"))
        & CN & BUY,
        severity="block",
        source="maxpc-2023",
        section="TPP ≥ 4,800 limit, performance density as a secondary factor",
        refs=("sec-8k-2023",),
        as_of="2023-10-17",
        summary="Cards above the 2023-10-17 export thresholds by computation are treated as licence-required.",
    ),
    RuleMeta(
        id="market-cn-h20-licence",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "h20") & CN & NOT_OWNED,
        severity="warn",
        source="h20-apr2025",
        section="licence now required for H20 exports to China",
        refs=("h20-tweaktown", "h200-cn-2026", "h20-15pct-2025-08", "rtxpro6000d-yonhap"),
        as_of="2026-01-10",
        summary="H20: built for China, but licence-required since 2025-04-09; supply reported near zero in Jan 2026.",
    ),
    RuleMeta(
        id="market-cn-h200-reported",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("h200", "mi325x")) & CN & BUY,
        severity="warn",
        source="h200-cn-trump-2025-12",
        section="H200 sales to approved customers in China, 25% to the US government (2025-12-08)",
        refs=("h200-cn-review-2025-12", "h200-cn-rule-2026-01", "h200-cn-2026"),
        as_of="2026-01-15",
        summary="H200 (and MI325X) in China: allowed case by case since 2025-12-08 with a 25% levy; confirm supply.",
    ),
    RuleMeta(
        id="market-cn-l20",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "l20") & CN,
        severity="info",
        source="h20-l20-elecfans",
        section="H20 / L20 / L2 China-market parts",
        refs=("expert-2024",),
        as_of="2024-03-25",
        summary="L20: built for the China market after the 2023-10-17 rule.",
    ),
    RuleMeta(
        id="market-cn-4090d",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-4090d") & CN,
        severity="info",
        source="evertiq-4090d",
        section="RTX 4090D for China (Reuters)",
        refs=("se7en-4090d",),
        as_of="2023-12-28",
        summary="RTX 4090 D: the China-market RTX 4090 (2023-12-28, ¥12,999).",
    ),
    RuleMeta(
        id="market-cn-5090d",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-5090d") & CN,
        severity="info",
        source="toms-5090d",
        section="RTX 5090 D V2 (2025-08-12)",
        refs=("grok-5090dv2",),
        as_of="2025-08-12",
        summary="RTX 5090 D: the China-market RTX 5090; the V2 (2025-08-12) has 24 GB instead of 32 GB.",
    ),
    RuleMeta(
        id="market-cn-restricted-in-hand",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of(*_RESTRICTED)) & CN & NOT_BUY,
        severity="info",
        source="sec-8k-2023",
        section=_8K,
        as_of="2023-10-17",
        summary="Restricted cards already in China (owned or rented locally) can be used; expansion is the problem.",
    ),
    RuleMeta(
        id="market-cn-rtx-pro-6000",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "rtx-pro-6000") & CN & BUY,
        severity="block",
        source="rtxpro6000d-cac-2025-09",
        section="China's CAC halts RTX Pro 6000D purchases (2025-09-17)",
        refs=("b40-gmt8-2025-07", "rtxpro6000d-yonhap", "maxpc-2023"),
        as_of="2025-09-17",
        summary="RTX PRO 6000 Blackwell: above the thresholds for China; its China version RTX Pro 6000D was halted by China's CAC.",
    ),
    RuleMeta(
        id="market-cn-blackwell-dc",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of(*_BLACKWELL_DC)) & CN & BUY,
        severity="block",
        source="h200-cn-trump-2025-12",
        section="Blackwell and Rubin excluded from the H200 decision (2025-12-08)",
        refs=("b30a-reuters-2025-08", "b30a-huang-2025-08-22", "sec-8k-2023"),
        as_of="2025-12-09",
        summary="B300/GB200/GB300: not licensed for China; the 2025-12-08 decision excludes Blackwell; the B30A was only reported.",
        alternative="h200",
    ),
)
