"""Near the limit: will a training job fit, with how much to spare, and the largest micro-batch and sequence that do.

Each candidate is a full :func:`advisor.estimator.memory.estimate_memory` (the phase peak with the allocator
reserve), so the limits move with everything the estimate counts. Memory grows monotonically with micro-batch and
sequence, so the project's one limit search (advisor.estimator.limits.largest, bisection) finds the largest value
that fits (micro-batch up to 4,096, sequence in steps of 256 tokens up to the model's context).
"""

from __future__ import annotations

from advisor.estimator.limits import CONTEXT_STEP, largest, largest_context
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.quantities import ZERO, Bytes
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value, replace

SEQ_STEP = CONTEXT_STEP  # tokens: the limit searches' one grain (advisor.estimator.limits)
MAX_BATCH = 4096


class FitLimits(Value):
    fits: bool
    spare: Bytes  # usable − needed at the workload as given (negative: short by that much)
    largest_batch: int  # at the workload's sequence; 0 when micro-batch 1 does not fit
    largest_context: int  # at the workload's micro-batch; 0 when SEQ_STEP tokens do not fit
    batch: int
    context: int

    def sentence(self) -> str:
        """"fits with 2.1 GiB to spare at micro-batch 1; micro-batch 2 does not" and the sequence limit."""
        gib = abs(self.spare).text("GiB", 1)
        if self.fits:
            head = f"fits with {gib} to spare at micro-batch {self.batch} × {self.context} tokens"
            if self.largest_batch == self.batch:
                head += f"; micro-batch {self.batch + 1} does not"
            else:
                head += f"; micro-batch up to {self.largest_batch} fits"
        else:
            head = f"does not fit: {gib} short at micro-batch {self.batch} × {self.context} tokens"
            if self.largest_batch:
                head += f"; micro-batch {self.largest_batch} fits"
        tail = (f"; the longest sequence at micro-batch {self.batch} is {self.largest_context} tokens"
                if self.largest_context else f"; not even {SEQ_STEP} tokens fit at micro-batch {self.batch}")
        return head + tail


def training_fit_limits(model: ModelSpec, w: Workload, gpu: GpuSpec) -> FitLimits:
    """Spare memory at `w` on `gpu`, the largest micro-batch at its sequence and the largest sequence at its
    micro-batch (each a full estimate)."""

    def headroom(batch: int, context: int) -> Bytes:
        return estimate_memory(model, replace(w, batch=batch, context=context), gpu).headroom_bytes(gpu)

    spare = headroom(w.batch, w.context)
    largest_batch = largest(lambda b: headroom(b, w.context) >= ZERO, MAX_BATCH)
    largest_ctx = largest_context(lambda c: headroom(w.batch, c) >= ZERO, model.max_context, SEQ_STEP)
    return FitLimits(fits=spare >= ZERO, spare=spare, largest_batch=largest_batch,
                     largest_context=largest_ctx, batch=w.batch, context=w.context)
