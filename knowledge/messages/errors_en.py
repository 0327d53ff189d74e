"""English wording of the errors a bad input raises below the front ends (the estimator, the planner, the recommender,
the store, the CLI's own checks): the catalog's "errors" section, kept in its own small module so that only a command
that fails loads it (`AdvisorError.from_key`, see knowledge/messages/__init__.py). An entry whose Chinese names a
value that the English leaves to the accepted range carries its "(accepted: …)" in the English text too, so that both
languages fill the same fields. Keys and placeholders as in `errors_zh.py`, same order."""

from __future__ import annotations

from collections.abc import Mapping

MESSAGES: Mapping[str, str | Mapping[str, str]] = {
    # --- memory (advisor/estimator/memory.py, training_memory.py, parallel_layout.py) -------------------------------
    "errors.tp_heads": "tensor parallelism {tp} must divide the {heads} attention heads of {model}",
    "errors.qlora_base": "QLoRA needs a 4-bit base, not '{base}'",
    "errors.lora_rank": "LoRA rank {rank} is outside 1..{hidden} (the model's hidden size)",
    # --- an engine's memory reservation (advisor/estimator/engine_memory.py) ----------------------------------------
    "errors.fraction": "{flag} must be in (0, 1], got {value:g}",
    "errors.kv_cache_bytes": "--kv-cache-memory-bytes must be positive",
    # --- llama.cpp layer offload (advisor/estimator/offload.py, ui/cli/commands/offload_cli.py) ----------------------
    "errors.host_bandwidth": "--host-bandwidth must be positive, got {gb_per_s:g} GB/s",
    "errors.host_ram": "--host-ram must be positive, got {gib:g} GiB",
    "errors.ngl": "--ngl {ngl} is beyond {model}'s {layers} layers (accepted: 0 … {most} ({layers} layers + the output "
        "matrix))",
    "errors.host_ram_short": "--host-ram: the offload needs {need_gib:.1f} GiB of system RAM for {layers} CPU layers, the "
        "host has {host_gib:.1f} GiB: no host memory to spare",
    "errors.offload_task": "--offload layers is llama.cpp inference; got --task {task}",
    "errors.offload_batch": "--offload layers models one sequence at a time (llama.cpp, batch 1)",
    "errors.offload_gpu": "--offload layers needs --gpu (how many layers fit depends on its memory)",
    "errors.offload_engine": "--offload layers is llama.cpp's -ngl; got --engine {engine}",
    # --- parallel layouts (advisor/estimator/parallel_layout.py, planner.py) ------------------------------------------
    "errors.layout_factor": "{count} GPUs do not factor as TP {tp} × CP {cp} × PP {pp} × DP {dp} (= {world})",
    "errors.tp_domain": "tensor parallelism {tp} exceeds {where} ({limit} GPUs on {gpu})",
    "errors.pp_layers": "pipeline parallelism {pp} cannot split the {layers} layers of {model} into {pp} non-empty stages",
    "errors.cp_context": "context parallelism {cp} needs a sequence length divisible by 2 × CP = {divisor}, got {context}",
    "errors.ep_dense": "expert parallelism {ep} needs a mixture-of-experts model; {model} is dense",
    "errors.ep_experts": "expert parallelism {ep} must divide the {experts} routed experts of {model}",
    "errors.ep_split": "expert parallelism {ep} must divide TP × DP × CP = {ranks} (experts are spread over the "
        "data-parallel ranks, or folded over the tensor-parallel ones too)",
    "errors.zero3_pp": "ZeRO-3 shards every parameter over the data-parallel ranks and does not combine with pipeline "
        "parallelism (DeepSpeed and Megatron refuse it)",
    "errors.tokens_positive": "token budget must be positive, got {tokens:g}",
    "errors.tokens_absurd": "token budget {tokens:.3g} is absurd (more than {most:.0e} tokens)",
    "errors.count_factor": "{count} GPUs do not factor as TP {tp} × CP {cp} × PP {pp} × DP (accepted: a GPU count that "
        "is a multiple of {split} (world = TP×CP×PP×DP))",
    "errors.no_layout": "no layout of {model} fits {count} × {gpu}{pinned} with {headroom:.0%} memory headroom{leanest}"
        "{need}",
    "errors.no_layout.need": "; the smallest count that fits is {n} GPUs",
    "errors.served_group": "{count}× {gpu} cannot be sized for {model}: TP {group_said} takes {group} GPUs per copy of the "
        "model, which {count} do not divide; say a TP degree that divides {count}, or {group} or more GPUs",
    "errors.pinned_dp": "{layout} is {world} GPUs, not the {count} named",
    "errors.unsized.replicas": "{count}× {gpu} cannot serve {model} as {replicas} replicas: {count} GPUs do not split "
        "into {replicas} equal copies (accepted: a count that is a multiple of {replicas}, e.g. {m1}, {m2} or {m4}, or a number "
        "of replicas that divides {count})",
    "errors.unsized.heads": "{count}× {gpu} cannot be sized for {model}: tensor parallelism must divide the {heads} "
        "attention heads (accepted: a GPU count whose TP degree divides {heads}, e.g. 1, 2, 4 or 8)",
    "errors.unsized.inference_only": "{count}× {gpu} cannot be sized for {model}: it is an inference-only part and does "
        "not train (accepted: a training-capable card, or serving on this one)",
    "errors.unsized.stack": "{count}× {gpu} cannot be sized for {model}: its {stack} software does not run {engine} "
        "(accepted: an engine its stack runs, or another card)",
    "errors.unsized.estimate": "{count}× {gpu} cannot be sized for {model}: {why}",
    "errors.unsized.none": "{count}× {gpu} cannot be sized for {model}: no layout could be sized",
    # --- training and serving that do not fit (ui/cli/commands/train_time.py, throughput.py) -------------------------
    "errors.tokens_range": "--tokens: {text} is out of range (accepted: {range})",
    "errors.train_short": "{task} of {model} does not fit on {count} × {gpu}: needs {needs} per GPU, {usable} usable — "
        "short by {short} (try more GPUs, --task lora/qlora, or check `gpu-advisor estimate`)",
    "errors.serve_short": "{model} ({weights}, KV {kv}, {concurrency} × {context} tokens) does not fit on {count} × "
        "{gpu}: short by {short:.2f} GiB per GPU — add GPUs, quantise (--weights), lower --concurrency/--context, or "
        "use --kv fp8",
    # --- cost (advisor/estimator/cost.py) ----------------------------------------------------------------------------
    "errors.no_price": "{gpu} has no price in the catalog; give one with --gpu-price AMOUNT (per card, {currency})",
    "errors.electricity": "electricity price cannot be negative, got {price:g}",
    "errors.region": "unknown region '{region}'",
    # --- a name the catalogs lack (knowledge/errors.py UnknownIdError) ------------------------------------------------
    "errors.unknown_id": "unknown {what} '{name}'{hint} (see `gpu-advisor {what}s` for the list)",
    "errors.unknown_id.gpu": "gpu",
    "errors.unknown_id.model": "model",
    "errors.unknown_id.hint": "; did you mean: {names}?",
    "errors.unknown_id.sep": ", ",
    # --- the recommender, the dialog, the store and the outputs -------------------------------------------------------
    "errors.no_model": "no model given",
    "errors.dialog_value": "{where}: {msg}",
    "errors.older_than": "--older-than: {text!r} is not an age",
    "errors.not_finite": "a result is not a finite number, so no JSON is printed ({detail})",
    "errors.no_chromium": "no Chromium found to print the quote to PDF (apt-get install chromium)",
    "errors.chromium_timeout": "Chromium did not finish printing the quote within {seconds:.0f} s",
    "errors.chromium_failed": "Chromium could not print the quote (exit {code}): {detail}",
}
