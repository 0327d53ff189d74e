"""规则结论的中文措辞 (the catalog's "rules" section: the wording of rules/*.py's findings, one template per rule id;
keys and placeholders of `rules_en.py`, same order). Edit the words, never the keys or fields."""

from __future__ import annotations

from collections.abc import Mapping

MESSAGES: Mapping[str, str | Mapping[str, str]] = {
    # --- the rules could not be evaluated (rules/engine.py) ------------------------------------------------------
    "rules.not_validated": "规则无法检查；这个答案未经验证（{detail}），请重试",
    "rules.unknown_rule": "未知的规则“{rule_id}”{hint}",
    "rules.unknown_rule.hint": "；您是否要找：{close}？",
    # --- a fact the caller asserted is invalid (rules/facts.py) ----------------------------------------------------
    "rules.fact.unknown_kind": "未知的事实类型 {kind!r}（可用：config、workload、claim）",
    "rules.fact.invalid": "{kind} 事实无效：{msg}",
    "rules.fact.not_a_value": "{kind} 事实的字段“{loc}”取值 {got!r} 无效",
    "rules.fact.required": "{kind} 事实缺少字段“{loc}”",
    "rules.fact.wrong_value": "{kind} 事实的字段“{loc}”取值 {got!r} 无效",
    "rules.fact.accepted": "（可用：{accepted}）",
    # --- display notes the templates share (rules/render.py) ------------------------------------------------------
    "rules.note.kv": "（其中 KV 缓存占 {kv_gib:.1f} GiB，上下文 {context:,} tokens）",
    "rules.note.computed": "（计算值：{value:,g} {unit}）",
    # --- sizing (rules/sizing.py) -----------------------------------------------------------------------------------
    "rules.sizing-does-not-fit": "放不下：估算每卡需要 {per_gpu_gib:.1f} GiB 显存，而 {gpu} 只有 {memory_gib:.1f} GiB。请降低精度、缩短上下文"
        "或批量、切分到更多 GPU，或选用显存更大的卡。",
    "rules.sizing-low-headroom": "余量不足：估算每卡使用 {memory_gib:.1f} GiB 中的 {per_gpu_gib:.1f} GiB，只剩 {headroom_ratio:.0%}。推理引擎"
        "默认预留约十分之一显存（vLLM 的 `gpu_memory_utilization` 为 0.9），碎片或更长的请求可能导致显存溢出。",
    "rules.sizing-kv-dominates": "KV 缓存占每卡显存的 {kv_share:.0%}（{kv_cache_gib:.1f} GiB）：决定显存的主要是上下文长度和并发，而非权重。"
        "FP8 KV 缓存可减半；缩短最大上下文或减少并发序列会按比例减少。",
    "rules.sizing-dp-attention": "注意力在 {tp} 张卡上做数据并行：每张卡只缓存自己那部分请求的 KV（{kv_cache_gib:.1f} GiB），"
        "而张量并行会把整份 MLA 潜在 KV 缓存复制到每张卡上——{count} 张卡能扛住这个负载靠的就是这一点。代价是每张卡都要放一份完整的注意力权重，"
        "且每个提示词只由一张卡预填充，单个超长提示词的首 token 比纯 TP 更慢。",
    "rules.sizing-pcie-tensor-parallel": "仅通过 PCIe 做 {tp} 路张量并行（{gpu} 不支持 NVLink）：每一层都要经 PCIe 和主机在 {tp} 张卡间做 all-reduce，"
        "加速远低于 {tp} 倍。建议 tp=2 配合流水线或数据并行，或选用支持 NVLink 的卡。",
    "rules.sizing-tp-spans-nodes": "{tp} 路张量并行超出单机（每台 {gpus_per_node} 张卡），每层的 all-reduce 都要跨网络。请将张量并行限制在单机"
        "内，机间使用流水线并行。",
    "rules.sizing-tp-heads": "{tp} 路张量并行不能整除模型的注意力头数；vLLM 会拒绝启动（“Total number of attention heads must be divisible "
        "by tensor parallel size”）。请使用头数的约数（如 2、4、8），其余用流水线并行。",
    "rules.sizing-offload-ram-short": "内存不足：卸载（offload）每台机器需要 {offload_cpu_gib:.1f} GiB 主机内存，而机器只有 {cpu_ram_gib:.1f} GiB。"
        "请增加内存、减少卸载内容（仅卸载优化器），或增加 GPU 以减少卸载量。",
    "rules.sizing-offload-ram-tight": "卸载需要占用机器 {cpu_ram_gib:.1f} GiB 内存中的 {offload_cpu_gib:.1f} GiB（{offload_ram_ratio:.0%}）；"
        "数据加载、锁页缓冲和操作系统也需要内存，请增加内存。",
    "rules.sizing-layer-offload-slow": "有 {offload_cpu_layers} 层放在系统内存（llama.cpp -ngl {offload_gpu_layers}）：每生成一个 token 都要按内存带宽"
        "读取这些层，解码速度降到约 {offload_tokens_per_s:.1f} tokens/s。实测单卡上 14B Q4_K_M 模型全部层在 GPU "
        "时 43 tokens/s，48 层中有 8 层在内存时只有 12.5。适合试用模型或离线批处理，不适合交互式服务：换更小的能放下"
        "的量化格式，或加一张卡，让所有层都在 GPU 上。",
    "rules.sizing-deadline-missed": "太慢：在 {count} × {gpu} 上训练估计需要 {train_days:.1f} 天，超过 {deadline_days:.1f} 天的期限。"
        "可增加或换用更快的 GPU、减少训练 token，或改用参数高效微调。",
    "rules.sizing-deadline-tight": "工期紧张：训练估计需要 {train_days:.1f} 天，期限为 {deadline_days:.1f} 天（占 {deadline_ratio:.0%}）；"
        "一次重启、低于假设的 MFU 或数据问题都可能导致延期。",
    "rules.sizing-over-budget": "超出预算：价格 {price_amount:,.0f} {currency}，预算 {budget_amount:,.0f} {currency}（{budget_ratio:.0%}）。",
    "rules.sizing-over-power": "超出功率上限：{count} × {tdp_w:.0f} W = {power_w:,.0f} W 显卡功耗，上限为 {power_limit_w:,.0f} W。",
    "rules.sizing-throughput-short": "未达吞吐目标：总吞吐约 {tokens_per_s:,.0f} tokens/s，目标为 {min_tokens_per_s:,.0f} tokens/s"
        "（{throughput_ratio:.0%}）。",
    "rules.sizing-latency-short": "未达延迟目标：每个输出 token 约 {ms_per_token:.1f} ms，目标不超过 {max_ms_per_token:.1f} ms。",
    "rules.sizing-context-over-model": "上下文 {context:,} tokens 超过模型最大上下文 {max_context:,}；推理引擎默认不接受更长的 --max-model-len，"
        "且超出训练长度后效果无法保证。",
    "rules.sizing-guide-config-short": "指南推荐的配置“{guide_config}”放不下该任务：估算每卡需要 {per_gpu_gib:.1f} GiB{kv_note}，而 {gpu} 只有 "
        "{memory_gib:.1f} GiB。",
    "rules.sizing-guide-config-tight": "指南推荐的配置“{guide_config}”勉强放得下：每卡使用 {per_gpu_gib:.1f} GiB{kv_note}，共 {memory_gib:.1f} "
        "GiB，余量 {headroom_ratio:.0%}。",
    # --- market (rules/market.py) -----------------------------------------------------------------------------------
    "rules.market-cn-restricted-2022": "{gpu} 对华出口需要美国许可证：A100 与 H100 自 2022-10-07 新规起受限，并在英伟达 2023-10-17 的 8-K "
        "公告中再次列出。在国内新购该卡不是合规选项（非法律意见）。",
    "rules.market-cn-restricted-2023": "{gpu} 自 2023-10-17 新规起对华出口需要美国许可证（见英伟达当日 8-K 公告）。A800、H800 原本是 A100、"
        "H100 的中国特供版，指南“国内选购 A800/H800”的建议早于该规定（非法律意见）。",
    "rules.market-cn-4090-restricted": "RTX 4090 自 2023-11-17 起对华出口需要美国许可证（英伟达 2023-10-17 的 8-K 公告列出）。国内版本为 "
        "RTX 4090 D（2023-12-28 发布）：同为 24 GB，稠密 BF16 算力 147（4090 为 165）TFLOPS，功耗 425 W。"
        "2023 年 10 月水货 4090 售价曾高达 ¥29,000。",
    "rules.market-cn-a10g-aws-only": "{gpu} 是 AWS 专用的 A10 变体（EC2 G5 实例），不单独出售显卡，国内外都买不到。可在 AWS 提供 G5 的区域租用，"
        "或购买 A10（同为 24 GB、600 GB/s，张量算力更高）。",
    "rules.market-cn-5090-not-sold": "RTX 5090 不在国内销售（超出 TPP 4,800 门槛）。国内版本为 RTX 5090 D（2025 年 1 月；AI TOPS 限制为 "
        "2,375），2025-08-12 起为 24 GB 的 5090 D V2。",
    "rules.market-cn-restricted-threshold": "{gpu} 未在英伟达 8-K 公告中点名，但按计算超过 2023-10-17 新规的门槛（总处理性能 TPP ≥ 4,800，或 "
        "≥ 1,600 且性能密度 ≥ 5.92），因此按需许可证处理（仅为计算结论，非法律意见）。",
    "rules.market-cn-h20-licence": "H20 是 2023-10-17 新规后为国内市场推出的型号，但自 2025-04-09 起也需要美国出口许可证。2025 年 7–8 月许可"
        "恢复（对华收入的 15% 上缴美国政府），而国内监管部门自 2025 年 8 月起劝阻采购 H20；2026-01-10 的报道称其"
        "国内销量几乎为零：报价前请确认货源。",
    "rules.market-cn-h200-reported": "{gpu} 超出出口门槛。2025-12-08 美国决定允许向经批准的中国客户销售 H200，收入的 25% 上缴美国政府（不含 "
        "Blackwell）；2025-12-19 许可申请进入跨部门审查，2026 年 1 月的规定要求第三方检测、对华数量不超过对美供货的 "
        "50%，AMD MI325X 亦类似处理。2026-01-10 的报道称 H200 单卡约 ¥190,000、需全额预付；中方是否放行尚不确定。"
        "请按依赖许可证处理，并向供应商确认（非法律意见）。",
    "rules.market-cn-l20": "L20（Ada 架构，48 GB）是 2023-10-17 新规后为国内市场推出的型号，可在国内购买（2024-03-25 渠道价约每卡 "
        "¥75,000，可靠性较低的数据点）。",
    "rules.market-cn-4090d": "RTX 4090 D 是 RTX 4090 的国内版本（2023-12-28 发布，售价 ¥12,999，与 4090 相同）：CUDA 核心 14,592 "
        "个（4090 为 16,384），功耗 425 W，以满足 TPP 4,800 的门槛。",
    "rules.market-cn-5090d": "RTX 5090 D 是 RTX 5090 的国内版本。首版（2025 年 1 月，32 GB）据报道已于 2025 年停售；2025-08-12 起"
        "以同价 ¥16,499 销售的 V2 版只有 24 GB（384 位），按 32 GB 规划的方案可能放不下。",
    "rules.market-cn-restricted-in-hand": "{gpu} 的新增对华出口受限，但已在国内的卡（自有或向本地云租用）仍可使用；受影响的是扩容与备件。",
    "rules.market-cn-rtx-pro-6000": "按计算 {gpu} 超出对华出口门槛（稠密 FP8 约 1,000 TFLOPS，TPP 约 8,000 > 4,800）。其中国版 RTX Pro 6000D"
        "（2025 年 7 月报道为“B40”：GDDR7、无 NVLink）原本接替 H20，但 2025-09-17 国家网信办要求字节跳动、阿里巴巴"
        "等停止测试和订购（非法律意见）。",
    "rules.market-cn-blackwell-dc": "{gpu} 是数据中心 Blackwell GPU，不对华许可。2025-12-08 允许 H200 对华销售的决定不包括 Blackwell 与 "
        "Rubin；2025-08-19 报道的中国版 Blackwell（B30A：单芯片，约为 B300 的一半，配 HBM 与 NVLink）需美方批准，"
        "至今未获批（非法律意见）。",
    # --- capability (rules/capability.py) ---------------------------------------------------------------------------
    "rules.cap-bf16-needs-ampere": "{gpu}（{arch}）不支持 BF16（NVIDIA 卡需 Ampere 或更新架构）。请改用 FP16（训练时用带损失缩放的混合"
        "精度）；以 BF16 训练的模型在 FP16 下可能溢出，需验证输出。",
    "rules.cap-fp8-training": "FP8 训练需要 FP8 张量核心（Ada、Hopper 或 Blackwell，计算能力 8.9 及以上）；{gpu}（{arch}）没有。"
        "请在该卡上使用 BF16/FP16 混合精度训练，或改用支持 FP8 的显卡。",
    "rules.cap-fp8-weight-only": "{gpu}（{arch}）没有 FP8 张量核心：vLLM 会以仅权重量化 W8A16（FP8 Marlin）方式运行 FP8 模型，"
        "权重显存减半，但计算仍为 16 位，prefill 没有加速；MoE 的 FP8 层在此路径下可能不受支持。",
    "rules.cap-fp8-ascend": "{gpu} 不支持 FP8：FP8 模型在昇腾上要先用 msModelSlim 转成 W8A8 INT8（每个权重同样 1 字节，上面的显存仍成立），"
        "再用 vllm-ascend 的 --quantization ascend 启动。",
    "rules.cap-fp8-unsupported": "{gpu}（Volta，计算能力 7.0）无法运行 FP8 模型：vLLM 的仅权重 FP8 路径需要计算能力 7.5 及以上。"
        "请改用 FP16 或 INT8/INT4 格式。",
    "rules.cap-bf16-serving-pre-ampere": "{gpu}（{arch}）没有 BF16 张量核心，因此不提供 BF16 配置：请改用量化版本（GPTQ/AWQ/GGUF，这类卡可运行）"
        "或转为 FP16（`--dtype half`，需验证输出：以 BF16 训练的模型在 FP16 下可能溢出）。",
    "rules.cap-fp4-ascend": "{gpu} 没有 MXFP4/NVFP4 内核（昇腾中只有 Ascend 950 支持）：FP4 模型要先用 msModelSlim 转成 W8A8 INT8，每个权重的字节数翻倍。",
    "rules.cap-awq-needs-turing": "{gpu}（Volta，计算能力 7.0）在 vLLM 中没有 AWQ 内核（AWQ 需要计算能力 7.5 及以上）：请改用 GPTQ 或 GGUF 量化版本。",
    "rules.cap-fa2-training": "FlashAttention-2 支持 Ampere、Ada 与 Hopper；在 {gpu}（{arch}）上训练会退回其他注意力实现"
        "（Turing 上的 FlashAttention 1.x 或 PyTorch 的内存高效 SDPA），长序列下更慢且激活显存更大。"
        "请按不使用 FlashAttention-2 估算激活显存。",
    "rules.cap-fa2-inference": "{gpu}（{arch}）不支持 FlashAttention-2，推理引擎会改用其他注意力实现（如 xFormers 或 PyTorch "
        "SDPA），长上下文 prefill 比 Ampere 及更新架构慢。",
    "rules.cap-no-nvlink": "该方案依赖 NVLink，但 {gpu} 不支持（GeForce 40 与 50 系列没有 NVLink 接口），指南（000）中的“双 RTX "
        "4090 NVLink”无法实现。RTX 3090 与 3090 Ti 支持 112.5 GB/s 的双卡桥接；否则卡间通信走 PCIe。",
    "rules.cap-3090-nvlink-bridge": "两张 {gpu} 可以用双卡 NVLink 桥接（总带宽 112.5 GB/s），是 PCIe 通信带宽的数倍；指南（003）“30 系显卡"
        "取消了 NVLink”的说法有误。",
    "rules.cap-3090-nvlink-pairs": "{gpu} 的 NVLink 桥接（总带宽 112.5 GB/s；指南（003）“30 系显卡取消了 NVLink”的说法有误）只能两两相连："
        "{count} 张卡时，不同卡对之间仍走 PCIe，张量并行请限制在桥接的一对卡内。",
    "rules.cap-a10-t4-training": "指南（003）认为 A10、T4 等显卡在深度学习推理与训练方面表现较差（用于大模型时算力和显存带宽不足）。"
        "训练请优先选择 RTX 3090/4090 级别或数据中心训练卡。",
    "rules.cap-a10-t4-inference": "指南（003）认为 A10、T4 的大模型推理表现较差，而指南（000）把 T4（以及 L40S）列为长期运行推理的高能效"
        "选择：适合低负载的小模型，大模型或高并发时速度偏慢。",
    "rules.cap-old-arch-software": "{gpu} 属于 {arch} 架构：指南（003）提醒旧款 GPU 存在软件不适配问题。当前软件栈越来越多地默认 "
        "Ampere 及以上（BF16、FlashAttention-2、FP8 内核），请确认所用框架版本对计算能力 7.x 的支持。",
    "rules.cap-non-cuda-stack": "{gpu} 不使用 CUDA 生态：指南（000）指出 AMD ROCm 和国产 GPU 的软件栈正在追赶，但在算子覆盖率和性能优化上"
        "仍有差距。请确认所用框架、内核与量化格式在该卡上受支持。",
    "rules.cap-metal-engines": "{gpu} 使用苹果 Metal 软件栈：{engine} 没有 Metal GPU 后端（vLLM 在 Mac 上只能用 CPU；TensorRT-LLM、"
        "DeepSpeed、Megatron 需要 CUDA）。请用 llama.cpp（Metal）或 MLX（mlx-lm，也支持 LoRA 微调）。",
    "rules.cap-metal-stack": "{gpu} 使用苹果 Metal 软件栈：可用引擎为 llama.cpp（GGUF 量化）与 MLX（MLX 4/8 位格式）；没有 CUDA、FP8 "
        "和 FlashAttention-2，vLLM 也无法使用其 GPU。",
    "rules.cap-cann-engines": "{gpu} 使用华为 CANN 软件栈而非 CUDA：{engine} 无法在其上运行。推理请用 MindIE 或 vLLM 的 vllm-ascend "
        "插件（llama.cpp 也有 CANN 后端）；训练请用 MindSpore 或 torch_npu。",
    "rules.cap-fp4-weight-only": "{gpu}（{arch}）没有 FP4 矩阵单元（只有英伟达 Blackwell 与 AMD CDNA 4 具备）：FP4 权重会反量化为 16 位参与"
        "矩阵乘法，节省显存但没有 FP4 算力加速。",
    "rules.cap-machine-not-a-card": "{gpu} 是一台统一内存的整机，不是显卡：{count} 台就是通过雷雳或以太网连接的 {count} 台机器（exo、llama.cpp "
        "RPC、MLX 分布式，DGX Spark 为 200 GbE），只能按流水线切分并受网络速度限制，不能像 NVLink 那样做张量并行。",
    "rules.cap-machine-no-tp": "在多台 {gpu} 之间做 {tp} 路张量并行不可行：每台都是独立的计算机，它们之间只有雷雳或以太网，远低于每层 "
        "all-reduce 所需的带宽。请改用内存更大的单台机器，或按流水线切分。",
    # --- risk (rules/risk.py) ---------------------------------------------------------------------------------------
    "rules.risk-modded-card": "{gpu} 是社区魔改显存版本（在改装的板卡上加焊或更换显存颗粒，并使用改过的 vBIOS，不是英伟达的产品）。"
        "指南（003）将这类魔改卡中的 2080 Ti 22G 性价比排在第一（约 ¥2,400，未注明日期），但指出使用有一定风险：没有英伟达或"
        "板卡厂商保修，稳定性取决于改装工艺和显存散热，驱动与 vBIOS 未针对其验证。投入使用前请对每张卡做长时间满载测试。",
    "rules.risk-used-card": "二手卡：指南提到二手市场（RTX 4090；A6000 二手约 ¥15,000，截至 2025-06）。通常没有或无法转移保修，"
        "使用经历不明（挖矿、7×24 训练）：请做满载显存与温度测试，检查风扇和导热垫，并预留备用卡。",
    "rules.risk-consumer-multi-node": "{count} 张消费级显卡分布在 {nodes} 台机器上：指南（003）指出，在集群环境下考虑到数据传输损耗和集群运行"
        "稳定性，数据中心卡（A100/H100，国内为其合规版本）仍是首选。扩展效率与稳定性会低于单卡性价比所显示的水平。",
    "rules.risk-pcie-multi-node": "{count} 张 {gpu} 分布在 {nodes} 台服务器上，一份模型跨机切分：这类 PCIe 卡没有交换式互联，"
        "流水线交接或梯度同步都要走服务器之间的网络。指南（003）指出集群环境下考虑到数据传输损耗和稳定性应优先选用"
        "带 NVLink 的数据中心卡；一台能放下模型的 NVLink 交换整机通常更容易运维。",
    "rules.risk-geforce-datacenter-licence": "英伟达 GeForce 驱动许可（第 2.1.3 条）不允许在数据中心部署（区块链处理除外）。放在数据中心的多机 {gpu} "
        "集群可能受此条款约束，搭建前请确认（非法律意见）。",
    "rules.risk-575w-card": "{gpu} 功耗 {tdp_w:.0f} W（瞬时峰值约 659 W）；英伟达建议单卡系统至少配 1,000 W 电源。请选用 ATX 3.x "
        "电源并完全插紧原生 12V-2x6 线缆，保证机箱风道和卡间距；此配置仅显卡就需 {power_w:,.0f} W（{count} × {tdp_w:.0f} W）。",
    "rules.risk-workstation-power": "单机 {gpus_per_node} 张 {gpu} 仅显卡功耗就达 {node_gpu_power_w:,.0f} W。指南（000）“普通工作站即可搭载”"
        "只适用于单卡：请规划服务器电源（双路或冗余）、专用供电回路以及涡轮或机架散热。",
    "rules.risk-consumer-24x7": "消费级显卡长时间满载运行：指南（000）指出专业卡按 7×24 小时运行设计，故障率低于消费卡，A100/H100 "
        "系统支持热维护和冗余电源。请准备备用卡、频繁保存检查点并监控温度。",
    # --- substitution (rules/substitution.py) -----------------------------------------------------------------------
    "rules.sub-4090-3090-inference": "指南允许用 RTX 3090 等价替换 {gpu}（均为 24 GB 显存）。推理场景基本成立：解码速度取决于显存带宽"
        "（936 对 1,008 GB/s），3090 功耗 350 W 而非 450 W；但计算密集的提示词处理（prefill）更慢"
        "（稠密 BF16 算力 71 对 165 TFLOPS）。",
    "rules.sub-4090-3090-training": "指南中“RTX 4090 可等价替换为 RTX 3090”只在显存上成立（均为 24 GB），训练速度上不成立：3090 稠密 BF16 "
        "算力 71 TFLOPS，4090 为 165 TFLOPS，计算密集的训练耗时约为 2.3 倍。3090 支持双卡 NVLink 桥接"
        "（112.5 GB/s），4090 不支持。",
    "rules.sub-4090-3090-fp8": "在 FP8 精度下，指南的“4090 可替换为 3090”不成立：3090（Ampere 架构）没有 FP8 张量核心，FP8 权重只能以"
        "仅权重量化（W8A16，vLLM 的 FP8 Marlin 路径）方式运行，得不到 FP8 计算加速。FP8 任务请保留 {gpu}。",
    "rules.sub-3090-4090": "指南将 RTX 3090 与 RTX 4090 视为可互换（均为 24 GB）。换成 4090 可获得 165（而非 71）TFLOPS 稠密 BF16 "
        "算力和 FP8 支持，但没有 NVLink 桥接，单卡功耗 450 W（而非 350 W）。",
    "rules.sub-3090-4090d-cn": "指南将 RTX 3090 与 RTX 4090 视为可互换。在国内，4090 自 2023-10-17 新规起受限；国内版本为 RTX 4090 D"
        "（2023-12-28 发布；24 GB，稠密 BF16 算力 147 TFLOPS，3090 为 71，支持 FP8，425 W，无 NVLink）。",
    "rules.sub-a100-a800-cn": "指南建议在国内用 A800 替换 A100。该建议已过时：A800 本身自 2023-10-17 新规起也被限制对华出口"
        "（A100 自 2022-10-07 起）。A800 的算力与显存与 A100 相同，仅 NVLink 带宽由 600 GB/s 降至 400 GB/s。",
    "rules.sub-l40-l20-cn": "指南建议在国内用 L20 替换 L40（L40 与 L40S 自 2023-10-17 新规起受限）。L20 同为 48 GB、864 GB/s，"
        "解码速度相近；但稠密 BF16 算力为 119.5 TFLOPS，L40 为 181、L40S 为 362，计算密集的任务更慢。",
    "rules.sub-h100-h800-cn": "指南（000）给出 H800 作为 H100 的中国特供版（NVLink 由 900 降至 400 GB/s）。该信息已过时：H800 自 "
        "2023-10-17 新规起受限；其后续国内版本 H20（96 GB、4.0 TB/s、稠密 BF16 148 TFLOPS）自 2025-04-09 起"
        "也需要出口许可证。",
    "rules.sub-5090-5090d-cn": "指南给出国内版本 RTX 5090 D：同为 32 GB、1,792 GB/s，AI TOPS 由 3,352 限制为 2,375。2025-08-12 起在售的"
        "是 RTX 5090 D V2：24 GB、384 位（1,344 GB/s），显存估算按 24 GB 核对。",
    "rules.sub-china-variant-outside-cn": "{gpu} 是中国市场特供版本（为满足出口管制削减了互联或算力）。在中国以外可以买到原版，同等显存下性能不低于特供版。",
    # --- value (rules/value.py) -------------------------------------------------------------------------------------
    # the value ranking, one template for its five rules (rules.value._rank_rule): each fills in its place
    "rules.value-rank": "指南（003）的性价比排名（单卡、每元性能）：2080Ti 22G > 4080 > 3090 > 4090 > 2080Ti 11G；{gpu} 排"
        "{place}该排名未考虑多卡损耗、运行稳定性与软件适配。",
    "rules.value-rank.place.1": "第一。它同时风险最高（魔改显存、无保修）。",
    "rules.value-rank.place.2": "第二。指南认为单卡环境下 4080（16 GB）是性价比之王。",
    "rules.value-rank.place.3": "第三。",
    "rules.value-rank.place.4": "第四。",
    "rules.value-rank.place.5": "第五。",
    "rules.value-cluster-prefers-datacenter": "用 {count} 张消费级或工作站显卡训练：指南（003）的性价比排名只针对单卡，未考虑多卡通信损耗与稳定性；"
        "在集群环境下它首选 A100/H100 级别的卡（国内为其合规版本）。请比较估算的训练时间，而非单卡性价比。",
    "rules.value-4090-training": "指南（003）认为 4090 的训练能力不如 A100，受限于 24 GB 显存和显存带宽（1,008 GB/s，A100 80GB SXM 最高 "
        "2,039 GB/s；稠密 BF16 为 165 对 312 TFLOPS）。指南还指出，按单位人民币可买到的大模型训练性能，3090 约是 "
        "4090 的 1.5 倍。",
    "rules.value-4090-inference": "指南（003）认为 4090 推理性能很强，强于 A100。这在低精度算力上成立（稠密 INT8 660 对 "
        "624 TOPS），但解码速度取决于显存带宽：4090 为 1,008 GB/s，A100 为 1,555–2,039 GB/s，且 A100 有 40 或 80 GB 显存。",
    "rules.value-3090-training": "指南（003）认为 3090 是低成本训练选择，但受显存（24 GB）和带宽限制，实际与 A100 差距较大。“理论性能约为 "
        "A100 的 60%”偏高：FP32 累加的稠密 BF16 算力为 71 对 312 TFLOPS（约 23%），带宽 936 对 1,555–2,039 GB/s。",
    "rules.value-scope-4090": "指南（000）给 RTX 4090 的适用范围是：130 亿参数以下微调、70 亿参数以下全参训练、13B 的 8-bit 推理"
        "（或 7B 的 16-bit 推理）。本任务 {params_b:.0f}B 超出此范围：{count} × {gpu} 是否够用以显存估算和并行布局为准。",
    "rules.value-scope-5090": "指南（000）给 RTX 5090/5090 D 的适用范围是：70 亿参数以下全参微调、200 亿参数以下推理。本任务 "
        "{params_b:.0f}B 超出此范围：{count} × {gpu} 是否够用以显存估算和并行布局为准。",
    "rules.value-scope-5080": "指南（000）给 RTX 5080（16 GB）的适用范围是：30 亿参数以下训练、70 亿参数以下推理。本任务 "
        "{params_b:.0f}B 超出此范围，以显存估算为准。",
    "rules.value-a100-training-counts": "指南（000）认为 A100/A800 对 70 亿到 300 亿参数模型的训练投资回报最好，推荐 7B 用 4 张、13B 用 8 张、"
        "30B 用 12 张。本方案以 {count} 张训练 {params_b:.0f}B，以显存与时间估算为准。",
    "rules.value-h100-large-training": "指南（000）推荐 H100 级别的卡用于 300 亿参数以上模型的分布式训练，正如本任务（{params_b:.0f}B）："
        "机内靠 NVLink、机间靠 InfiniBand 支撑并行。",
    "rules.value-a6000-memory": "指南（000）看重 A6000 的 48 GB 显存，二手约 ¥15,000（截至 2025-06）：适合大批量或多模态等显存需求大、"
        "对峰值算力要求不高的推理。按 GA102 白皮书其稠密 BF16 算力为 154.8 TFLOPS，指南的 77 TFLOPS 偏低。",
    # --- scenario (rules/scenario.py) -------------------------------------------------------------------------------
    "rules.tier-personal": "指南（003）场景“个人学习、小型科研团队”：推理与微调 7B–14B，训练约 0.2B，并发 1–5，数据量 GB 级，显存需求"
        "约 35 GB。基础配置：2× RTX 2080 Ti 22G、12 代 i5、64 GB 内存、2 TB 硬盘，约 ¥14,000；进阶配置：2× RTX "
        "3090、12 代 i7、64 GB、2 TB，约 ¥14,000（指南价格，未注明日期）。",
    "rules.tier-small-team": "指南（003）场景“中小型科研团队、初创公司”：推理与微调 14B–30B，训练约 2B，并发 5–20，数据量 TB 级，显存"
        "需求约 80 GB。基础配置：4× RTX 2080 Ti 22G、至强 W3、64 GB 内存、2 TB，约 ¥30,000；进阶配置：4× RTX "
        "3090、至强 W5、128 GB、2 TB，约 ¥47,000（指南价格，未注明日期）。",
    "rules.tier-large-team": "指南（003）场景“大型科研团队、中大型公司”：推理与微调 70B，训练约 7B，并发 5–200，数据量 10 TB，显存需求约 "
        "140 GB。基础配置：4× L20、至强 6133、128 GB 内存、10 TB，约 ¥140,000；进阶配置：4× A100 40G、Intel C621 "
        "平台、128 GB、10 TB，约 ¥180,000（指南价格，未注明日期）。",
    "rules.tier-beyond": "该任务超出指南（003）最大场景（70B 推理/微调、7B 训练、200 并发）。指南（000）千亿级部分建议使用配备 "
        "InfiniBand 的多机 H100 级集群（国内为 H800/A800，二者现已受限）；请以显存与时间估算确定规模。",
    "rules.size-table-7b": "指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（7B 行）："
        "训练最低 2× RTX 4090，微调最低 1× RTX 4090，推理最低 1× RTX 4080，生产级 1× "
        "A6000 或 2× RTX 4090。十亿级部分另建议：低成本研究用单张 4090 或 3090，团队开发用双 4090“NVLink”或单张 "
        "A6000（4090 并不支持 NVLink）。",
    "rules.size-table-13b": "指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（13B 行）："
        "训练最低 4× RTX 4090，微调最低 2× RTX 4090，推理最低 1× RTX 4090（8-bit），"
        "生产级 1× A100 40GB 或 2× RTX 5090 D。百亿级部分：学术研究用 4–8× RTX 4090 或 2–4× RTX 5090 D，企业训练用 "
        "8× A100/A800 或 4× H100，生产推理用 A100 80GB 或 L40S。",
    "rules.size-table-70b": "指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（70B 行）："
        "训练最低 8× A100 80GB，微调最低 4× A100 80GB，推理最低 1× A100 80GB（4-bit），"
        "生产级 8× A100/H100 集群。该部分“70B FP16 推理约 70 GB”“4-bit 约 28 GB”低估了权重（约 140 GB 与 35 GB，"
        "尚未计入 KV 缓存）。",
    "rules.size-table-130b": "指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（130B 行）："
        "训练最低 16× A100 80GB，微调最低 8× A100 80GB，推理最低 2× A100 80GB"
        "（4-bit），生产级 16× H100 NVLink 集群。千亿级部分：采用张量、流水线与数据并行结合的 3D 并行，推理用 8–16 "
        "张 H100 的服务器或弹性云服务。",
    "rules.size-table-300b": "指南（000）模型规模表中与 {params_b:.3g}B 最接近的一行（300B+ 行）："
        "训练最低 32× H100，微调最低 16× H100，推理最低 8× H100（量化），生产级 "
        "256× H100 + InfiniBand。千亿级部分提示：超大模型推理可能需要跨节点部署，会引入明显的通信延迟。",
    # --- practice (rules/practice.py) -------------------------------------------------------------------------------
    "rules.practice-memory-first": "显存容量优先（指南 000）：{count} 张卡的聚合显存只有在切分后才能容纳该任务；按当前布局每卡需要 "
        "{per_gpu_gib:.1f} GiB，而单卡只有 {memory_gib:.1f} GiB。推理请用张量并行，训练请用 ZeRO-3/FSDP。",
    "rules.practice-interconnect-pcie": "通信带宽优化（指南 000）：多卡训练适合 NVLink 等高带宽互联，而 {gpu} 不支持，梯度和参数只能经 PCIe 传输。"
        "优先使用数据并行加 ZeRO-1/2，而非张量并行，并预期扩展效率低于线性。",
    "rules.practice-interconnect-multi-node": "在 {nodes} 台机器间通过普通以太网训练：指南（000）认为 InfiniBand 是多机互联的黄金标准，没有它时梯度同步会"
        "占据大部分步时。请使用 InfiniBand 或 RoCE，或将任务放进单台机器。",
    "rules.practice-single-node-first": "指南（000）：小规模任务（8 卡及以下）优先考虑单机多卡，避免网络瓶颈；这 {count} 张卡分布在 {nodes} 台机器上，"
        "可以放进一台 8 卡服务器。",
    "rules.practice-precision-training": "精度权衡（指南 000）：训练请使用 FP16/BF16 混合精度（显卡支持时可用 FP8）。纯 FP32 的权重与激活显存是 16 位"
        "的两倍，且无法走张量核心的快速路径。",
    "rules.practice-quantize-inference": "精度权衡（指南 000）：推理可采用 INT8/FP8 甚至 4-bit 量化。以 {precision} 部署时 {gpu} 只剩 "
        "{headroom_ratio:.0%} 的显存余量；8 位权重可将权重显存减半，4 位减至四分之一，但会有一定精度损失。",
    "rules.practice-energy-always-on": "能效比考量（指南 000）：长期运行的推理任务应选择 L40S 或 T4 等高能效 GPU，指南称 H100 的能效约为 RTX 4090 "
        "的两倍。这 {count} 张卡满载功耗 {power_w:,.0f} W，在使用期内是持续的电费成本。",
    "rules.practice-cloud-fluctuating": "指南（000）：云服务适合波动负载（无前期投入、无闲置硬件、无技术过时风险）。购买前请按实际利用率比较租用成本。",
    "rules.practice-own-steady": "指南（000）：固定负载自建集群通常比按需租用云服务的 TCO 更低；请比较购买与租用的盈亏平衡利用率。",
    "rules.practice-hardware-lifecycle": "指南（000）：AI 硬件迭代快，平均生命周期为 3–4 年，消费级显卡残值率更低；{tco_years:g} 年的 TCO 应计入"
        "一次更新换代或较低的残值。",
    # --- claims (rules/claims.py) -----------------------------------------------------------------------------------
    "rules.claim-wrong-figure": "指南中的数字有误：指南给出 {stated_value:,g} {unit}，计算值为 {computed_value:,g} "
        "{computed_unit}。{correction_note}",
    "rules.claim-wrong-statement": "指南中的说法有误：“{claim_quote}”{computed_note}。{correction_note}",
    "rules.claim-dated": "指南中的说法已过时：“{claim_quote}”{computed_note}。{correction_note}",
    "rules.claim-right": "指南中的说法经核对无误：“{claim_quote}”{computed_note}。",
}
