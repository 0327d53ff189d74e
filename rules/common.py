"""Shorthands shared by the topic modules: the guides' source ids and frequent conditions."""

from __future__ import annotations

from typing import Final

from rules.conditions import Cond, f

# the two guides in the sources registry (knowledge/data/sources/guides.yaml)
GUIDE_000 = "guide-000"  # seeds/000_40d9afaaa53413f3.txt, 大模型训练与推理显卡全指南 (2025-06-16)
GUIDE_003 = "guide-003"  # seeds/003_116b2c47c4d342f5.txt, 深度学习&大模型训练与推理——硬件配置指南

# the fact kinds (rules.meta.FactKind): Final, so that each is its literal type
CONFIG: Final = "config"
WORKLOAD: Final = "workload"
CLAIM: Final = "claim"

TRAINING: Cond = f.task.one_of("full", "lora", "qlora", "freeze", "pretrain")
FINE_TUNING: Cond = f.task.one_of("full", "lora", "qlora", "freeze")
INFERENCE: Cond = f.task == "inference"
CN: Cond = f.region == "cn"
GLOBAL: Cond = f.region == "global"
BUY: Cond = f.acquisition == "buy"
NOT_BUY: Cond = f.acquisition.one_of("rent", "owned")
NOT_OWNED: Cond = f.acquisition.one_of("buy", "rent")
NOT_FP8: Cond = (f.precision != "fp8") | f.precision.missing()
CONSUMER: Cond = f.segment == "consumer"
NOT_DATACENTER: Cond = f.segment.one_of("consumer", "workstation")
PRE_AMPERE: Cond = f.gpu_arch.one_of("volta", "turing")
