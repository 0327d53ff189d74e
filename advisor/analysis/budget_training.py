"""The largest model a budget trains from scratch in a given time, for "$500k — what's the biggest model we can
train in a month?": the training cards the budget buys, the compute they deliver in that time, and the
compute-optimal model size for it.

    n       = ⌊budget / unit price⌋, whole 8-GPU baseboards (data-centre SXM/OAM modules: what pre-training runs on)
    C       = n × peak BF16 × matmul share × MFU × seconds                 (FLOPs; matmul share: calibration.yaml
              matmul_factor_by_gpu, the measured share of peak relative to the H100 class, 1 when not listed)
    C       = 6 · N · D,  D ≈ 20 · N   ⇒   N = √(C / 120),  D = 20 · N    (Kaplan et al. 2020 for 6ND; Hoffmann et
              al. 2022, "Training Compute-Optimal Large Language Models", arXiv:2203.15556: ≈ 20 tokens per parameter)

MFU = 40 %: Llama 3 405B's pre-training ran at 38–43 % BF16 MFU on 8,192–16,384 H100s (Llama Team 2024,
arXiv:2407.21783, Table 4). Of the affordable data-centre cards the one giving the most compute wins; the cards alone
are priced (servers and networking come on top), as in advisor.analysis.budget_hardware.
"""

from __future__ import annotations

import math

from advisor.analysis.budget_hardware import BudgetPick, buyable_price
from advisor.estimator.calibration import load_calibration
from knowledge.catalog import Catalog
from knowledge.structs import Value

MFU = 0.40  # Llama 3 405B pre-training, 38–43 % BF16 MFU (arXiv:2407.21783, Table 4)
TOKENS_PER_PARAM = 20.0  # Chinchilla (arXiv:2203.15556)
BOARD = 8  # GPUs per HGX/OAM baseboard


class TrainingBudget(Value):
    """What the budget trains: `pick` (n × card), the compute in `seconds`, the compute-optimal size and tokens."""

    pick: BudgetPick
    seconds: float
    flops: float
    params: float
    tokens: float
    mfu: float
    matmul_share: float


def budget_training(catalog: Catalog, budget: float, currency: str, region: str, seconds: float,
                    condition: str = "new") -> TrainingBudget | None:
    """The affordable data-centre cards with the most compute over `seconds`, and the compute-optimal model for it;
    None when not even one baseboard is affordable."""
    factors = load_calibration().inference.matmul_factor_by_gpu
    best: TrainingBudget | None = None
    for gpu in catalog.gpus:
        price = buyable_price(gpu, currency, region, condition) if gpu.interface in ("sxm", "oam") else None
        if price is None:
            continue
        n = math.floor(budget / price.per_card.amount + 1e-9) // BOARD * BOARD
        if n < BOARD:
            continue
        share = factors[gpu.id].value if gpu.id in factors else 1.0
        flops = n * gpu.bf16_dense_flops * share * MFU * seconds
        params = math.sqrt(flops / (6 * TOKENS_PER_PARAM))
        pick = BudgetPick(gpu=gpu, count=n, price=price, total=n * price.per_card.amount)
        cand = TrainingBudget(pick=pick, seconds=seconds, flops=flops, params=params,
                              tokens=TOKENS_PER_PARAM * params, mfu=MFU, matmul_share=share)
        if best is None or (cand.flops, -cand.pick.total) > (best.flops, -best.pick.total):
            best = cand
    return best


__all__ = ["MFU", "TOKENS_PER_PARAM", "TrainingBudget", "budget_training"]
