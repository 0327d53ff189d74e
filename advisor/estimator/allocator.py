"""PyTorch's CUDA caching allocator: what it reserves beyond what is allocated (a stated model, with its limits).

An out-of-memory error is raised against *reserved* memory (``torch.cuda.max_memory_reserved``), not allocated.
How the allocator works (c10/cuda/CUDACachingAllocator.cpp) [torch-caching-allocator]:

* requests ≤ 1 MiB come from a small pool of 2 MiB segments; 1–10 MiB requests open 20 MiB segments; larger ones
  open a segment of the request rounded up to 2 MiB (block sizes themselves round to 512 B);
* a freed block stays cached in its segment; a request takes the smallest cached block that fits (best fit) and
  splits it; free neighbours in one segment merge, blocks of different segments never do; nothing returns to the
  driver without ``empty_cache``.

So reserved = the peak of (live + cached blocks no request could use). The largest transients of a training step
are the loss buffers (tokens × vocabulary); the model below counts the cached blocks they leave:

* adapters (LoRA/QLoRA) and other small trainable states: the bf16 logits' block (2 B × tokens × vocab) stays cached
  while the three fp32 loss buffers are live, and the bf16 gradient of the logits opens one more of that size
  when the cached one has been split: 4 B × tokens × vocab;
* full fine-tuning: the gradients and optimizer states made after the first loss phase are placed in the freed
  loss blocks, so the next step's fp32 upcast cannot reuse them either: 8 B × tokens × vocab (every loss buffer
  in a segment of its own: 20 B allocated over the phase against 12 B live at its peak);
* fragmentation by the rest of the step: with checkpointing, a fraction of one layer's recomputed working set
  (blocks freed between layers that the next layer's differently sized tensors only partly reuse); without it,
  a fraction of the saved activations (thousands of blocks of a dozen sizes).

Limits: the two fractions (``memory`` in knowledge/data/calibration.yaml) were set on the eight in-sample H200 runs of
``tests/data/measured`` (transformers 5.17, torch 2.11, fused AdamW, 4 steps) and checked on four held out; the
reserve of other allocator settings (``expandable_segments:True`` removes most of it), other torch versions, or a
longer run after ``empty_cache`` is not measured. Inference with HF's DynamicCache: every decode step
``torch.cat``s each layer's keys and values into new, one-token-longer blocks, so up to one more copy of the cache
sits in cached blocks.
"""

from __future__ import annotations

from advisor.estimator.calibration import load_calibration
from knowledge.errors import CatalogError
from knowledge.structs import Value

MIB = 2**20
SMALL_REQUEST = 1 * MIB  # ≤ this: small pool (2 MiB segments)
MID_REQUEST = 10 * MIB  # ≤ this: 20 MiB segments
ROUND_LARGE_SEGMENT = 2 * MIB
LOSS_CACHED_BYTES = {"adapter": 4, "full": 8}  # per token × vocabulary entry


def segment_bytes(request: int) -> int:
    """Bytes the allocator reserves from the driver for a request that no cached block serves."""
    if request <= SMALL_REQUEST:
        return 2 * MIB
    if request <= MID_REQUEST:
        return 20 * MIB
    return -(-request // ROUND_LARGE_SEGMENT) * ROUND_LARGE_SEGMENT


class ReserveShares(Value):
    """The measured constants of the reserve (calibration.yaml `memory`, with their sources)."""

    layer_working: float  # share of one checkpointed layer's working set left in unusable cached blocks
    saved_activations: float  # ... of the saved activations without checkpointing
    cublas_workspace: float  # bytes of cuBLAS/cuBLASLt workspaces


class Reserve(Value):
    loss_cached: float
    fragmentation: float
    formula: str

    @property
    def total(self) -> float:
        return self.loss_cached + self.fragmentation


def training_reserve(shares: ReserveShares, *, tokens: int, vocab: int, full: bool, checkpointing: bool,
                     layer_working: float, saved_activations: float) -> Reserve:
    """Reserved − allocated at a training step's peak (module doc): loss-buffer blocks + fragmentation."""
    per = LOSS_CACHED_BYTES["full" if full else "adapter"]
    loss = per * tokens * vocab
    if checkpointing:
        frac = shares.layer_working
        frag = frac * layer_working
        frag_text = f"{frac:g} × one recomputed layer's working set {_gib(layer_working)}"
    else:
        frac = shares.saved_activations
        frag = frac * saved_activations
        frag_text = f"{frac:g} × saved activations {_gib(saved_activations)}"
    formula = (f"allocator reserve (PyTorch caching allocator, cached blocks no request can reuse) = "
               f"{per} B × {tokens} tokens × {vocab} vocab (loss buffers' blocks) + {frag_text} = "
               f"{_gib(loss + frag)}")
    return Reserve(loss_cached=loss, fragmentation=frag, formula=formula)


def reserve_shares() -> ReserveShares:
    """The caching allocator's measured constants (knowledge/data/calibration.yaml `memory`)."""
    mem = load_calibration().memory
    if mem is None:
        raise CatalogError("calibration.yaml has no memory section (the allocator reserve)", field="memory")
    return ReserveShares(layer_working=mem.reserve_layer_working.value,
                         saved_activations=mem.reserve_saved_activations.value,
                         cublas_workspace=mem.cublas_workspace_bytes.value)


def dynamic_cache_reserve(kv_bytes: float) -> tuple[float, str]:
    """HF DynamicCache re-allocates every layer's keys and values each decode step (torch.cat): up to one more
    copy of the cache stays in cached blocks."""
    return kv_bytes, (f"allocator reserve = one more copy of the DynamicCache (torch.cat re-allocates it every "
                      f"decode step) = {_gib(kv_bytes)}")


def _gib(x: float) -> str:
    return f"{x / 2**30:.2f} GiB"
