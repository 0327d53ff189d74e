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
        when=(f.gpu_family.one_of("rtx-6000-ada", "l4", "b200", "mi300x", "mi250x", "mi350x", "mi355x", "gaudi3"))
        & CN & BUY,
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
        refs=("h20-tweaktown", "h200-cn-2026", "h20-15pct-2025-08", "rtxpro6000d-yonhap"),
        as_of="2026-01-10",
        summary="H20: built for China, but licence-required since 2025-04-09; supply reported near zero in Jan 2026.",
        en="The H20 was built for the China market after the 2023-10-17 rule, but it has needed a US export licence "
           "since 2025-04-09. Licences resumed in July/August 2025 against 15% of China revenue to the US government, "
           "while Chinese regulators discouraged H20 purchases from August 2025; a report of 2026-01-10 describes China "
           "sales as near zero: confirm supply before quoting it.",
        zh="H20 是 2023-10-17 新规后为国内市场推出的型号，但自 2025-04-09 起也需要美国出口许可证。2025 年 7–8 月许可"
           "恢复（对华收入的 15% 上缴美国政府），而国内监管部门自 2025 年 8 月起劝阻采购 H20；2026-01-10 的报道称其"
           "国内销量几乎为零：报价前请确认货源。",
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
        en="The {gpu} exceeds the export thresholds. On 2025-12-08 the US decided to allow H200 sales to approved "
           "Chinese customers with 25% of revenue going to the US government (Blackwell excluded); licences went "
           "to interagency review on 2025-12-19 and January 2026 rules add third-party testing and a cap of 50% of US "
           "volume, with similar treatment for AMD's MI325X. A 2026-01-10 report puts the H200 at about ¥190,000 per "
           "chip with full prepayment; whether China admits it is open. Treat it as licence-dependent and confirm "
           "with the supplier (not legal advice).",
        zh="{gpu} 超出出口门槛。2025-12-08 美国决定允许向经批准的中国客户销售 H200，收入的 25% 上缴美国政府（不含 "
           "Blackwell）；2025-12-19 许可申请进入跨部门审查，2026 年 1 月的规定要求第三方检测、对华数量不超过对美供货的 "
           "50%，AMD MI325X 亦类似处理。2026-01-10 的报道称 H200 单卡约 ¥190,000、需全额预付；中方是否放行尚不确定。"
           "请按依赖许可证处理，并向供应商确认（非法律意见）。",
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
        en="The {gpu} is above the export thresholds for China by computation (dense FP8 ≈ 1,000 TFLOPS, TPP ≈ 8,000 > "
           "4,800). The China version, the RTX Pro 6000D (reported July 2025 as 'B40': GDDR7, no NVLink), was the "
           "H20's successor until China's Cyberspace Administration told ByteDance, Alibaba and others on 2025-09-17 "
           "to stop testing and ordering it (not legal advice).",
        zh="按计算 {gpu} 超出对华出口门槛（稠密 FP8 约 1,000 TFLOPS，TPP 约 8,000 > 4,800）。其中国版 RTX Pro 6000D"
           "（2025 年 7 月报道为“B40”：GDDR7、无 NVLink）原本接替 H20，但 2025-09-17 国家网信办要求字节跳动、阿里巴巴"
           "等停止测试和订购（非法律意见）。",
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
        en="The {gpu} is a data-center Blackwell GPU: not licensed for China. The 2025-12-08 US decision that allows "
           "H200 sales excludes Blackwell and Rubin; the China Blackwell part reported on 2025-08-19 (B30A: one die, "
           "about half a B300, HBM and NVLink) depended on a US approval that had not come (not legal advice).",
        zh="{gpu} 是数据中心 Blackwell GPU，不对华许可。2025-12-08 允许 H200 对华销售的决定不包括 Blackwell 与 "
           "Rubin；2025-08-19 报道的中国版 Blackwell（B30A：单芯片，约为 B300 的一半，配 HBM 与 NVLink）需美方批准，"
           "至今未获批（非法律意见）。",
        alternative="h200",
    ),
)
