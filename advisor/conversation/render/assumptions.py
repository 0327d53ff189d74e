"""Assumptions: the dialog's defaults with their numbers, the recommender's sentences in Chinese, and
what the training time's MFU rests on.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from advisor.analysis.result import Assumption
from advisor.conversation.render.book import SRC_TRAINING, Book, decimals_for
from advisor.estimator.engines import ENGINE_VERSIONS
from knowledge.messages import known, t

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option


def assumptions_block(assumptions: list[Assumption], book: Book, lang: str) -> str:
    if not assumptions:
        return ""
    lines = [t("assumptions.title", lang)]
    for a in assumptions:
        values = {}
        for key, (value, unit, source) in a.numbers.items():
            if unit == "tokens":
                values[key] = book.tokens(f"assumed {key}", value, source, lang)
            else:
                values[key] = book.num(f"assumed {key}", value, unit, source, decimals_for(value),
                                       suffix="" if unit in ("sequences", "people") else None)
        lines.append("- " + (a.zh if lang == "zh" else a.en).format(**values))
    return "\n".join(lines)


# Chinese wording of the recommender's and estimator's fixed assumption sentences (they are generated from
# templates); a sentence that matches none is shown as written.
_ASSUMPTION_ZH: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^a configuration fits when its per-GPU memory leaves ≥ (?P<p>[\d.]+%) of the card free"),
     "每卡显存至少留出 {p} 余量才算放得下"),
    (re.compile(r"^prices in (?P<c>CNY|USD): .*"),
     "价格以 {c} 计：取目录中每张卡最新的带日期价格（只有另一币种时按带日期汇率换算），服务器其余部分按指南的档位计价；"
     "TCO 按默认年限、满负荷计算"),
    (re.compile(r"^at most (?P<n>\d+) GPUs per node$"), "每台服务器最多 {n} 张卡"),
    (re.compile(r"^serving layout: the smallest tensor-parallel group inside a server.*"),
     "推理部署的并行方式：取服务器内能装下权重和所分担用户 KV 缓存的最小张量并行组，其余卡上复制为独立副本（副本数不超过用户数）；"
     "只有单个副本超出单台服务器时才跨服务器做流水线并行"),
    (re.compile(r"^training time for a default token budget.*"),
     "训练时间按默认 token 数估算（预训练每参数 20 个 token，微调 1 亿 token）：请提供实际数据量以获得准确估计"),
    (re.compile(r"^vLLM claims (?P<f>[\d.]+) of GPU memory at start-up = (?P<g>[\d.]+ GiB) of (?P<name>.+?) and .*"),
     "vLLM 启动时占用 {name} 显存的 {f}（{g}），权重与激活之外的部分都用作 KV 缓存；nvidia-smi 显示的就是这部分预留"),
    (re.compile(r"^gradient checkpointing on.*"), "微调时开启梯度检查点（完全重计算）"),
    # training memory as the runtimes allocate it (advisor/estimator/hf_training.py, memory.py)
    (re.compile(r"^LoRA: frozen (?P<f>\S+) base, fp32 adapters.*"),
     "LoRA：冻结的 {f} 基座，fp32 适配器及其梯度和 AdamW 动量（PEFT 默认）；每个适配层保留一份 fp32 输入副本"),
    (re.compile(r"^QLoRA: NF4 base dequantised.*"), "QLoRA：NF4 基座逐个矩阵反量化为 bf16，bf16 适配器，32 位 AdamW"),
    (re.compile(r"^mixed precision \(HF Trainer bf16=True\).* = (?P<n>\d+) B/param, .*"),
     "混合精度（HF Trainer bf16=True）：fp32 权重、fp32 梯度、优化器状态和 autocast 的 bf16 权重副本共 {n} B/参数，"
     "各自只在占用显存的阶段计入"),
    (re.compile(r"^pure bf16: bf16 weights, gradients and AdamW moments.*"), "纯 bf16：权重、梯度和 AdamW 动量均为 bf16"),
    (re.compile(r"^fp32 weights, gradients and optimizer states, no autocast$"), "fp32 权重、梯度和优化器状态，不用 autocast"),
    (re.compile(r"^freeze-tuning: the last (?P<n>\d+) blocks.*"), "冻结微调：最后 {n} 个块以 fp32 训练，其余冻结为 16 位"),
    (re.compile(r"^gradient accumulation over (?P<n>\d+) micro-batches.*"),
     "梯度累积 {n} 个微批：梯度在下一个微批的前向和损失阶段一直占用显存"),
    (re.compile(r"^no gradient checkpointing: .*"), "不开梯度检查点：每层保存的张量保留到它的反向传播"),
    (re.compile(r"^transformers has no selective recomputation.*"), "transformers 没有选择性重计算：按不开梯度检查点估算"),
    (re.compile(r"^HF causal-LM loss: .* over (?P<v>\d+) vocabulary entries for (?P<t>\d+) tokens per micro-batch$"),
     "HF 因果语言模型损失：logits 升为 fp32，对 {v} 个词表项做 cross_entropy，每个微批 {t} 个 token"),
    (re.compile(r"^peak = the largest phase of a step.*"),
     "峰值取一步训练各阶段的最大值，另加 PyTorch 缓存分配器的预留（显存不足错误以预留量为准）"),
    (re.compile(r"^optimizer (?P<o>\S+): the fused PyTorch implementation$"), "优化器 {o}：PyTorch 的 fused 实现"),
    (re.compile(r"^model states as DeepSpeed allocates them.*"),
     "模型状态按 DeepSpeed 的分配计算（其 estimate_zero2/zero3_model_states_mem_needs 口径）；指定 ZeRO 时由 DeepSpeed 运行"),
    (re.compile(r"^PyTorch FSDP2 .*"), "PyTorch FSDP2：fp32 参数、梯度和 AdamW 状态在数据并行卡间分片"),
    (re.compile(r"^Megatron-LM: bf16 parameters.*"), "Megatron-LM：bf16 参数、fp32 主梯度，fp32 主权重和 Adam 状态（分布式优化器时分片）"),
    (re.compile(r"^engine: (?P<e>[^;]+); weights (?P<w>\S+), KV cache (?P<kv>\S+), (?P<n>\d+) sequence\(s\) × "
                r"(?P<c>\d+) tokens$"), "框架：{e}；权重 {w}，KV 缓存 {kv}，{n} 路 × {c} tokens"),
    (re.compile(r"^engine: (?P<e>[^;]+); micro-batch (?P<b>\d+) × (?P<c>\d+) tokens; (?P<n>\d+) GPU\(s\): "
                r"DP (?P<dp>\d+) × TP (?P<tp>\d+) × PP (?P<pp>\d+); optimizer (?P<o>\S+)$"),
     "框架：{e}；微批 {b} × {c} tokens；{n} 张卡：DP {dp} × TP {tp} × PP {pp}；优化器 {o}"),
    (re.compile(r"^engine: (?P<rest>.*)"), "框架：{rest}"),
]


# the implementation an engine's training memory follows (advisor.estimator.hf_training.ENGINE_VERSIONS), in Chinese
_FOLLOWED_ZH = {"transformers": "（参照 transformers 5.17、PEFT 0.21、PyTorch 2.11）",
                "deepspeed": "（参照 DeepSpeed 的 estimate_zero2/zero3_model_states_mem_needs）",
                "fsdp": "（参照 PyTorch FSDP2 的 `fully_shard` 与 `MixedPrecisionPolicy`（bf16 参数））",
                "megatron": "（参照 Megatron-LM 的分布式优化器，fp32 主梯度）"}
_TRAINING_ENGINE = re.compile(r"(?<=\S) training(?=（|；|$)")  # "DeepSpeed (ZeRO) training": the catalog's engine name


def assumption_zh(text: str) -> str:
    for rx, template in _ASSUMPTION_ZH:
        m = rx.match(text)
        if m:
            out = template.format(**m.groupdict())
            for engine, followed in ENGINE_VERSIONS.items():
                out = out.replace(followed, _FOLLOWED_ZH[engine])
            return _TRAINING_ENGINE.sub(" 训练", out)
    return text


def mfu_assumption(o: Option, book: Book, lang: str) -> str:
    """The training time's MFU and what it rests on (advisor.estimator.training), for a training option."""
    training = o.training
    basis = f"assumptions.mfu_basis.{training.mfu_basis}" if training else ""
    if not training or not training.mfu or not known(basis):
        return ""
    pct = book.num("MFU of the training time", training.mfu * 100, "%", SRC_TRAINING, 0, suffix="").strip() + "%"
    return t("assumptions.mfu", lang, mfu=pct, basis=t(basis, lang))


def assumption_text(a: Assumption, lang: str) -> str:
    values = {k: (f"{v[0]:g} {v[1]}" if v[1] != "sequences" else f"{v[0]:g}") for k, v in a.numbers.items()}
    return (a.zh if lang == "zh" else a.en).format(**values)
