"""LoRA / QLoRA under FSDP FULL_SHARD, as Answer.AI's fsdp_qlora wraps the model [answerai-fsdp-qlora-train]: the
(4-bit) frozen base is sharded over the GPUs, so a 70B QLoRA that needs ~37 GiB of NF4 weights on one card needs
half of that on each of two [answerai-fsdp-qlora-post].

Per GPU, N data-parallel ranks, one FSDP unit per decoder layer and a root unit (embedding, final norm, lm_head):

    resident base   = 4-bit storage / N        0 with CPUOffload(offload_params=True): the shards live in host RAM
                      + the quantisation constants (absmax, double-quantised: 0.127 bits/param [qlora-paper])
                      on every GPU: bitsandbytes keeps them in each Linear4bit's quant_state, module state that
                      FSDP neither shards nor offloads (Answer.AI had to preserve it through sharding)
    gathered        = root unit in 16-bit (FSDP keeps the root unsharded from its forward to its backward)
                      + 2 decoder layers in the base format (limit_all_gathers: the running unit and one prefetched)
                      × (1 + 1/N) with CPU offload: the unit's shard is first copied to the GPU, then all-gathered
                      beside it, both live until the unit reshards [torch-fsdp1-flat-param]
    dequantised     = the largest quantised matrix in bf16 (bitsandbytes dequantises one matrix at a time)
    adapters        = (2 + 2 + K) B × trainable / N   bf16 adapters and gradients, K = optimizer bytes
                      (host RAM with CPU offload, where the optimizer step then runs)

Host RAM with CPU offload, per node: the node's GPUs' shards of the base and the adapters' states.
Activations (gradient checkpointing per decoder layer) come from the HF step model (hf_training); the published
runs' peaks (answerai-fsdp-qlora-benchmarks) are the validation, tests/test_fsdp_qlora_published.py.
"""

from __future__ import annotations

from advisor.estimator import training_memory as tm
from advisor.estimator.formats import FORMATS, weight_bytes, weight_bytes_by_group
from advisor.estimator.results import Breakdown
from advisor.workload import Workload
from knowledge.quantities import memory_text
from knowledge.schemas import ModelSpec
from knowledge.structs import Value

GATHERED_LAYERS = 2  # limit_all_gathers=True: at most the running unit and one prefetched unit are unsharded


class AdapterShards(Value):
    weights: float
    gradients: float
    optimizer: float
    cpu: Breakdown
    trainable: int
    formulas: list[str]
    assumptions: list[str]


def _gib(x: float) -> str:
    return memory_text(x, "GiB", 2)


def root_unit_bytes(m: ModelSpec, fmt: str) -> float:
    """The root unit's parameters in their stored format: embedding, position embedding, final norm, lm_head
    (bitsandbytes skips the lm_head, so all stay 16-bit)."""
    groups = weight_bytes_by_group(m, fmt)
    per_layer_norms = 2 * m.hidden_size * 2 * m.num_layers  # two norms per block, bf16: belong to the blocks
    return sum(groups.get(g, 0) for g in ("embedding", "position", "lm_head")) + max(
        0.0, groups.get("norm", 0) - per_layer_norms)


def fsdp_adapter_states(m: ModelSpec, w: Workload, fmt: str, dp: int) -> AdapterShards:
    """Per-GPU model states of (Q)LoRA under FSDP FULL_SHARD over `dp` ranks, with host RAM under CPU offload
    (module doc)."""
    offload = w.offload == "all"
    base = weight_bytes(m, fmt)
    root = root_unit_bytes(m, fmt)
    layer = (base - root) / m.num_layers
    trainable = tm.lora_params(m, w.lora_rank, w.lora_targets)
    qlora = w.task == "qlora"
    ab = 2 if qlora else 4  # QLoRA: bf16 adapters (fsdp_qlora precision bf16); LoRA: PEFT's fp32 adapters
    k = tm.OPTIMIZER_K_FP32[w.optimizer]
    constants = 0.0
    if qlora and FORMATS[fmt].family == "bnb":  # bitsandbytes: absmax constants beside the packed 4-bit storage
        quantised = sum(la.d_in * la.d_out * la.count for la in tm.lora_targets(m, "all-linear"))
        constants = quantised * (FORMATS[fmt].bits - 4) / 8
    resident = (0.0 if offload else (base - constants) / dp) + constants
    copies = 1 + 1 / dp if offload else 1.0  # CPU offload: the shard's GPU copy beside the gathered unit
    gathered = (root + GATHERED_LAYERS * layer) * copies
    deq = 2 * max(la.d_in * la.d_out for la in tm.lora_targets(m, "all-linear")) if qlora else 0.0
    adapters = (ab + ab + k) * trainable / dp
    on_gpu = 0.0 if offload else 1.0
    weights_b = resident + gathered + deq + on_gpu * ab * trainable / dp
    grads_b = on_gpu * ab * trainable / dp
    opt_b = on_gpu * k * trainable / dp
    formulas = [
        f"FSDP FULL_SHARD of the frozen {fmt} base over {dp} GPUs: "
        + ("shards in host RAM (CPU offload of parameters)" if offload
           else f"({_gib(base)} − constants) / {dp}") + f" + quantisation constants on every GPU {_gib(constants)}"
        + f" = {_gib(resident)} per GPU",
        f"gathered: root unit (embedding, final norm, lm_head in 16-bit) {_gib(root)} + {GATHERED_LAYERS} decoder "
        f"layers × {_gib(layer)} (limit_all_gathers)" + (f" × (1 + 1/{dp}) shard copies" if offload else "")
        + f" = {_gib(gathered)}",
        f"LoRA adapters r = {w.lora_rank} on {w.lora_targets}: {trainable / 1e6:.2f}M params × ({ab} + {ab} + {k}) B "
        f"/ {dp} = {_gib(adapters)}" + (" in host RAM" if offload else " per GPU"),
    ]
    if qlora:
        formulas.append(f"+ dequantisation buffer of the largest matrix in bf16 = {_gib(deq)}")
    assumptions = [
        "FSDP + QLoRA as Answer.AI's fsdp_qlora runs it (FULL_SHARD, one unit per decoder layer, "
        "limit_all_gathers, bitsandbytes 4-bit storage in the FSDP parameter dtype, gradient checkpointing)"
        if qlora else "FSDP FULL_SHARD of a LoRA model (one unit per decoder layer, limit_all_gathers)",
    ]
    cpu = Breakdown()
    if offload:
        per_node = w.gpus
        cpu = Breakdown(weights=(base + ab * trainable) * per_node / dp, gradients=ab * trainable * per_node / dp,
                        optimizer_states=k * trainable * per_node / dp)
        assumptions.append("CPU offload of parameters (FSDP CPUOffload(offload_params=True)): every shard and the "
                           "adapters' optimizer step live in host RAM, each layer is copied to the GPUs when it runs; "
                           "Answer.AI's 70B runs on 2 × 24 GB cards used it (benchmarks_03_2024), and loading a 70B "
                           "model filled 128 GB of host RAM at start-up (they added swap)")
    return AdapterShards(weights_b, grads_b, opt_b, cpu, trainable, formulas, assumptions)

