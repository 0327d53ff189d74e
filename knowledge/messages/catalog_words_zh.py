"""The catalog's interconnect words (`GpuSpec.nvlink`, written in English in knowledge/data/gpus) in Chinese, so a
Chinese table of cards leaves no English label: (English phrase, Chinese), replaced in order; a remark in brackets
that stays English after them is dropped by the reader of this table (dialog.catalog_answers._link_words)."""

LINK_WORDS_ZH: tuple[tuple[str, str], ...] = (
    ("n/a — ", ""), ("NVLink bridge", "NVLink 桥接"), ("2-way", "双卡"), ("for 2 GPUs", "（双卡）"),
    ("via NVSwitch", "经 NVSwitch"), ("capped at", "限速"), ("capped", "限速版"), ("full mesh", "全互联"),
    ("per-chip bandwidth not published", "单芯片带宽未公布"), ("links", "条链路"), ("(full)", "（满速）"),
    ("between paired cards", "（成对连接）"), ("on SXM2; PCIe card has no NVLink", "（SXM2；PCIe 版无 NVLink）"),
)
