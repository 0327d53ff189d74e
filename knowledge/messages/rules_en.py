"""English wording of the rules' findings (rules/*.py): the catalog's "rules" section, kept in its own small module so
that a command that renders findings loads only these (see knowledge/messages/__init__.py). "rules.<rule id>" is the
rule's template, formatted with the fact's fields and the display fields `rules.render` derives (`{gpu}`,
`{per_gpu_gib:.1f}`, `{kv_note}` …); a rule that shares a template names its key and fills its own words into it
(`rules.value`: "rules.value-rank" with "rules.value-rank.place.<rank>"). Keys and placeholders as in `rules_zh.py`,
same order."""

from __future__ import annotations

from collections.abc import Mapping

MESSAGES: Mapping[str, str | Mapping[str, str]] = {
    # --- the rules could not be evaluated (rules/engine.py) ------------------------------------------------------
    "rules.not_validated": "the rules could not be checked; this answer is not validated ({detail}); please try again",
    "rules.unknown_rule": "unknown rule '{rule_id}'{hint}",
    "rules.unknown_rule.hint": "; did you mean: {close}?",
    # --- a fact the caller asserted is invalid (rules/facts.py) ----------------------------------------------------
    "rules.fact.unknown_kind": "fact kind {kind!r} is not known",
    "rules.fact.invalid": "{kind} fact: {msg}",
    "rules.fact.not_a_value": "{kind} fact: field '{loc}': {got!r} is not a valid value",
    "rules.fact.required": "{kind} fact: field '{loc}' is required",
    "rules.fact.wrong_value": "{kind} fact: field '{loc}': {msg} (got {got!r})",
    "rules.fact.accepted": " (accepted: {accepted})",
    # --- display notes the templates share (rules/render.py) ------------------------------------------------------
    "rules.note.kv": " (of which {kv_gib:.1f} GiB is KV cache at {context:,} tokens)",
    "rules.note.computed": " (computed: {value:,g} {unit})",
    # --- sizing (rules/sizing.py) -----------------------------------------------------------------------------------
    "rules.sizing-does-not-fit": "Does not fit: the estimate needs {per_gpu_gib:.1f} GiB per GPU and the {gpu} has {memory_gib:.1f} GiB. "
        "Lower the precision, shorten the context or batch, shard across more GPUs, or pick a card with more "
        "memory.",
    "rules.sizing-low-headroom": "Tight: the estimate uses {per_gpu_gib:.1f} of {memory_gib:.1f} GiB per GPU, leaving {headroom_ratio:.0%}. "
        "Serving engines keep about a tenth free by default (vLLM's gpu_memory_utilization is 0.9), and "
        "fragmentation or a longer request can then run out of memory.",
    "rules.sizing-kv-dominates": "The KV cache is {kv_share:.0%} of the memory per GPU ({kv_cache_gib:.1f} GiB): context and concurrency "
        "drive the size more than the weights. An FP8 KV cache halves it; a shorter maximum context or fewer "
        "concurrent sequences shrink it in proportion.",
    "rules.sizing-dp-attention": "Attention runs data-parallel over the {tp} GPUs (DP attention): each GPU caches only its own "
        "requests' KV ({kv_cache_gib:.1f} GiB) where tensor parallelism would copy the whole MLA latent cache to every "
        "GPU, and that is what holds this load on {count} GPUs. The price: every GPU keeps a whole copy of the "
        "attention, and one GPU prefills each prompt, so a single long prompt waits longer than under plain TP.",
    "rules.sizing-pcie-tensor-parallel": "Tensor parallelism of {tp} over PCIe only (the {gpu} has no NVLink): every layer all-reduces activations "
        "across {tp} cards through PCIe and the host, so speed-up falls well short of {tp}×. Prefer tp=2 with "
        "pipeline or data parallelism, or NVLink cards.",
    "rules.sizing-tp-spans-nodes": "Tensor parallelism of {tp} is larger than a node ({gpus_per_node} GPUs), so per-layer all-reduces cross "
        "the network. Keep tensor parallelism within a node and use pipeline parallelism between nodes.",
    "rules.sizing-tp-heads": "Tensor parallelism of {tp} does not divide the model's attention heads evenly; vLLM refuses to start "
        "('Total number of attention heads must be divisible by tensor parallel size'). Use a divisor of the "
        "head count (e.g. 2, 4 or 8) and pipeline parallelism for the rest.",
    "rules.sizing-offload-ram-short": "CPU RAM too small: offloading needs {offload_cpu_gib:.1f} GiB of host memory per node, but the node has "
        "{cpu_ram_gib:.1f} GiB. Add RAM, offload less (optimizer only), or use more GPUs so that less is offloaded.",
    "rules.sizing-offload-ram-tight": "Offloading needs {offload_cpu_gib:.1f} of the node's {cpu_ram_gib:.1f} GiB of RAM ({offload_ram_ratio:.0%}); "
        "the data loader, pinned buffers and the OS also need memory. Plan more RAM.",
    "rules.sizing-layer-offload-slow": "{offload_cpu_layers} layers run from system RAM (llama.cpp -ngl {offload_gpu_layers}): every token reads "
        "them at host memory speed, so decode drops to about {offload_tokens_per_s:.1f} tokens/s. Measured on one "
        "card, a 14B Q4_K_M model falls from 43 tokens/s with every layer on the GPU to 12.5 with 8 of its 48 "
        "layers in RAM. Good for trying a model or batch jobs, not for interactive serving: a smaller format "
        "that fits, or a second card, keeps every layer on the GPU.",
    "rules.sizing-deadline-missed": "Too slow: training takes an estimated {train_days:.1f} days on {count} × {gpu}, beyond the deadline of "
        "{deadline_days:.1f} days. More or faster GPUs, fewer tokens, or a parameter-efficient method would "
        "shorten it.",
    "rules.sizing-deadline-tight": "Tight schedule: training takes an estimated {train_days:.1f} of the {deadline_days:.1f} days available "
        "({deadline_ratio:.0%}); a restart, a slower-than-assumed MFU or data issues would miss the deadline.",
    "rules.sizing-over-budget": "Over budget: {price_amount:,.0f} {currency} against a budget of {budget_amount:,.0f} {currency} "
        "({budget_ratio:.0%}).",
    "rules.sizing-over-power": "Over the power limit: {count} × {tdp_w:.0f} W = {power_w:,.0f} W of GPU power against a limit of "
        "{power_limit_w:,.0f} W.",
    "rules.sizing-throughput-short": "Below the throughput target: about {tokens_per_s:,.0f} tokens/s in total against the {min_tokens_per_s:,.0f} "
        "tokens/s required ({throughput_ratio:.0%}).",
    "rules.sizing-latency-short": "Misses the latency target: about {ms_per_token:.1f} ms per output token against at most "
        "{max_ms_per_token:.1f} ms.",
    "rules.sizing-context-over-model": "The context of {context:,} tokens exceeds the model's maximum of {max_context:,}; engines refuse a longer "
        "--max-model-len unless overridden, and quality beyond the trained length is not assured.",
    "rules.sizing-guide-config-short": "The guide's configuration “{guide_config}” does not fit this workload: the estimate needs "
        "{per_gpu_gib:.1f} GiB per GPU{kv_note} against the {gpu}'s {memory_gib:.1f} GiB.",
    "rules.sizing-guide-config-tight": "The guide's configuration “{guide_config}” fits only just: {per_gpu_gib:.1f} GiB per GPU{kv_note} of "
        "{memory_gib:.1f} GiB, {headroom_ratio:.0%} free.",
    # --- market (rules/market.py) -----------------------------------------------------------------------------------
    "rules.market-cn-restricted-2022": "The {gpu} needs a US export licence for China: the A100 and H100 since the rule of 2022-10-07, named "
        "again in NVIDIA's 8-K of 2023-10-17. Buying it new for use in China is not a compliant option "
        "(not legal advice).",
    "rules.market-cn-restricted-2023": "The {gpu} has needed a US export licence for China since the rule of 2023-10-17 (named in NVIDIA's 8-K "
        "that day). The A800 and H800 were the China versions of the A100 and H100, so the guides' advice to buy "
        "them predates this rule (not legal advice).",
    "rules.market-cn-4090-restricted": "The RTX 4090 needs a US export licence for China since 2023-11-17 (named in NVIDIA's 8-K of "
        "2023-10-17). The market version is the RTX 4090 D (2023-12-28): same 24 GB, 147 instead of 165 TFLOPS "
        "dense BF16, 425 W. Grey-market 4090s sold for up to ¥29,000 in October 2023.",
    "rules.market-cn-a10g-aws-only": "The {gpu} is AWS's own variant of the A10 (EC2 G5 instances); it is not sold as a card, in "
        "China or anywhere else. Rent G5 instances where AWS offers them, or buy the A10 (same 24 GB at 600 GB/s, more "
        "tensor compute).",
    "rules.market-cn-5090-not-sold": "The RTX 5090 is not sold in China (it exceeds the TPP 4,800 threshold). The market version is the RTX "
        "5090 D (January 2025; AI TOPS capped at 2,375) and, from 2025-08-12, the 5090 D V2 with 24 GB.",
    "rules.market-cn-restricted-threshold": "The {gpu} is not named in NVIDIA's 8-K, but by computation it exceeds the thresholds of the 2023-10-17 "
        "rule (total processing performance ≥ 4,800, or ≥ 1,600 with performance density ≥ 5.92), so it is "
        "treated as licence-required for China (a computation, not legal advice).",
    "rules.market-cn-h20-licence": "The H20 was built for the China market after the 2023-10-17 rule, but it has needed a US export licence "
        "since 2025-04-09. Licences resumed in July/August 2025 against 15% of China revenue to the US government, "
        "while Chinese regulators discouraged H20 purchases from August 2025; a report of 2026-01-10 describes China "
        "sales as near zero: confirm supply before quoting it.",
    "rules.market-cn-h200-reported": "The {gpu} exceeds the export thresholds. On 2025-12-08 the US decided to allow H200 sales to approved "
        "Chinese customers with 25% of revenue going to the US government (Blackwell excluded); licences went "
        "to interagency review on 2025-12-19 and January 2026 rules add third-party testing and a cap of 50% of US "
        "volume, with similar treatment for AMD's MI325X. A 2026-01-10 report puts the H200 at about ¥190,000 per "
        "chip with full prepayment; whether China admits it is open. Treat it as licence-dependent and confirm "
        "with the supplier (not legal advice).",
    "rules.market-cn-l20": "The L20 (Ada, 48 GB) was built for the China market after the 2023-10-17 rule and is sold there "
        "(channel price about ¥75,000 per card on 2024-03-25, a low-reliability datapoint).",
    "rules.market-cn-4090d": "The RTX 4090 D is the China-market RTX 4090 (launched 2023-12-28 at ¥12,999, the 4090's price): 14,592 "
        "CUDA cores instead of 16,384 and 425 W, to stay under the TPP 4,800 threshold.",
    "rules.market-cn-5090d": "The RTX 5090 D is the China-market RTX 5090. The first version (January 2025, 32 GB) was reportedly "
        "withdrawn in 2025; the V2 sold from 2025-08-12 at the same ¥16,499 has 24 GB on a 384-bit bus, so a "
        "plan sized for 32 GB may not fit.",
    "rules.market-cn-restricted-in-hand": "The {gpu} is restricted for new export to China, but cards already in the country (owned, or rented "
        "from a local cloud) can still be used; the restriction matters for expansion and spare parts.",
    "rules.market-cn-rtx-pro-6000": "The {gpu} is above the export thresholds for China by computation (dense FP8 ≈ 1,000 TFLOPS, TPP ≈ 8,000 > "
        "4,800). The China version, the RTX Pro 6000D (reported July 2025 as 'B40': GDDR7, no NVLink), was the "
        "H20's successor until China's Cyberspace Administration told ByteDance, Alibaba and others on 2025-09-17 "
        "to stop testing and ordering it (not legal advice).",
    "rules.market-cn-blackwell-dc": "The {gpu} is a data-center Blackwell GPU: not licensed for China. The 2025-12-08 US decision that allows "
        "H200 sales excludes Blackwell and Rubin; the China Blackwell part reported on 2025-08-19 (B30A: one die, "
        "about half a B300, HBM and NVLink) depended on a US approval that had not come (not legal advice).",
    # --- capability (rules/capability.py) ---------------------------------------------------------------------------
    "rules.cap-bf16-needs-ampere": "The {gpu} ({arch}) has no BF16 support (on NVIDIA, BF16 needs Ampere or newer). Run FP16 (mixed "
        "precision with loss scaling for training); models trained in BF16 can overflow in FP16, so validate "
        "outputs.",
    "rules.cap-fp8-training": "FP8 training needs FP8 tensor cores (Ada, Hopper or Blackwell, compute capability 8.9+); the {gpu} "
        "({arch}) has none. Train in BF16/FP16 mixed precision on it, or choose an FP8-capable card.",
    "rules.cap-fp8-weight-only": "The {gpu} ({arch}) has no FP8 tensor cores: vLLM runs FP8 checkpoints on it as weight-only W8A16 "
        "(FP8 Marlin), which halves weight memory but computes in 16-bit, so prefill gains nothing. FP8 "
        "mixture-of-experts layers may not be supported on this path.",
    "rules.cap-fp8-ascend": "The {gpu} has no FP8: an FP8 checkpoint runs on Ascend as W8A8 INT8 converted with msModelSlim (the same "
        "byte per weight, so the memory above holds), served by vllm-ascend with --quantization ascend.",
    "rules.cap-fp8-unsupported": "The {gpu} (Volta, compute capability 7.0) cannot run FP8 checkpoints: vLLM's weight-only FP8 path needs "
        "compute capability 7.5 or newer. Use FP16 or an INT8/INT4 format instead.",
    "rules.cap-bf16-serving-pre-ampere": "The {gpu} ({arch}) has no BF16 tensor cores, so a BF16 configuration is not offered on it: serve it "
        "quantised (GPTQ/AWQ/GGUF, which these cards run) or cast to FP16 (`--dtype half`, validate outputs: "
        "BF16-trained models can overflow in FP16).",
    "rules.cap-fp4-ascend": "The {gpu} runs no MXFP4/NVFP4 kernels (among Ascend NPUs only the Ascend 950 has them): an FP4 checkpoint is served as W8A8 INT8 converted with msModelSlim, twice the bytes per weight.",
    "rules.cap-awq-needs-turing": "The {gpu} (Volta, compute capability 7.0) has no AWQ kernels in vLLM (AWQ needs 7.5 or newer): use a "
        "GPTQ or GGUF checkpoint on it instead.",
    "rules.cap-fa2-training": "FlashAttention-2 supports Ampere, Ada and Hopper GPUs; on the {gpu} ({arch}) training falls back to "
        "another attention kernel (FlashAttention 1.x on Turing, or PyTorch's memory-efficient SDPA), which is "
        "slower and needs more activation memory at long sequence lengths. Size activations without FlashAttention-2.",
    "rules.cap-fa2-inference": "The {gpu} ({arch}) does not support FlashAttention-2; serving engines use other attention kernels on "
        "it (e.g. xFormers or PyTorch SDPA), so long-context prefill is slower than on Ampere or newer cards.",
    "rules.cap-no-nvlink": "This configuration relies on NVLink, but the {gpu} has none (GeForce 40 and 50 series have no NVLink "
        "connector), so 'two RTX 4090 over NVLink' as in guide-000 is not possible. The RTX 3090 and 3090 Ti have "
        "a 2-way bridge of 112.5 GB/s; otherwise plan for PCIe between the cards.",
    "rules.cap-3090-nvlink-bridge": "Two {gpu} cards can be joined with a 2-way NVLink bridge (112.5 GB/s in total), several times what "
        "they get over PCIe; guide-003's 'the 30 series dropped NVLink' is wrong.",
    "rules.cap-3090-nvlink-pairs": "The {gpu}'s NVLink bridge (112.5 GB/s in total; guide-003's 'the 30 series dropped NVLink' is wrong) joins "
        "pairs only: with {count} cards, traffic between pairs still goes over PCIe, so keep tensor parallelism "
        "within a bridged pair.",
    "rules.cap-a10-t4-training": "Guide-003 rates the A10 and T4 as weak for deep-learning training and inference (little compute and "
        "memory bandwidth for LLM work). For training prefer an RTX 3090/4090-class card or a data-centre "
        "training card.",
    "rules.cap-a10-t4-inference": "Guide-003 rates the A10 and T4 weak for LLM inference, while guide-000 lists the T4 (with the L40S) as "
        "an energy-efficient choice for always-on inference: fine for small models at low load, slow for large "
        "models or many concurrent users.",
    "rules.cap-old-arch-software": "The {gpu} is a {arch} card: guide-003 warns that older GPUs have software compatibility gaps. "
        "Current stacks increasingly assume Ampere or newer (BF16, FlashAttention-2, FP8 kernels), so check "
        "support for compute capability 7.x in the exact framework versions you plan to use.",
    "rules.cap-non-cuda-stack": "The {gpu} runs outside CUDA: guide-000 notes that AMD ROCm and domestic GPU software stacks are catching "
        "up but still trail in operator coverage and performance tuning. Check that your framework, kernels "
        "and quantisation formats are supported on it.",
    "rules.cap-metal-engines": "The {gpu} runs Apple's Metal stack: {engine} has no Metal GPU backend (vLLM runs only on the CPU of a Mac; "
        "TensorRT-LLM, DeepSpeed and Megatron need CUDA). Serve with llama.cpp (Metal) or MLX (mlx-lm), which "
        "also fine-tunes with LoRA.",
    "rules.cap-metal-stack": "The {gpu} runs Apple's Metal stack: the engines are llama.cpp (GGUF quantisations) and MLX (MLX 4/8-bit "
        "formats); there is no CUDA, FP8 or FlashAttention-2, and vLLM does not use its GPU.",
    "rules.cap-cann-engines": "The {gpu} runs Huawei's CANN stack, not CUDA: {engine} is not available on it. Serve with MindIE or "
        "vLLM through the vllm-ascend plugin (llama.cpp also has a CANN backend); train with MindSpore or "
        "torch_npu.",
    "rules.cap-fp4-weight-only": "The {gpu} ({arch}) has no FP4 matrix units (only NVIDIA Blackwell and AMD CDNA 4 have them): FP4 weights "
        "are dequantised to 16 bits for the matrix multiplies, which keeps the memory saving but not the FP4 "
        "compute speed.",
    "rules.cap-machine-not-a-card": "The {gpu} is a whole computer with unified memory, not a card: {count} of them are {count} machines "
        "joined over Thunderbolt or Ethernet (exo, llama.cpp RPC, MLX distributed, or 200 GbE for DGX Spark), "
        "which carries a pipeline split at network speed, not tensor parallelism over NVLink.",
    "rules.cap-machine-no-tp": "Tensor parallel degree {tp} across {gpu} machines is not a deployable layout: each is a separate computer "
        "and the link between them is Thunderbolt or Ethernet, far below what a per-layer all-reduce needs. Use "
        "one machine with more memory, or a pipeline split.",
    # --- risk (rules/risk.py) ---------------------------------------------------------------------------------------
    "rules.risk-modded-card": "The {gpu} is a community memory mod (memory chips added or swapped on a reworked board, run with "
        "a modified vBIOS; not an NVIDIA product). Guide-003 ranks such a mod, the 2080 Ti 22G, first for value "
        "(about ¥2,400, undated) but calls it risky: no NVIDIA or board-partner warranty, stability depends on the "
        "rework and on cooling the memory, and drivers and vBIOS are not validated for it. Burn in every card under "
        "sustained load before relying on it.",
    "rules.risk-used-card": "Used cards: the guides point to the second-hand market (RTX 4090; A6000 at about ¥15,000 used, as of "
        "2025-06). Expect little or no transferable warranty and an unknown duty history (mining, 24/7 "
        "training): test memory and thermals under load, check fans and thermal pads, and budget a spare.",
    "rules.risk-consumer-multi-node": "{count} consumer cards across {nodes} nodes: guide-003 notes that in a cluster, data-transfer losses and "
        "stability make data-centre cards (A100/H100, or their market versions in China) the first choice. "
        "Expect lower scaling efficiency and more interruptions than the single-card value suggests.",
    "rules.risk-pcie-multi-node": "{count} {gpu} across {nodes} servers, one copy of the model split over them: these PCIe cards "
        "have no switched fabric, so every pipeline hand-over or gradient exchange crosses the servers' network. "
        "Guide-003 prefers NVLink-class cards in a cluster for transfer losses and stability; one server of "
        "NVLink-switched cards that holds the model is usually simpler to run.",
    "rules.risk-geforce-datacenter-licence": "NVIDIA's GeForce driver licence (section 2.1.3) excludes data-centre deployment, except blockchain "
        "processing. A multi-node {gpu} cluster hosted in a data centre may fall under that clause: check "
        "before building one (not legal advice).",
    "rules.risk-575w-card": "The {gpu} draws {tdp_w:.0f} W (transients reach about 659 W); NVIDIA recommends at least a 1,000 W power "
        "supply for a system with one. Plan an ATX 3.x supply with a fully seated native 12V-2x6 cable, strong "
        "case airflow and space between cards; the GPUs alone draw {power_w:,.0f} W here ({count} × {tdp_w:.0f} W).",
    "rules.risk-workstation-power": "{gpus_per_node} × {gpu} in one machine draw {node_gpu_power_w:,.0f} W for the GPUs alone. Guide-000's "
        "'an ordinary workstation is enough' holds for one card, not this: plan server power supplies (two or "
        "redundant), a dedicated circuit and blower or rack cooling.",
    "rules.risk-consumer-24x7": "Sustained duty on consumer cards: guide-000 notes that data-centre cards are designed for 7×24 operation "
        "with lower failure rates, and A100/H100 systems support hot maintenance and redundant power. Keep "
        "spares, checkpoint often and watch temperatures.",
    # --- substitution (rules/substitution.py) -----------------------------------------------------------------------
    "rules.sub-4090-3090-inference": "The guides let an RTX 3090 replace the {gpu} (both 24 GB). For inference that mostly holds: decode "
        "speed follows memory bandwidth (936 vs 1,008 GB/s) and the 3090 draws 350 W instead of 450 W, but "
        "compute-bound prompt processing is slower (71 vs 165 TFLOPS dense BF16).",
    "rules.sub-4090-3090-training": "The guides' \"RTX 4090 ≈ RTX 3090\" holds for memory (24 GB each), not for training speed: the 3090 has "
        "71 TFLOPS dense BF16 against the 4090's 165, so compute-bound training takes about 2.3× as long. The "
        "3090 does have a 2-way NVLink bridge (112.5 GB/s) that the 4090 lacks.",
    "rules.sub-4090-3090-fp8": "At FP8 the guides' RTX 4090 → RTX 3090 substitution breaks: the 3090 (Ampere) has no FP8 tensor cores, "
        "so FP8 weights run there only as weight-only W8A16 (vLLM's FP8 Marlin path), without the FP8 compute "
        "speed-up. Keep the {gpu} for FP8 work.",
    "rules.sub-3090-4090": "The guides treat the RTX 3090 and RTX 4090 as interchangeable (both 24 GB). A 4090 gives 165 instead of "
        "71 TFLOPS dense BF16 and FP8 support, but no NVLink bridge and 450 W instead of 350 W per card.",
    "rules.sub-3090-4090d-cn": "The guides treat the RTX 3090 and RTX 4090 as interchangeable. In China the 4090 has been restricted "
        "since the 2023-10-17 rule; the market version is the RTX 4090 D (launched 2023-12-28; 24 GB, 147 TFLOPS "
        "dense BF16 vs the 3090's 71, FP8, 425 W, no NVLink).",
    "rules.sub-a100-a800-cn": "The guides replace the A100 with the A800 for China. That advice is dated: the A800 itself was restricted "
        "for export to China by the rule of 2023-10-17 (the A100 since 2022-10-07). The A800 matches the A100 in "
        "compute and memory; only NVLink drops from 600 to 400 GB/s.",
    "rules.sub-l40-l20-cn": "The guides replace the L40 with the L20 for China (the L40 and L40S were restricted by the 2023-10-17 "
        "rule). The L20 keeps 48 GB and 864 GB/s, so decode speed is similar, but its dense BF16 is 119.5 TFLOPS "
        "against 181 (L40) and 362 (L40S): compute-bound work is slower.",
    "rules.sub-h100-h800-cn": "Guide-000 offers the H800 as the China version of the H100 (NVLink 400 instead of 900 GB/s). That is "
        "dated: the H800 was restricted by the 2023-10-17 rule, and its successor for the market, the H20 (96 GB, "
        "4.0 TB/s, 148 TFLOPS dense BF16), has needed an export licence since 2025-04-09.",
    "rules.sub-5090-5090d-cn": "For China the guide names the RTX 5090 D: same 32 GB and 1,792 GB/s, AI TOPS capped from 3,352 to "
        "2,375. Since 2025-08-12 the card sold is the RTX 5090 D V2 with 24 GB on a 384-bit bus (1,344 GB/s), "
        "so the memory estimate is checked against 24 GB.",
    "rules.sub-china-variant-outside-cn": "The {gpu} is a China-market variant (cut interconnect or compute to pass the export rules). Outside "
        "China the original part is sold and is at least as capable for the same memory.",
    # --- value (rules/value.py) -------------------------------------------------------------------------------------
    # the value ranking, one template for its five rules (rules.value._rank_rule): each fills in its place
    "rules.value-rank": "Guide-003's value ranking (performance per CNY, single card): 2080 Ti 22G > 4080 > 3090 > 4090 > "
        "2080 Ti 11G; the {gpu} is {place} The ranking leaves out multi-card losses, stability and software support.",
    "rules.value-rank.place.1": "first of five. It is also the riskiest (modded memory, no warranty).",
    "rules.value-rank.place.2": "second of five. In a single-card setting guide-003 calls the 4080 (16 GB) the value king.",
    "rules.value-rank.place.3": "third of five.",
    "rules.value-rank.place.4": "fourth of five.",
    "rules.value-rank.place.5": "fifth of five.",
    "rules.value-cluster-prefers-datacenter": "Training on {count} consumer or workstation cards: guide-003's value ranking is per single card and "
        "leaves out multi-card communication losses and stability; for clusters it prefers A100/H100-class "
        "cards (their market versions in China). Compare the estimated time, not the per-card value.",
    "rules.value-4090-training": "Guide-003 rates the 4090 weaker than the A100 for training, held back by its 24 GB and memory bandwidth "
        "(1,008 GB/s against up to 2,039 GB/s for the A100 80GB SXM; dense BF16 165 vs 312 TFLOPS). It also says a "
        "CNY buys about 1.5× the LLM training performance as an RTX 3090 than as a 4090.",
    "rules.value-4090-inference": "Guide-003 calls the 4090 strong at inference, stronger than the A100. That holds for low-precision "
        "compute (660 dense INT8 TOPS against the A100's 624), not for decode, which follows memory "
        "bandwidth: 1,008 GB/s against 1,555–2,039 GB/s on the A100; the A100 also has 40 or 80 GB.",
    "rules.value-3090-training": "Guide-003 calls the 3090 a low-cost training option that falls well short of the A100 in practice "
        "because of its 24 GB and bandwidth. Its '60% of an A100' is generous: dense BF16 with FP32 accumulate "
        "is 71 against 312 TFLOPS (23%), bandwidth 936 against 1,555–2,039 GB/s.",
    "rules.value-scope-4090": "Guide-000 scopes the RTX 4090 to fine-tuning up to 13B, full training up to 7B and inference of 13B at "
        "8-bit (7B at 16-bit). This {params_b:.0f}B job is beyond that scope: the memory estimate and layout "
        "decide whether {count} × {gpu} is enough.",
    "rules.value-scope-5090": "Guide-000 scopes the RTX 5090 and 5090 D to full fine-tuning below 7B and inference below 20B. This "
        "{params_b:.0f}B job is beyond that: rely on the memory estimate and layout for {count} × {gpu}.",
    "rules.value-scope-5080": "Guide-000 scopes the RTX 5080 (16 GB) to training models up to 3B and inference up to 7B. This "
        "{params_b:.0f}B job is beyond that: rely on the memory estimate for {count} × {gpu}.",
    "rules.value-a100-training-counts": "Guide-000 calls the A100/A800 the best return for training 7B–30B models and recommends 4 cards for 7B, "
        "8 for 13B and 12 for 30B. This plan uses {count} for {params_b:.0f}B; the memory and time estimates "
        "decide.",
    "rules.value-h100-large-training": "Guide-000 recommends the H100 class for distributed training of models above 30B, like this "
        "{params_b:.0f}B job: NVLink within the node and InfiniBand between nodes carry the parallelism.",
    "rules.value-a6000-memory": "Guide-000 values the A6000 for its 48 GB at about ¥15,000 used (as of 2025-06): good for memory-heavy "
        "inference (large batches, multimodal models) where peak compute matters less. Its dense BF16 is 154.8 "
        "TFLOPS per the GA102 whitepaper; the guide's 77 TFLOPS understates it.",
    # --- scenario (rules/scenario.py) -------------------------------------------------------------------------------
    "rules.tier-personal": "Guide-003 tier 'personal study / small research team': inference and fine-tuning of 7B–14B, training "
        "around 0.2B, 1–5 concurrent users, GB-scale data, about 35 GB of GPU memory. Basic: 2× RTX 2080 Ti 22G, "
        "12th-gen Core i5, 64 GB RAM, 2 TB disk, about ¥14,000; advanced: 2× RTX 3090, 12th-gen Core i7, 64 GB, "
        "2 TB, about ¥14,000 (the guide's undated prices).",
    "rules.tier-small-team": "Guide-003 tier 'small research team / startup': inference and fine-tuning of 14B–30B, training around 2B, "
        "5–20 concurrent users, TB-scale data, about 80 GB of GPU memory. Basic: 4× RTX 2080 Ti 22G, Xeon W3, "
        "64 GB RAM, 2 TB, about ¥30,000; advanced: 4× RTX 3090, Xeon W5, 128 GB, 2 TB, about ¥47,000 (the guide's "
        "undated prices).",
    "rules.tier-large-team": "Guide-003 tier 'large research team / mid-to-large company': inference and fine-tuning of 70B, training "
        "around 7B, 5–200 concurrent users, 10 TB of data, about 140 GB of GPU memory. Basic: 4× L20, Xeon 6133, "
        "128 GB RAM, 10 TB, about ¥140,000; advanced: 4× A100 40G on an Intel C621 platform, 128 GB, 10 TB, about "
        "¥180,000 (the guide's undated prices).",
    "rules.tier-beyond": "This workload is beyond guide-003's largest tier (70B inference/fine-tuning, 7B training, 200 concurrent "
        "users). Guide-000's 100B+ section points to multi-node H100-class clusters with InfiniBand (H800/A800 in "
        "China, now themselves restricted); size it from the memory and time estimates.",
    "rules.size-table-7b": "Guide-000's size table, row nearest to {params_b:.3g}B (the 7B row): "
        "training from 2× RTX 4090, fine-tuning from 1× RTX 4090, inference from "
        "1× RTX 4080, production 1× A6000 or 2× RTX 4090. Its 1B–10B section adds one RTX 4090 or 3090 for "
        "low-cost research and two 4090s 'over NVLink' or one A6000 for team development (the 4090 has no NVLink).",
    "rules.size-table-13b": "Guide-000's size table, row nearest to {params_b:.3g}B (the 13B row): "
        "training from 4× RTX 4090, fine-tuning from 2× RTX 4090, inference from "
        "1× RTX 4090 at 8-bit, production 1× A100 40GB or 2× RTX 5090 D. Its 10B–100B section: 4–8× RTX 4090 or "
        "2–4× RTX 5090 D for academic research, 8× A100/A800 or 4× H100 for enterprise training, A100 80GB or "
        "L40S for production inference.",
    "rules.size-table-70b": "Guide-000's size table, row nearest to {params_b:.3g}B (the 70B row): "
        "training from 8× A100 80GB, fine-tuning from 4× A100 80GB, inference "
        "from 1× A100 80GB at 4-bit, production an 8× A100/H100 cluster. The section's '70B FP16 inference ≈ 70 GB' "
        "and '4-bit ≈ 28 GB' understate the weights (about 140 GB and 35 GB, before the KV cache).",
    "rules.size-table-130b": "Guide-000's size table, row nearest to {params_b:.3g}B (the 130B row): "
        "training from 16× A100 80GB, fine-tuning from 8× A100 80GB, inference "
        "from 2× A100 80GB at 4-bit, production a 16× H100 NVLink cluster. Its 100B+ section: 3D parallelism "
        "(tensor, pipeline, data) and 8–16 H100 inference servers or elastic cloud.",
    "rules.size-table-300b": "Guide-000's size table, row nearest to {params_b:.3g}B (the 300B+ row): "
        "training from 32× H100, fine-tuning from 16× H100, inference from 8× "
        "H100 quantised, production 256× H100 with InfiniBand. Its 100B+ section notes that very large models "
        "may span nodes for inference, adding communication latency.",
    # --- practice (rules/practice.py) -------------------------------------------------------------------------------
    "rules.practice-memory-first": "Memory first (guide-000): the {count} cards together can hold this job only if it is sharded across "
        "them; as laid out it needs {per_gpu_gib:.1f} GiB per GPU against {memory_gib:.1f} GiB. Use tensor "
        "parallelism for serving or ZeRO-3/FSDP for training.",
    "rules.practice-interconnect-pcie": "Interconnect (guide-000): multi-GPU training benefits from NVLink, and the {gpu} has none, so gradients "
        "and parameters travel over PCIe. Prefer data parallelism with ZeRO-1/2 over tensor parallelism, and "
        "expect scaling below linear.",
    "rules.practice-interconnect-multi-node": "Training across {nodes} nodes over plain Ethernet: guide-000 calls InfiniBand the gold standard between "
        "machines, and without it gradient synchronisation dominates the step time. Use InfiniBand or RoCE, or "
        "fit the job into one node.",
    "rules.practice-single-node-first": "Guide-000: for small jobs (8 GPUs or fewer) prefer one machine with several GPUs to avoid network "
        "bottlenecks; these {count} GPUs over {nodes} nodes would fit one 8-GPU server.",
    "rules.practice-precision-training": "Precision (guide-000): train with FP16/BF16 mixed precision (FP8 where the card supports it). Pure FP32 "
        "doubles weight and activation memory against 16-bit and runs off the tensor-core fast path.",
    "rules.practice-quantize-inference": "Precision (guide-000): inference can use INT8/FP8 or even 4-bit weights. Serving at {precision} leaves "
        "{headroom_ratio:.0%} of the {gpu}'s memory free; 8-bit weights halve the weight memory, 4-bit quarters "
        "it, at some quality cost.",
    "rules.practice-energy-always-on": "Energy (guide-000): long-running inference should use energy-efficient GPUs such as the L40S or T4, and "
        "the guide puts the H100's efficiency at about twice the RTX 4090's. These {count} cards draw "
        "{power_w:,.0f} W at full load, a running cost over the service life.",
    "rules.practice-cloud-fluctuating": "Guide-000: cloud services suit fluctuating load (no upfront cost, no idle hardware, no obsolescence "
        "risk). Compare renting at your real utilisation before buying.",
    "rules.practice-own-steady": "Guide-000: a fixed, steady load usually costs less on an owned cluster than on on-demand cloud; compare "
        "the break-even utilisation of buying against this rental.",
    "rules.practice-hardware-lifecycle": "Guide-000: AI hardware has an average life of 3–4 years and consumer cards keep less residual value; a "
        "{tco_years:g}-year TCO should include a refresh or a low residual value.",
    # --- claims (rules/claims.py) -----------------------------------------------------------------------------------
    "rules.claim-wrong-figure": "The guide's figure is wrong: it says {stated_value:,g} {unit}; the computed value is "
        "{computed_value:,g} {computed_unit}.{correction_note}",
    "rules.claim-wrong-statement": "The guide's statement is wrong: “{claim_quote}”{computed_note}.{correction_note}",
    "rules.claim-dated": "The guide's statement is out of date: “{claim_quote}”{computed_note}.{correction_note}",
    "rules.claim-right": "The guide's statement checks out: “{claim_quote}”{computed_note}.",
}
