"""输入错误的中文措辞 (the catalog's "errors" section: the errors a bad input raises below the front ends; keys and
placeholders of `errors_en.py`, same order, a few saying less: tests/test_messages.py SAYS_LESS). Edit the words,
never the keys or fields."""

from __future__ import annotations

from collections.abc import Mapping

MESSAGES: Mapping[str, str | Mapping[str, str]] = {
    # --- memory (advisor/estimator/memory.py, training_memory.py, parallel_layout.py) -------------------------------
    "errors.tp_heads": "张量并行度 {tp} 必须整除 {model} 的 {heads} 个注意力头",
    "errors.qlora_base": "QLoRA 需要 4-bit 基座，而不是“{base}”",
    "errors.lora_rank": "LoRA 秩 {rank} 超出范围 1..{hidden}（模型隐藏维度）",
    # --- an engine's memory reservation (advisor/estimator/engine_memory.py) ----------------------------------------
    "errors.fraction": "{flag} 必须在 (0, 1] 之间（占整张卡显存的比例），收到 {value:g}",
    "errors.kv_cache_bytes": "--kv-cache-memory-bytes 必须大于 0",
    # --- llama.cpp layer offload (advisor/estimator/offload.py, ui/cli/commands/offload_cli.py) ----------------------
    "errors.host_bandwidth": "内存带宽 --host-bandwidth 必须大于 0 GB/s（例如 2 × DDR5-5600 为 89.6），收到 {gb_per_s:g}",
    "errors.host_ram": "系统内存 --host-ram 必须大于 0 GiB，收到 {gib:g}",
    "errors.ngl": "--ngl {ngl} 超出 {model} 的 {layers} 层（可选 0 … {most}，{most} 表示含输出层全部上 GPU）",
    "errors.host_ram_short": "--host-ram：卸载 {layers} 层需要 {need_gib:.1f} GiB 系统内存，主机只有 {host_gib:.1f} GiB（需 ≥ "
        "{need_gib:.1f} GiB，或加卡、换更小的量化）",
    "errors.offload_task": "--offload layers 只用于 llama.cpp 推理（训练请用 --offload optimizer|all）",
    "errors.offload_batch": "--offload layers 按单路（batch 1）估算",
    "errors.offload_gpu": "--offload layers 需要 --gpu",
    "errors.offload_engine": "--offload layers 只适用于 llama.cpp",
    # --- parallel layouts (advisor/estimator/parallel_layout.py, planner.py) ------------------------------------------
    "errors.layout_factor": "{count} 张卡无法分解为 TP {tp} × CP {cp} × PP {pp} × DP",
    "errors.tp_domain": "张量并行度 {tp} 超出 {gpu} 的 NVLink 域（最多 {limit}）",
    "errors.pp_layers": "流水线并行度 {pp} 超过 {model} 的 {layers} 层",
    "errors.cp_context": "上下文并行度 {cp} 要求序列长度能被 {divisor} 整除",
    "errors.ep_dense": "专家并行（EP {ep}）只适用于 MoE 模型；{model} 是稠密模型",
    "errors.ep_experts": "专家并行度 {ep} 必须整除 {model} 的 {experts} 个路由专家",
    "errors.ep_split": "专家并行度 {ep} 必须整除 TP × DP × CP = {ranks}",
    "errors.zero3_pp": "ZeRO-3 不能与流水线并行同时使用",
    "errors.tokens_positive": "训练 token 数必须为正数",
    "errors.tokens_absurd": "训练 token 数大得离谱",
    "errors.count_factor": "{count} 张卡无法分解为 TP × CP × PP × DP（需为 {split} 的倍数）",
    "errors.no_layout": "{count} 张 {gpu} 放不下 {model} 的任何并行布局{need}",
    "errors.no_layout.need": "；至少需要 {n} 张",
    "errors.served_group": "{count}× {gpu} 部署不了 {model}：TP {group_said} 每份模型要 {group} 张卡，{count} 张分不开；请改用能整除 "
        "{count} 的 TP，或用 {group} 张及以上的卡",
    "errors.pinned_dp": "{layout} 共 {world} 张卡，与所说的 {count} 张不符（TP × PP × CP × DP 须等于 {count}）",
    "errors.unsized.replicas": "{count}× {gpu} 没法把 {model} 部署成 {replicas} 个副本：{count} 张卡分不成 {replicas} 份相同的"
        "副本（可接受：卡数是 {replicas} 的倍数，如 {m1}、{m2}、{m4}；或能整除 {count} 的副本数）",
    "errors.unsized.heads": "{count}× {gpu} 部署不了 {model}：张量并行度必须整除 {heads} 个注意力头（可接受：张量并行度能整除 "
        "{heads} 的卡数，如 1、2、4、8）",
    "errors.unsized.inference_only": "{count}× {gpu} 没法训练 {model}：这是只做推理的卡（可接受：能训练的卡，或在这张卡上做推理）",
    "errors.unsized.stack": "{count}× {gpu} 部署不了 {model}：它的 {stack} 软件栈跑不了 {engine}（可接受：该软件栈支持的引擎，或换卡）",
    "errors.unsized.estimate": "{count}× {gpu} 无法为 {model} 估算：{why}",
    "errors.unsized.none": "{count}× {gpu} 无法为 {model} 估算：没有可用的并行布局",
    # --- training and serving that do not fit (ui/cli/commands/train_time.py, throughput.py) -------------------------
    "errors.tokens_range": "--tokens：{text} 超出范围（可接受：{range}）",
    "errors.train_short": "{model} 的 {task} 训练放不下 {count} 张 {gpu}：每卡还差 {short}",
    "errors.serve_short": "{model} 放不下 {count} 张 {gpu}：每卡还差 {short:.2f} GiB",
    # --- cost (advisor/estimator/cost.py) ----------------------------------------------------------------------------
    "errors.no_price": "目录中没有 {gpu} 的价格；请用 --gpu-price 指定单卡价格（{currency}）",
    "errors.electricity": "电价不能为负数：{price:g}",
    "errors.region": "未知地区 '{region}'（可选：cn、global）",
    # --- a name the catalogs lack (knowledge/errors.py UnknownIdError) ------------------------------------------------
    "errors.unknown_id": "未知的{what}“{name}”{hint}",
    "errors.unknown_id.gpu": "显卡",
    "errors.unknown_id.model": "模型",
    "errors.unknown_id.hint": "；是不是：{names}？",
    "errors.unknown_id.sep": "、",
    # --- the recommender, the dialog, the store and the outputs -------------------------------------------------------
    "errors.no_model": "没有指定模型（可用 `gpu-advisor models` 查看支持的模型）",
    "errors.dialog_value": "参数 {where} 无效：{msg}",
    "errors.older_than": "--older-than：{text!r} 不是有效的时长（可接受：正数加单位，如 30d 天、12h 小时、45m 分钟、90s 秒；只写数字表示天）",
    "errors.not_finite": "结果中有非有限数值，未输出 JSON",
    "errors.no_chromium": "找不到用于生成 PDF 的 Chromium（apt-get install chromium）",
    "errors.chromium_timeout": "Chromium 生成 PDF 超时",
    "errors.chromium_failed": "Chromium 无法生成 PDF",
}
