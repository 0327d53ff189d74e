"""The configurations a person named, evaluated exactly as named (one place the analysis modules share)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.request import NamedConfig
from advisor.analysis.steps import Step, timed
from advisor.recommend.recommender import evaluate_configs
from advisor.workload import Constraints, Workload
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option


def evaluate_named(workload: Workload, constraints: Constraints, named: list[NamedConfig],
                   steps: list[Step]) -> list[Option]:
    """The named configurations exactly as named (advisor.recommend.recommender.evaluate_configs), labelled with their role;
    the node limit widened to hold the widest."""
    configs = [(m.gpu, m.count or 1) for m in named]
    widest = max(n for _, n in configs)
    c = constraints
    if widest > c.max_gpus_per_node * c.max_nodes:
        c = replace(c, max_nodes=-(-widest // c.max_gpus_per_node))
    options = timed(steps, "evaluate_configs", {"model": workload.model, "configs": configs},
                    lambda: evaluate_configs(workload, configs, c),
                    lambda r: ", ".join(f"{o.count}× {o.gpu}: {'fits' if o.fits else 'does not fit'}" for o in r))
    out = []
    for opt, mention in zip(options, named, strict=True):
        labels = [lab for lab in opt.labels if lab != mention.role] + [mention.role]
        out.append(replace(opt, labels=labels))
    return out
