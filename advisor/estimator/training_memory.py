"""Model states of training (weights, gradients, optimizer states), ZeRO partitioning and CPU offload.

Accounting of the ZeRO paper (Rajbhandari et al. 2019, arXiv 1910.02054, §3 and Figure 1) [zero-paper]:
mixed-precision Adam keeps 2Ψ fp16/bf16 weights, 2Ψ fp16/bf16 gradients and KΨ optimizer states with K = 12
(fp32 master weights, momentum, variance). Per GPU over N_d data-parallel ranks:
  stage 0: (2 + 2 + K)Ψ    stage 1: 4Ψ + KΨ/N_d    stage 2: 2Ψ + (2 + K)Ψ/N_d    stage 3: (2 + 2 + K)Ψ/N_d
ZeRO-3 also gathers one layer at a time in 16-bit, with its gradient: 4·(largest layer params) per GPU, as in
DeepSpeed's estimator [deepspeed-memory-doc].
Other optimizers (K): AdamW 12; 8-bit AdamW (bitsandbytes) 4 + 2 = 6; SGD with momentum 4 + 4 = 8; pure-bf16
AdamW (bf16 m and v, no master copy) 4 [hf-model-memory-anatomy, bnb-8bit-optim].
Offload (ZeRO-Offload / ZeRO-Infinity): DeepSpeed's estimator formulas, reproduced in :func:`deepspeed_zero2` and
:func:`deepspeed_zero3`, give the GPU and per-node CPU bytes; CPU figures include its 1.5 buffer factor.
"""

from __future__ import annotations

from knowledge.errors import InputError
from knowledge.params import Linear, linear_layers, param_counts
from knowledge.schemas import ModelSpec
from knowledge.structs import Value

# optimizer-state bytes per trainable parameter when training in mixed precision (fp32 master copy included)
OPTIMIZER_K_MIXED = {"adamw": 12, "adamw8bit": 6, "sgd": 8, "adamw-bf16": 4}
# ... when the weights themselves are fp32 (no master copy needed)
OPTIMIZER_K_FP32 = {"adamw": 8, "adamw8bit": 2, "sgd": 4, "adamw-bf16": 4}
DS_BUFFER_FACTOR = 1.5  # DeepSpeed estimator's additional_buffer_factor


class ModelStates(Value):
    weights: float
    gradients: float
    optimizer: float
    formula: str


def zero_model_states(psi: float, stage: int, dp: int, *, weight_bytes: float = 2, grad_bytes: float = 2,
                      k: float = 12, largest_layer: float = 0) -> ModelStates:
    """Per-GPU model-state bytes of Ψ (per model-parallel rank) trainable params under ZeRO `stage` over dp ranks."""
    if stage not in (0, 1, 2, 3):
        raise InputError(f"ZeRO stage {stage} is not defined", field="zero", accepted="0, 1, 2 or 3")
    w = weight_bytes * psi
    g = grad_bytes * psi
    o = k * psi
    if stage >= 1:
        o /= dp
    if stage >= 2:
        g /= dp
    gather = 0.0
    if stage == 3:
        w /= dp
        gather = 2 * largest_layer  # 16-bit copy of the gathered layer (its gradient goes to `gradients`)
        g += 2 * largest_layer
        w += gather
    names = {0: "(2+2+K)Ψ", 1: "(2+2)Ψ + KΨ/N_d", 2: "2Ψ + (2+K)Ψ/N_d", 3: "(2+2+K)Ψ/N_d + 4·largest layer"}
    formula = (f"model states (ZeRO-{stage}) = {names[stage]} with weights {weight_bytes:g} B, grads {grad_bytes:g} B,"
               f" K = {k:g} B/param, Ψ = {psi / 1e9:.4g}e9, N_d = {dp}")
    return ModelStates(w, g, o, formula)


# --- DeepSpeed's estimator (deepspeed/runtime/zero/stage_1_and_2.py and stage3.py), reproduced ------------------

def deepspeed_model_states(psi: float, stage: int, dp: int, largest_layer: float = 0) -> ModelStates:
    """Per-GPU model states as DeepSpeed's estimator counts them without offload, split by kind:
    stages 1–2 (`estimate_zero2_model_states_mem_needs`, stage_1_and_2.py): 4Ψ + 16Ψ/N = 2Ψ 16-bit weights +
    2Ψ 16-bit gradients + 4Ψ/N fp32 gradient partition + 12Ψ/N Adam states; stage 3
    (`estimate_zero3_model_states_mem_needs`): 18Ψ/N + 4·largest layer = (2 + 4 + 12)Ψ/N + the gathered layer's
    16-bit weights and gradients. Equal to :func:`deepspeed_zero2`/:func:`deepspeed_zero3`'s GPU figure."""
    if stage not in (1, 2, 3):
        raise InputError(f"DeepSpeed's estimator covers ZeRO stages 1–3, not {stage}", field="zero",
                         accepted="1, 2 or 3")
    if stage == 3:
        w, g = 2 * psi / dp + 2 * largest_layer, 4 * psi / dp + 2 * largest_layer
        formula = "model states (DeepSpeed ZeRO-3 estimator) = 18Ψ/N + 4·largest layer"
    else:
        w, g = 2 * psi, 2 * psi + 4 * psi / dp
        formula = f"model states (DeepSpeed ZeRO-{stage} estimator) = 4Ψ + 16Ψ/N"
    return ModelStates(w, g, 12 * psi / dp, formula + f", Ψ = {psi / 1e9:.4g}e9, N = {dp}")


def deepspeed_zero2(total_params: float, gpus_per_node: int, nodes: int = 1, *, offload_optimizer: bool = False,
                    buffer_factor: float = DS_BUFFER_FACTOR) -> tuple[int, int]:
    """(GPU bytes, CPU bytes per node) of `estimate_zero2_model_states_mem_needs`.

    offload: GPU 2P, CPU P·max(4·gpus, 16)·1.5; none: GPU 4P + 16P/gpus, CPU P·4·gpus_per_node·1.5.
    """
    total_gpus = gpus_per_node * nodes
    if offload_optimizer:
        gpu = 2 * total_params
        cpu = total_params * max(4 * total_gpus, 16) * buffer_factor
    else:
        gpu = 4 * total_params + int(16 * total_params / total_gpus)
        cpu = total_params * 4 * gpus_per_node * buffer_factor
    return int(gpu), int(cpu)


def deepspeed_zero3(total_params: float, largest_layer_params: float, gpus_per_node: int, nodes: int = 1, *,
                    offload_params: bool = False, offload_optimizer: bool = False, zero_init: bool = True,
                    buffer_factor: float = DS_BUFFER_FACTOR) -> tuple[int, int]:
    """(GPU bytes, CPU bytes per node) of `estimate_zero3_model_states_mem_needs`.

    GPU: 4·LLP (+ 2P/N with only the optimizer offloaded, + 18P/N with nothing offloaded).
    CPU: params+optimizer offloaded: P·18/nodes·1.5 (zero.Init) or P·max(4·gpus_per_node, 18/nodes)·1.5;
    optimizer only: 16 in place of 18; nothing offloaded: LLP·4·gpus_per_node·1.5 (zero.Init) or P·4·gpus_per_node·1.5.
    """
    total_gpus = gpus_per_node * nodes
    gpus_factor = 1 / nodes
    llm = 4 * largest_layer_params
    if offload_optimizer:
        per = 18 if offload_params else 16
        gpu = llm if offload_params else llm + int(2 * total_params / total_gpus)
        if zero_init:
            cpu = total_params * per * gpus_factor * buffer_factor
        else:
            cpu = total_params * max(4 * gpus_per_node, per * gpus_factor) * buffer_factor
    else:
        gpu = llm + int(18 * total_params / total_gpus)
        if zero_init:
            cpu = largest_layer_params * 4 * gpus_per_node * buffer_factor
        else:
            cpu = total_params * 4 * gpus_per_node * buffer_factor
    return int(gpu), int(cpu)


# --- FSDP2 and Megatron's distributed optimizer -------------------------------------------------------------

def fsdp2_model_states(m: ModelSpec, psi: float, dp: int) -> ModelStates:
    """PyTorch FSDP2 (``fully_shard`` per decoder layer and on the root, MixedPrecisionPolicy(param_dtype=bf16))
    [torch-fsdp2]: fp32 parameters, gradients and AdamW moments sharded, 16Ψ/N; all-gathered bf16 parameters of
    the root module (embedding, lm_head: kept unsharded by the root between forward and backward) and of two
    decoder layers (the current one and the prefetched one), and the unsharded bf16 gradients of the root and one
    layer before their reduce-scatter."""
    counts = param_counts(m)
    root = counts.embedding + counts.by_group.get("lm_head", 0)
    block = (counts.total - root) / m.num_layers
    w = 4 * psi / dp + 2 * (root + 2 * block)
    g = 4 * psi / dp + 2 * (root + block)
    formula = (f"model states (FSDP2) = 16Ψ/N + 2 B × (root {root / 1e6:.0f}M + 2 layers × {block / 1e6:.0f}M) "
               f"gathered + 2 B × (root + 1 layer) unsharded gradients, Ψ = {psi / 1e9:.4g}e9, N = {dp}")
    return ModelStates(w, g, 8 * psi / dp, formula)


def megatron_model_states(psi: float, dp: int, *, distributed: bool) -> ModelStates:
    """Megatron-LM with bf16 parameters and fp32 main gradients (``accumulate_allreduce_grads_in_fp32``): 2Ψ
    parameters + 4Ψ gradients + 12Ψ fp32 master weights and Adam moments, divided by the data-parallel size with
    the distributed optimizer: 6 + 12/d B/param (Megatron's distributed-optimizer table) [megatron-distrib-optimizer]."""
    o = 12 * psi / (dp if distributed else 1)
    formula = (f"model states (Megatron{' distributed optimizer' if distributed else ''}) = 2Ψ + 4Ψ + 12Ψ"
               f"{'/d' if distributed else ''}, Ψ = {psi / 1e9:.4g}e9, d = {dp}")
    return ModelStates(2 * psi, 4 * psi, o, formula)


# --- what is trained -----------------------------------------------------------------------------------------

ATTENTION_NAMES = frozenset({"q_proj", "k_proj", "v_proj", "o_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa",
                             "kv_b_proj"})


def lora_targets(m: ModelSpec, targets: str) -> list[Linear]:
    """Linear layers LoRA adapts: "attention" (q, k, v, o and MLA's projections) or "all-linear" (PEFT's: every
    linear of the blocks, experts included, lm_head excluded)."""
    out = []
    for layer in linear_layers(m):
        if layer.group not in ("attention", "mlp", "experts", "shared_experts"):
            continue
        if targets == "attention" and layer.name not in ATTENTION_NAMES:
            continue
        out.append(layer)
    return out


def lora_params(m: ModelSpec, rank: int, targets: str = "all-linear") -> int:
    """Adapter parameters: r·(d_in + d_out) per adapted matrix (A: d_in×r, B: r×d_out) [lora-paper]."""
    check_lora_rank(m, rank)
    return sum(rank * (layer.d_in + layer.d_out) * layer.count for layer in lora_targets(m, targets))


def check_lora_rank(m: ModelSpec, rank: int) -> None:
    if not 1 <= rank <= m.hidden_size:
        raise InputError.from_key("errors.lora_rank", field="lora_rank", accepted=f"1 to {m.hidden_size}", rank=rank,
                                  hidden=m.hidden_size)


FREEZE_TRAINABLE_LAYERS = 2  # LLaMA-Factory's freeze_trainable_layers default: the last 2 blocks [llamafactory-args]


def freeze_params(m: ModelSpec, layers: int = FREEZE_TRAINABLE_LAYERS) -> int:
    """Parameters of the last `layers` transformer blocks (freeze-tuning trains only those)."""
    counts = param_counts(m)
    per_block = (counts.total - counts.embedding - counts.by_group.get("lm_head", 0)) / m.num_layers
    return int(per_block * min(layers, m.num_layers))


def largest_layer_params(m: ModelSpec) -> int:
    """Parameters of the largest single module (DeepSpeed's `largest_layer_params`): usually the embedding or
    lm_head (vocab × hidden), or one MoE expert / MLP matrix."""
    return max(layer.d_in * layer.d_out + layer.bias for layer in linear_layers(m))
