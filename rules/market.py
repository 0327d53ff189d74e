"""China-market availability and US export rules, as dated facts. Applied when the user's region is cn.

Dates (all from the cited sources; none of this is legal advice):

* 2022-10-07: licence required for the A100 and H100 (interconnect ≥ 600 GB/s and TPP ≥ 4,800);
  NVIDIA answered with the A800 (2022-11) and H800 (2023-03).
* 2023-10-17: the Interim Final Rule; NVIDIA's 8-K names A100, A800, H100, H800, L40, L40S and RTX 4090
  (effective for the RTX 4090 on 2023-11-17). Cards above the thresholds by computation (RTX 6000 Ada,
  L4 by performance density, B200, MI300X, MI250X) are treated the same way.
* Built for the market afterwards: L20, RTX 4090 D (2023-12-28), H20 (2024), RTX 5090 D (2025-01; V2 with
  24 GB from 2025-08-12).
* 2025-04-09: the H20 needs a licence too. 2026-01-10: a report of H200 export approval.

A new purchase of a restricted card is blocked; owned or locally rented hardware gets an info finding.
"""

from __future__ import annotations

from rules.common import BUY, CN, CONFIG, NOT_BUY, NOT_OWNED
from rules.conditions import f
from rules.meta import RuleMeta

_8K = "Item 8.01: licence requirement for A100, A800, H100, H800, L40, L40S and GeForce RTX 4090 (2023-10-17)"
_RESTRICTED = ("a100", "h100", "a800", "h800", "l40", "l40s", "rtx-4090", "rtx-5090",
               "rtx-6000-ada", "l4", "b200", "mi300x", "mi250x")

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
        en="The {gpu} needs a US export licence for China: the A100 and H100 since the rule of 2022-10-07, named "
           "again in NVIDIA's 8-K of 2023-10-17. Buying it new for use in China is not a compliant option "
           "(not legal advice).",
        zh="{gpu} 对华出口需要美国许可证：A100 与 H100 自 2022-10-07 新规起受限，并在英伟达 2023-10-17 的 8-K "
           "公告中再次列出。在国内新购该卡不是合规选项（非法律意见）。",
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
        en="The {gpu} has needed a US export licence for China since the rule of 2023-10-17 (named in NVIDIA's 8-K "
           "that day). The A800 and H800 were the China versions of the A100 and H100, so the guides' advice to buy "
           "them predates this rule (not legal advice).",
        zh="{gpu} 自 2023-10-17 新规起对华出口需要美国许可证（见英伟达当日 8-K 公告）。A800、H800 原本是 A100、"
           "H100 的中国特供版，指南“国内选购 A800/H800”的建议早于该规定（非法律意见）。",
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
        en="The RTX 4090 needs a US export licence for China since 2023-11-17 (named in NVIDIA's 8-K of "
           "2023-10-17). The market version is the RTX 4090 D (2023-12-28): same 24 GB, 147 instead of 165 TFLOPS "
           "dense BF16, 425 W. Grey-market 4090s sold for up to ¥29,000 in October 2023.",
        zh="RTX 4090 自 2023-11-17 起对华出口需要美国许可证（英伟达 2023-10-17 的 8-K 公告列出）。国内版本为 "
           "RTX 4090 D（2023-12-28 发布）：同为 24 GB，稠密 BF16 算力 147（4090 为 165）TFLOPS，功耗 425 W。"
           "2023 年 10 月水货 4090 售价曾高达 ¥29,000。",
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
        en="The RTX 5090 is not sold in China (it exceeds the TPP 4,800 threshold). The market version is the RTX "
           "5090 D (January 2025; AI TOPS capped at 2,375) and, from 2025-08-12, the 5090 D V2 with 24 GB.",
        zh="RTX 5090 不在国内销售（超出 TPP 4,800 门槛）。国内版本为 RTX 5090 D（2025 年 1 月；AI TOPS 限制为 "
           "2,375），2025-08-12 起为 24 GB 的 5090 D V2。",
        alternative="rtx-5090d",
    ),
    RuleMeta(
        id="market-cn-restricted-threshold",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family.one_of("rtx-6000-ada", "l4", "b200", "mi300x", "mi250x")) & CN & BUY,
        severity="block",
        source="maxpc-2023",
        section="TPP ≥ 4,800 limit, performance density as a secondary factor",
        refs=("sec-8k-2023",),
        as_of="2023-10-17",
        summary="Cards above the 2023-10-17 export thresholds by computation are treated as licence-required.",
        en="The {gpu} is not named in NVIDIA's 8-K, but by computation it exceeds the thresholds of the 2023-10-17 "
           "rule (total processing performance ≥ 4,800, or ≥ 1,600 with performance density ≥ 5.92), so it is "
           "treated as licence-required for China (a computation, not legal advice).",
        zh="{gpu} 未在英伟达 8-K 公告中点名，但按计算超过 2023-10-17 新规的门槛（总处理性能 TPP ≥ 4,800，或 "
           "≥ 1,600 且性能密度 ≥ 5.92），因此按需许可证处理（仅为计算结论，非法律意见）。",
    ),
    RuleMeta(
        id="market-cn-h20-licence",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "h20") & CN & NOT_OWNED,
        severity="warn",
        source="h20-apr2025",
        section="licence now required for H20 exports to China",
        refs=("h20-tweaktown", "h200-cn-2026"),
        as_of="2026-01-10",
        summary="H20: built for China, but licence-required since 2025-04-09; supply reported near zero in Jan 2026.",
        en="The H20 was built for the China market after the 2023-10-17 rule, but it has needed a US export licence "
           "since 2025-04-09. Licences reportedly resumed in mid-2025, yet a report of 2026-01-10 describes China "
           "sales as near zero: confirm supply before quoting it.",
        zh="H20 是 2023-10-17 新规后为国内市场推出的型号，但自 2025-04-09 起也需要美国出口许可证。据报道 2025 年"
           "年中许可恢复，但 2026-01-10 的报道称其国内销量几乎为零：报价前请确认货源。",
    ),
    RuleMeta(
        id="market-cn-h200-reported",
        topic="market",
        applies_to=CONFIG,
        when=(f.gpu_family == "h200") & CN & BUY,
        severity="warn",
        source="h200-cn-2026",
        section="H200 approved for export to China (report)",
        as_of="2026-01-10",
        summary="H200 in China: reported export approval (Jan 2026), licence-dependent; confirm with the supplier.",
        en="The H200 exceeds the export thresholds; a report of 2026-01-10 says it was approved for export to China "
           "around December 2025 / January 2026, at about ¥190,000 per chip with full prepayment. Treat it as "
           "licence-dependent and confirm with the supplier.",
        zh="H200 超出出口门槛；2026-01-10 的报道称其约在 2025 年 12 月至 2026 年 1 月获准对华出口，单卡约 "
           "¥190,000，需全额预付。请按依赖许可证处理，并向供应商确认。",
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
        en="The L20 (Ada, 48 GB) was built for the China market after the 2023-10-17 rule and is sold there "
           "(channel price about ¥75,000 per card on 2024-03-25, a low-reliability datapoint).",
        zh="L20（Ada 架构，48 GB）是 2023-10-17 新规后为国内市场推出的型号，可在国内购买（2024-03-25 渠道价约每卡 "
           "¥75,000，可靠性较低的数据点）。",
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
        en="The RTX 4090 D is the China-market RTX 4090 (launched 2023-12-28 at ¥12,999, the 4090's price): 14,592 "
           "CUDA cores instead of 16,384 and 425 W, to stay under the TPP 4,800 threshold.",
        zh="RTX 4090 D 是 RTX 4090 的国内版本（2023-12-28 发布，售价 ¥12,999，与 4090 相同）：CUDA 核心 14,592 "
           "个（4090 为 16,384），功耗 425 W，以满足 TPP 4,800 的门槛。",
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
        en="The RTX 5090 D is the China-market RTX 5090. The first version (January 2025, 32 GB) was reportedly "
           "withdrawn in 2025; the V2 sold from 2025-08-12 at the same ¥16,499 has 24 GB on a 384-bit bus, so a "
           "plan sized for 32 GB may not fit.",
        zh="RTX 5090 D 是 RTX 5090 的国内版本。首版（2025 年 1 月，32 GB）据报道已于 2025 年停售；2025-08-12 起"
           "以同价 ¥16,499 销售的 V2 版只有 24 GB（384 位），按 32 GB 规划的方案可能放不下。",
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
        en="The {gpu} is restricted for new export to China, but cards already in the country (owned, or rented "
           "from a local cloud) can still be used; the restriction matters for expansion and spare parts.",
        zh="{gpu} 的新增对华出口受限，但已在国内的卡（自有或向本地云租用）仍可使用；受影响的是扩容与备件。",
    ),
)
