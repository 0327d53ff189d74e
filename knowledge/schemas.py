"""Schemas of the catalogs (frozen structs, knowledge.structs). SI units throughout: bytes, bytes/s, FLOP/s, watts.

Every numeric field of a catalog entry must be cited: `cite` maps the field name to one or more
ids of the sources registry (`data/sources/*.yaml`). The loader (`knowledge.catalog`) checks that every
citation resolves.
GPU memory capacity is stored in bytes of the binary size the vendor names ("80 GB" HBM is 80 GiB
of addressable memory as nvidia-smi reports it, 81920 MiB on an A100 80GB).
"""


# No `from __future__ import annotations` here: the structs' field annotations are then evaluated by this
# module's byte-code when the classes are made, not compiled from text on every start
# (knowledge.structs._resolve_annotations: ≈ 40 µs per annotation); names defined later are quoted.

import datetime as dt
from typing import Annotated, Literal

from knowledge.quantities import Bytes, Currency
from knowledge.structs import Frozen, Meta, NonNegativeFloat, PositiveFloat, PositiveInt, fields

# lowercase letters, digits, '.' and '-' (e.g. "rtx-4090", "qwen2.5-72b"); equal to the file stem in the catalog
Slug = Annotated[str, Meta(pattern=r"^[a-z0-9][a-z0-9.\-]*$")]


class Strict(Frozen):
    """Base of the catalog's entries: frozen, validated, unknown fields refused."""


class Source(Strict):
    """One entry of the sources registry."""

    id: str
    title: str
    url: str | None = None
    document: str | None = None  # a file in ../shared/seeds or a paper, when there is no URL
    retrieved: dt.date | None = None
    published: dt.date | None = None  # publication date of the page or document, where known
    kind: str = "reference"  # datasheet, whitepaper, guide, paper, measurement, secondary, …
    via: str | None = None  # where the citation was found (e.g. reference/gpus_reference.json)
    note: str = ""

    def check_invariants(self) -> None:
        if not (self.url or self.document):
            raise ValueError("a source needs a url or a document")


class Price(Strict):
    """A dated price for one card (not a server)."""

    amount: PositiveFloat
    currency: Currency
    date: dt.date
    kind: Literal["launch_msrp", "street", "used", "channel", "server_share"] = "street"
    note: str = ""
    source: str

    @property
    def condition(self) -> Literal["new", "used", "street"]:
        """What the figure prices: a new card at list price (launch MSRP), a used card, or a new card at a street
        or channel price (a market estimate that moves with supply)."""
        return "used" if self.kind == "used" else "new" if self.kind == "launch_msrp" else "street"


# source kinds -> how far a price or market fact resting on them can be trusted (DESIGN.md's `reliability`)
_HIGH_RELIABILITY = frozenset({"datasheet", "whitepaper", "documentation", "docs", "specification", "filing",
                               "vendor", "database", "config", "model-card", "paper", "measurement"})


def source_reliability(kind: str) -> Literal["high", "medium", "low"]:
    """"low" for kinds the registry marks '-low' (expert-call minutes, unverified compilations) and for blogs,
    guides and assumptions; "high" for vendor documents, filings, databases and papers; "medium" otherwise
    (press, secondary compilations, quotes)."""
    if kind.endswith("-low") or kind in ("blog", "guide", "assumption", "user-input"):
        return "low"
    return "high" if kind in _HIGH_RELIABILITY else "medium"


class CloudPrice(Strict):
    """An hourly rental price per GPU, as a dated source listed it.

    A quote from a mainland-China provider (`region: cn`) keeps the figure it was listed in as `cny_per_hour`;
    `usd_per_hour` then holds it converted at economics.yaml's exchange rate (a test checks the two agree), so every
    reader of `usd_per_hour` keeps working and a CNY cost uses the listed yuan figure."""

    usd_per_hour: PositiveFloat
    provider: str
    tier: Literal["on_demand", "spot", "serverless", "reserved"] = "on_demand"
    region: Literal["cn", "global"] = "global"  # cn: capacity sold in mainland China, billed in CNY
    cny_per_hour: PositiveFloat | None = None  # the quote as listed, when the source gives it in CNY
    date: dt.date
    note: str = ""
    source: str

    def check_invariants(self) -> None:
        if self.region == "cn" and self.cny_per_hour is None:
            raise ValueError("a China (region cn) cloud quote needs cny_per_hour, the figure as listed")


class ChinaMarket(Strict):
    """Dated facts about selling the card into mainland China (not legal advice)."""

    status: Literal["available", "restricted", "licence_required", "china_variant", "not_sold"]
    restricted_since: dt.date | None = None
    built_for_china: bool = False
    china_variant_of: str | None = None  # gpu id of the card this one replaces in China
    china_substitute: str | None = None  # gpu id of the China-market variant offered instead (may itself be dated)
    substitutes: tuple[str, ...] = ()  # every China-market variant of this card, oldest first
    as_of: dt.date
    note: str = ""
    source: list[str]


Architecture = Literal[
    "volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna2", "cdna3", "cdna4", "rdna3", "rdna3.5", "davinci",
    "apple-m1", "apple-m2", "apple-m3", "apple-m4", "apple-m5", "gaudi3"
]
# GPUs in one job at most: the largest training clusters reported (100k–200k accelerators) are sized; beyond, no
# count. Servers at most: that many GPUs in 8-GPU servers. Read by advisor.workload and rules.facts alike.
MAX_CLUSTER_GPUS = 131_072
MAX_CLUSTER_NODES = MAX_CLUSTER_GPUS // 8
# architectures with FP4 matrix units (NVIDIA Blackwell: NVFP4/MXFP4; AMD CDNA 4: MXFP4); elsewhere FP4 is weight-only
FP4_ARCHITECTURES = ("blackwell", "cdna4")
# the software stack a card runs: what decides which engines and formats are available (knowledge/data/stacks.yaml)
Stack = Literal["cuda", "rocm", "cann", "metal", "synapseai"]
_VENDOR_STACK: dict[str, Stack] = {"NVIDIA": "cuda", "AMD": "rocm", "Huawei": "cann", "Apple": "metal",
                                   "Intel": "synapseai"}
Segment = Literal["consumer", "workstation", "datacenter"]
# whether a company can buy the card new today: "sold" (in production or in the vendor's current line-up),
# "end_of_life" (discontinued or dropped from current software support; new stock only by chance, mostly used),
# "used_only" (exists only second-hand: community memory mods, bare modules pulled from retired servers)
Availability = Literal["sold", "end_of_life", "used_only"]
# the layer layout a model's tensors follow (knowledge.params)
Block = Literal["llama", "gpt", "bloom", "opt", "chatglm", "deepseek", "gemma2", "phi3", "neox"]


class UnifiedMemory(Strict):
    """A machine whose CPU and GPU share one memory pool (Apple silicon, DGX Spark, Ryzen AI Max).

    `GpuSpec.memory_bytes` of such a machine is the share its GPU may use by default (`gpu_bytes`), not the pool;
    `max_gpu_bytes` is what a documented setting raises it to (macOS `iogpu.wired_limit_mb`, the BIOS/driver
    carve-out on Ryzen AI Max), leaving the operating system the rest."""

    total_bytes: PositiveInt  # the machine's whole memory pool
    gpu_bytes: PositiveInt  # what the GPU may use by default (= GpuSpec.memory_bytes)
    gpu_rule: str  # how gpu_bytes follows from total_bytes, e.g. "3/4 of the pool above 36 GB (macOS default)"
    max_gpu_bytes: PositiveInt | None = None  # the most a documented setting gives the GPU
    setting: str = ""  # the setting that raises the share
    source: list[str]

    def check_invariants(self) -> None:
        if self.gpu_bytes > self.total_bytes:
            raise ValueError("gpu_bytes exceeds total_bytes")
        if self.max_gpu_bytes is not None and not (self.gpu_bytes <= self.max_gpu_bytes <= self.total_bytes):
            raise ValueError("max_gpu_bytes must lie between gpu_bytes and total_bytes")


class GpuSpec(Strict):
    id: Slug
    name: str
    aliases: tuple[str, ...] = ()
    vendor: Literal["NVIDIA", "AMD", "Huawei", "Apple", "Intel"]
    architecture: Architecture
    segment: Segment
    launch_year: PositiveInt | None = None  # None for community mods
    # soc: a whole computer (Apple Mac, DGX Spark, Ryzen AI Max machine) — one per machine, no PCIe slot to fill;
    # superchip: a GPU of a Grace superchip (GB200/GB300), sold only in racks
    interface: Literal["pcie", "sxm", "oam", "soc", "superchip"] = "pcie"
    memory_bytes: PositiveInt
    memory_type: str
    bandwidth_bytes_per_s: PositiveFloat
    bf16_dense_flops: Annotated[PositiveFloat, Meta(description="dense tensor BF16 with FP32 accumulate; FP16 (FP32 accumulate) where the card has no BF16")]
    fp16_acc_dense_flops: PositiveFloat | None = None  # FP16 with FP16 accumulate, where it differs
    fp8_dense_flops: PositiveFloat | None = None  # dense FP8, FP32 accumulate where the vendor distinguishes
    fp8_fp16_acc_dense_flops: PositiveFloat | None = None  # dense FP8 with FP16 accumulate (GeForce Ada/Blackwell)
    fp4_dense_flops: PositiveFloat | None = None
    tf32_dense_flops: PositiveFloat | None = None
    int8_dense_ops: PositiveFloat | None = None
    fp32_flops: PositiveFloat  # non-tensor FP32
    tdp_w: PositiveFloat
    nvlink_bytes_per_s: NonNegativeFloat = 0.0  # total both directions per GPU; 0 when none
    nvlink: str = "none"  # human description: "2-way bridge", "NVLink 4 via NVSwitch", …
    link_kind: Literal["none", "nvlink-bridge", "nvlink-switch", "infinity-fabric", "hccs", "roce"] = "none"
    nvlink_domain: PositiveInt | None = None  # GPUs on one NVLink switch domain beyond a server (NVL72: 72)
    pcie_gen: PositiveInt
    form_factor: str
    supports_bf16: bool
    supports_fp8: bool
    supports_flash_attention_2: bool
    modded: bool = False  # community memory mod (2080 Ti 22G): no vendor warranty
    availability: Availability = "sold"  # cited in `cite["availability"]` where not "sold"
    availability_note: str = ""  # why, with the date, in words
    software_stack: Stack | None = None  # None: the vendor's (NVIDIA cuda, AMD rocm, Huawei cann, …); see `stack`
    unified_memory: UnifiedMemory | None = None  # set for machines whose GPU shares the system memory
    max_per_node: PositiveInt | None = None  # most cards one server holds (1 for a machine); None: the search's 8
    # an inference part (Huawei Atlas 300I: "inference card" in its datasheet): never sized for a training job
    inference_only: bool = False
    china: ChinaMarket
    prices: tuple[Price, ...] = ()
    unpriced: str = ""  # why `prices` is empty: what was searched for and not found (said instead of a price)
    cloud: tuple[CloudPrice, ...] = ()
    estimated: tuple[str, ...] = ()  # fields derived or estimated rather than printed by the vendor
    basis: str = ""  # how the compute figures were obtained
    confidence: str = ""
    notes: str = ""
    cite: dict[str, list[str]]

    def check_invariants(self) -> None:
        self._cite_names_fields()
        self._every_number_is_cited()
        if self.availability != "sold" and not (self.cite.get("availability") and self.availability_note):
            raise ValueError(f"availability '{self.availability}' needs cite['availability'] and availability_note")
        if self.unified_memory is not None and self.unified_memory.gpu_bytes != self.memory_bytes:
            raise ValueError("memory_bytes of a unified-memory machine must equal unified_memory.gpu_bytes")
        if self.fp4_dense_flops is not None and self.architecture not in FP4_ARCHITECTURES:
            raise ValueError("fp4_dense_flops given for a card without FP4 matrix units (Blackwell, CDNA 4)")

    def _cite_names_fields(self) -> None:
        unknown = set(self.cite) - set(fields(type(self)))
        if unknown:
            raise ValueError(f"cite names unknown fields {sorted(unknown)}")
        unknown = set(self.estimated) - set(fields(type(self)))
        if unknown:
            raise ValueError(f"estimated names unknown fields {sorted(unknown)}")

    @property
    def memory(self) -> Bytes:
        """`memory_bytes` as Bytes: what the layers above compare and show (GiB or GB named)."""
        return Bytes(self.memory_bytes)

    @property
    def stack(self) -> Stack:
        """The software stack the card runs (explicit, else the vendor's)."""
        return self.software_stack or _VENDOR_STACK[self.vendor]

    @property
    def server_card(self) -> bool:
        """A data-centre card (not a whole machine): bought by the server, scaled by adding more of it."""
        return self.segment == "datacenter" and not self.is_machine

    @property
    def scale_up(self) -> bool:
        """The server's cards share a switched card-to-card fabric (NVLink switch, Infinity Fabric, Ascend HCCS):
        a model split over servers then crosses the scale-out network only between whole baseboards."""
        return self.link_kind in ("nvlink-switch", "infinity-fabric", "hccs")

    @property
    def is_machine(self) -> bool:
        """A whole computer with unified memory (counted in machines, not cards; no tensor parallel across them)."""
        return self.interface == "soc" or self.unified_memory is not None

    def price(self, currency: str, condition: Literal["new", "used", "any"] = "any") -> Price | None:
        """The newest per-card price in `currency` for `condition`: "new" — the newest street or channel price,
        else the launch MSRP; "used" — the newest used-card price; "any" — the newest street, channel or used
        price, else the launch MSRP. Server shares are never returned."""
        mine = [p for p in self.prices if p.currency == currency]
        if condition == "used":
            used = [p for p in mine if p.kind == "used"]
            return max(used, key=lambda p: p.date) if used else None
        kinds = ("street", "channel") if condition == "new" else ("street", "channel", "used")
        market = [p for p in mine if p.kind in kinds]
        if market:
            return max(market, key=lambda p: p.date)
        launch = [p for p in mine if p.kind == "launch_msrp"]
        return max(launch, key=lambda p: p.date) if launch else None

    def _every_number_is_cited(self) -> None:
        numeric = {
            name
            for name, info in fields(type(self)).items()
            if name not in {"launch_year", "pcie_gen", "max_per_node"} and getattr(self, name) is not None
            and isinstance(getattr(self, name), (int, float)) and not isinstance(getattr(self, name), bool)
        }
        if self.nvlink_bytes_per_s == 0:
            numeric.discard("nvlink_bytes_per_s")
        missing = numeric - set(self.cite)
        if missing:
            raise ValueError(f"no citation for {sorted(missing)}")


class QuantCheckpoint(Strict):
    """A published quantised checkpoint of a model: what a 4-bit/8-bit answer serves (launch hints)."""

    format: Literal["awq-int4", "gptq-int4", "gptq-int8", "fp8", "q4_k_m", "q5_k_m", "q8_0"]
    repo: str  # Hugging Face repository id
    file: str | None = None  # GGUF: the file (or first shard) inside the repository
    source: str


class LinearAttention(Strict):
    """Linear-attention (Gated DeltaNet) layers of a hybrid model (Qwen3-Next): a fixed-size recurrent state per
    sequence instead of a KV cache. Keys as in HF `Qwen3NextConfig` (linear_num_key_heads, …)."""

    num_key_heads: PositiveInt
    num_value_heads: PositiveInt
    key_head_dim: PositiveInt
    value_head_dim: PositiveInt
    conv_kernel: PositiveInt = 4


class ModelSpec(Strict):
    """Architecture at Hugging Face config.json level, normalised across model families.

    `head_dim` is always filled (hidden_size // heads when the config omits it). For MLA models
    (DeepSeek-V2/V3) the attention fields are the MLA ranks; `num_kv_heads` equals `num_attention_heads`.
    """

    id: Slug
    name: str
    aliases: tuple[str, ...] = ()
    family: str
    hf_repo: str | None = None
    # the instruction-tuned checkpoint of the same architecture, when `hf_repo` is a base model: what a chat
    # service serves (launch hints); its memory and speed are those of `hf_repo`
    hf_repo_chat: str | None = None
    model_type: str
    block: Block = "llama"
    hidden_size: PositiveInt
    num_layers: PositiveInt
    num_attention_heads: PositiveInt
    num_kv_heads: PositiveInt
    head_dim: PositiveInt
    intermediate_size: PositiveInt  # dense MLP width (per expert for Mixtral-style MoE without dense layers)
    vocab_size: PositiveInt
    tie_word_embeddings: bool = False
    max_context: PositiveInt
    # tokens per sequence to size for when the user gives none (reasoning models write long answers); None: the
    # workload default (advisor.workload.DEFAULT_CONTEXT). Cited under cite.default_context.
    default_context: PositiveInt | None = None
    quantized: tuple[QuantCheckpoint, ...] = ()  # published quantised checkpoints (cited per entry)
    hidden_act: str = "silu"
    gated_mlp: bool = True  # SwiGLU/GeGLU: three matrices; GPT-style MLP: two
    attention_bias: bool = False
    qk_norm: bool = False
    norms_per_layer: PositiveInt = 2
    o_proj_bias: bool = False  # bias on the attention output projection (gpt-oss, GPT-NeoX, StarCoder2)
    # biases on the MLP's projections; None: the family default (gated MLPs none, GPT-style two-matrix MLPs both)
    mlp_bias: bool | None = None
    lm_head_bias: bool = False  # Phi-2
    norm_bias: bool = False  # LayerNorm with a bias (GPT-NeoX, StarCoder2, Falcon, Phi-2)
    attention_sinks: bool = False  # one learned sink logit per head and layer (gpt-oss)
    # per_head: RMSNorm(head_dim) on q and k (Qwen3, Gemma 3); per_layer: RMSNorm over all heads' q and k (OLMo-2,
    # MiniMax-M2); weightless: L2 norm without parameters (Llama 4)
    qk_norm_kind: Literal["per_head", "per_layer", "weightless"] = "per_head"
    # MoE
    n_routed_experts: int = 0
    n_shared_experts: int = 0
    experts_per_token: int = 0
    moe_intermediate_size: int | None = None
    first_k_dense: int = 0  # leading layers with a dense MLP instead of experts
    moe_layer_step: PositiveInt = 1  # after first_k_dense, every k-th layer is MoE, the others dense (Llama 4 Maverick: 2)
    shared_expert_intermediate_size: int | None = None  # when the shared expert's width is not moe_intermediate_size
    shared_expert_gate: bool = False  # a sigmoid gate Linear(hidden, 1) on the shared expert (Qwen2-MoE, Qwen3-Next)
    expert_bias: bool = False  # biases on every expert's projections (gpt-oss)
    router_bias: bool = False  # a bias (or DeepSeek's e_score_correction_bias) on the router
    mtp_layers: int = 0  # multi-token-prediction modules in the checkpoint (num_nextn_predict_layers); not counted
    # MLA (DeepSeek)
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None
    # sliding-window attention
    sliding_window: int | None = None
    # which layers are local: all, every other (Gemma-2, gpt-oss), or all but every `global_layer_every`-th (Gemma 3:
    # 6, Llama 4: 4)
    sliding_window_layers: Literal["none", "all", "alternate", "pattern"] = "none"
    global_layer_every: PositiveInt | None = None
    local_attention: Literal["sliding", "chunked"] = "sliding"  # chunked (Llama 4): attends within its chunk only
    # hybrid linear attention (Qwen3-Next): every `global_layer_every`-th layer is full attention, the rest linear
    linear_attention: LinearAttention | None = None
    # DeepSeek-V3.2 sparse attention: the lightning indexer's heads and key dimension (its key cache is per token)
    indexer_heads: int | None = None
    indexer_head_dim: int | None = None
    native_dtype: Literal["float32", "bfloat16", "float16", "fp8", "mxfp4", "int4-experts"] = "bfloat16"
    rope_theta: PositiveFloat | None = None
    position_embedding: Literal["rope", "learned", "alibi"] = "rope"
    # published figures to check the computed counts against
    published_params: PositiveInt | None = None
    published_params_exact: bool = False
    published_params_nominal: bool = False  # only the size in the model's name is published ("13B")
    published_params_buffers: int = 0  # non-parameter tensors included in the published count (GPT-2 attn.bias)
    published_non_embedding_params: PositiveInt | None = None  # exact, where a paper gives it (Gemma-2)
    published_active_params: PositiveInt | None = None
    # what the published active count leaves out: gpt-oss counts active parameters without the embedding, GLM-4.5
    # and Qwen3-Next without the embedding and the output head
    published_active_scope: Literal["all", "no_embedding", "no_embedding_no_head"] = "all"
    published_params_text: str = ""  # the figure as the source states it ("7B", "46.7B total / 12.9B active")
    # the tokens the model was pre-trained on, as its makers published them ("pre-train DeepSeek-V3" defaults to these)
    pretrain_tokens: PositiveFloat | None = None
    # the GPU-hours its makers published for that pre-training and the catalog card they ran on: a reference an
    # estimate for those tokens is shown against (firstscreen.published_run), never an input to it
    pretrain_gpu_hours: PositiveFloat | None = None
    pretrain_gpu: str | None = None
    config_verbatim: bool = False  # architecture taken from a verbatim copy of the HF config.json
    notes: str = ""
    cite: dict[str, list[str]]

    def check_invariants(self) -> None:
        if "architecture" not in self.cite:
            raise ValueError("cite needs an 'architecture' entry")
        if self.default_context is not None and "default_context" not in self.cite:
            raise ValueError("no citation for default_context")
        if self.default_context is not None and self.default_context > self.max_context:
            raise ValueError("default_context exceeds max_context")
        if (self.pretrain_gpu_hours is None) != (self.pretrain_gpu is None):
            raise ValueError("pretrain_gpu_hours and pretrain_gpu go together")
        if self.pretrain_gpu_hours is not None and self.pretrain_tokens is None:
            raise ValueError("pretrain_gpu_hours needs the pretrain_tokens it was published for")
        for name in ("published_params", "published_active_params", "published_non_embedding_params", "pretrain_tokens",
                     "pretrain_gpu_hours"):
            if getattr(self, name) is not None and name not in self.cite:
                raise ValueError(f"no citation for {name}")
        if self.is_moe and not (0 < self.experts_per_token <= self.n_routed_experts):
            raise ValueError("experts_per_token must be between 1 and n_routed_experts")
        if self.first_k_dense >= self.num_layers:
            raise ValueError("first_k_dense must be smaller than num_layers")
        if self.num_attention_heads % self.num_kv_heads:
            raise ValueError("num_attention_heads must be a multiple of num_kv_heads")
        if (self.sliding_window_layers == "pattern" or self.linear_attention) and not self.global_layer_every:
            raise ValueError("a layer pattern or linear attention needs global_layer_every")

    @property
    def is_moe(self) -> bool:
        return self.n_routed_experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def moe_layers(self) -> int:
        """Layers with experts: after the first `first_k_dense`, every `moe_layer_step`-th (HF: (i + 1) % step == 0)."""
        if not self.is_moe:
            return 0
        return (self.num_layers - self.first_k_dense) // self.moe_layer_step

    @property
    def global_layers(self) -> int:
        """Layers that attend over the whole context (and keep a full KV cache)."""
        if self.linear_attention is not None or self.sliding_window_layers == "pattern":
            return self.num_layers // (self.global_layer_every or 1)
        if self.sliding_window is None or self.sliding_window_layers == "none":
            return self.num_layers
        if self.sliding_window_layers == "all":
            return 0
        return self.num_layers // 2  # alternate: local first (Gemma-2 and gpt-oss start with a sliding layer)

    @property
    def linear_layers(self) -> int:
        """Linear-attention layers (fixed-size state, no KV cache)."""
        return self.num_layers - self.global_layers if self.linear_attention is not None else 0
