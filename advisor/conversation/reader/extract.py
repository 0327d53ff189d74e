"""Slot extraction: the workload a person describes in Chinese or English free text, without a model.

`extract(text, catalog)` is pure: it reads the text and the catalog and returns :class:`Slots` — only what
the text says, each field None/empty when not mentioned. The dialog merges turns and applies defaults.

Order matters, because one phrase must feed one slot: guide claims ("文章说 … 28GB") first, then model
names and GPU names (from the catalog's ids, names and aliases, longest match first), token amounts
("2B tokens"), money ("20万", "$50k"), context ("8k 上下文"), concurrency ("50 并发", "QPS 10"), deadlines,
bare model sizes ("70B", "700亿"), GPU counts ("四张卡"), precisions, task and region. Each match is blanked
out of the working text so later patterns do not see it again.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec

from advisor.conversation.reader import constraints as reading
from advisor.conversation.reader.amounts import (
    read_bare_answer,
    read_bare_lengths,
    read_concurrency,
    read_context,
    read_deadline_and_years,
    read_gpu_count,
    read_money,
    read_size,
    read_tokens,
)
from advisor.conversation.reader.count_pairs import read_generic_count_pair
from advisor.conversation.reader.cues import words
from advisor.conversation.reader.dataset import apply_epochs, job_from_tokens, read_batch_job, read_dataset
from advisor.conversation.reader.deadline_words import read_deadline_words
from advisor.conversation.reader.devices import read_device
from advisor.conversation.reader.electricity import read_electricity
from advisor.conversation.reader.factors import read_relative
from advisor.conversation.reader.instances import read_instances
from advisor.conversation.reader.intent import asks
from advisor.conversation.reader.lang import asked_lang
from advisor.conversation.reader.layout import count_of_layout, read_layout
from advisor.conversation.reader.load_change import read_load_change, read_load_ladder
from advisor.conversation.reader.name_index import build_index, representative_model
from advisor.conversation.reader.names import read_capacity, read_claim, read_gpus, read_models
from advisor.conversation.reader.numbers import cn_int, to_number
from advisor.conversation.reader.quantity import rewrite as rewrite_numbers
from advisor.conversation.reader.rental import read_rate
from advisor.conversation.reader.servers import racks_said, read_racks
from advisor.conversation.reader.slots import Claim, GpuMention, Slots
from advisor.conversation.reader.targets import read_serving_targets
from advisor.conversation.reader.text import Text, normalise, scaled
from advisor.conversation.reader.text_length import read_text_lengths
from advisor.conversation.reader.usage import read_token_volume, read_usage_slots
from advisor.conversation.reader.words import read_precision, read_settings, read_task

if TYPE_CHECKING:
    from knowledge.catalog import Catalog

MAX_CHARS = 4000  # longer messages are cut (the dialog says so)

INJECTION = re.compile(
    r"ignore (?:all |any |the )?(?:your |previous |prior |above |earlier )*(?:instructions|rules|prompts?|directions)"
    r"|disregard (?:all |your |previous |the )*(?:instructions|rules)|developer mode|jailbreak"
    # a system prompt asked for or replaced, not one a workload's requests carry ("prompts of 2k tokens incl. the
    # system prompt", "每次输入含系统提示 1200 token")
    r"|(?:reveal|print|show|repeat|output|leak|dump|what(?:'s| is)) (?:me )?(?:your |the )?(?:system prompt|instructions)"
    r"|(?:new|override|change|replace) (?:your |the )?system prompt|system prompt\s*[:：]\s*(?:you|ignore)"
    r"|you are now|act as (?:an? )?(?:unrestricted|evil|different)|reveal (?:your|the) (?:prompt|instructions)"
    r"|print (?:your|the) (?:prompt|instructions|system)|rm -rf|drop table|delete (?:all|the|every|files?|database)"
    r"|call a tool|run (?:a |this )?(?:shell|command)|execute (?:a |this )?(?:command|code|shell)|api key|\bdan\b"
    r"|忽略(?:之前|以上|上面|前面|你的|所有|全部|的)*(?:指令|指示|提示|规则|设定|要求)|越狱|开发者模式"
    r"|(?:输出|告诉我|显示|泄露|打印|给我看|复述|重复)\s*(?:一下)?\s*(?:你的)?\s*(?:系统提示|提示词|系统指令)"
    r"|(?:系统提示词?|提示词|系统指令)\s*(?:打印|输出|显示|发给我|告诉我|泄露)"
    r"|删除(?:所有|全部)?(?:文件|数据)|执行(?:命令|代码|脚本)|你现在是|(?:你|请你?)(?:现在)?(?:来)?扮演"
)
_DEFAULT = re.compile(
    r"^\s*(?:(?:就|都|全|全部|用|按|使用)?\s*默认(?:值|的|吧|就行|就好|即可|配置)?|你(?:来)?定|随便|都行|无所谓|"
    r"(?:use\s+)?(?:the\s+)?defaults?(?:\s+(?:is|are)\s+fine)?|(?:any|whatever)(?:\s+is fine)?|don'?t know|不知道|"
    r"no idea|not sure|你看着办|go with (?:the )?defaults?|ok|okay|好的|可以|行|没问题|sure|fine)\s*[.!。！~]*\s*$"
)
_RESET = re.compile(r"^\s*(?:重新开始|重来|清空|换个问题|新问题|从头再来|start over|reset|new question|clear|restart)\s*[.!。！]*\s*$")
_GREETING = re.compile(r"^\s*(?:你好|您好|嗨|哈喽|在吗|hi|hello|hey|good (?:morning|afternoon|evening))\s*[,.!。！~，]*\s*$")
_THANKS = re.compile(r"^\s*(?:谢谢|多谢|感谢|thanks|thank you|thx|ty)\s*(?:你|您|a lot|so much)?\s*[.!。！~]*\s*$")
_QUESTION = re.compile(r"[?？]|吗|呢|么|多少|(?<![十几])几(?![乎十])|怎么|如何|哪|什么|能不能|够不够|可不可以|是否|\bhow\b|\bwhat\b|\bwhich\b|\bcan\b|\bshould\b|\bis it\b|\bwould\b|\benough\b")
_ADVICE = words(zh=r"显卡|gpu|算力|硬件|服务器|配置|推荐|选卡|买卡|大模型",
                en=r"llm|hardware|graphics card|recommend\w*|which card|what card|server")
_DEFAULT_ANYWHERE = re.compile(r"(?:用|按|都|全部|就)默认|默认(?:就|即可|吧)|use (?:the )?defaults?|defaults? (?:for|is|are) fine|"
                               r"go with (?:the )?defaults?")


def _rack_scale(slots: Slots, catalog: Catalog) -> None:
    """A rack-scale system sold as whole racks (GB200/GB300 NVL72: form factor "… NVL72 rack") holds its NVLink
    domain per rack (the catalog's `nvlink_domain`, 72), so "2 racks of GB200" is 2 × 72 = 144 GPUs; other cards
    keep `rack_text` and the answer asks the rack's size."""
    racks = racks_said(slots.rack_text) if slots.rack_text else None
    for mention in [m for m in (slots.existing, *slots.candidates) if m is not None]:
        gpu = catalog.gpu(mention.gpu) if mention.gpu else None
        per = gpu.nvlink_domain if gpu is not None and "rack" in gpu.form_factor.lower() else None
        if racks and per and mention.count is None:
            mention.count = racks * per
            slots.rack_text = None


def _read_rent_rate(t: Text, slots: Slots, lang: str) -> None:
    """The rental price the person states and the provider (reader.rental); a zero or negative one is bad input."""
    rate, span, bad = read_rate(t.s, lang, t.original.lower())
    if span is not None:
        words = t.quote(*span)  # the user's own words, case kept
        t.consume(*span)
    if bad is not None:
        slots.bad_rate = words if span is not None else bad
    elif rate is not None and rate.cap and rate.amount:  # "budget $2/hr": the most an hour, spent on rented cards
        slots.rent_cap_hour, slots.currency = rate.amount, rate.currency
        slots.buy_or_rent = slots.buy_or_rent or "rent"
    elif rate is not None:
        slots.rent_rate = msgspec.structs.replace(rate, text=words) if span is not None else rate
        slots.buy_or_rent = slots.buy_or_rent or "rent"


def extract(text: str, catalog: Catalog | None = None, *, pending: str | None = None, lang: str = "en",
            training: bool = False) -> Slots:
    """Everything `text` says about the workload. `pending` is the slot the last question asked for, so a bare
    answer ("32k", "50", "int4") fills it. `lang` picks the currency of a bare budget (zh: CNY, en: USD).
    `training`: the conversation so far is a training job, so samples said without a training word are its data."""
    slots = Slots()
    raw = text or ""
    if len(raw) > MAX_CHARS:
        raw, slots.truncated = raw[:MAX_CHARS], True
    t = Text(rewrite_numbers(raw))  # "三万二", "fifty grand" in digits first
    _read_intents(t, slots)
    read_claim(t, slots)
    if catalog is not None:
        read_models(t, slots, catalog)
        read_gpus(t, slots, catalog)
        read_instances(t, slots, catalog)  # "on AWS g5", "a p5.48xlarge": the instance's card
        if slots.existing or slots.candidates:
            slots.rack_text = read_racks(t.s)  # "half a rack of H100": how many per rack is asked
            _rack_scale(slots, catalog)  # "2 racks of GB200": a rack-scale system's NVLink domain per rack
        read_device(t, slots, catalog)  # a laptop GPU or an unlisted Mac: its usable memory, not a catalog card
    read_layout(t, slots)  # "TP8 PP4", "张量并行 8": degrees, before any reader of bare numbers
    if slots.device is None:
        read_capacity(t, slots)
    # "from 50 to 100 users", "traffic triples from 30": a change of load with both ends, before the factors of a
    # follow-up ("double the users") and the concurrency, which it sets
    read_load_ladder(t, slots)  # "as concurrency goes 1, 8, 32, 128": each load, the largest as the concurrency
    read_load_change(t, slots)
    read_relative(t, slots)  # before the amounts: "2x the GPUs", "tokens x3" are factors, not counts or amounts
    read_batch_job(t, slots, training)  # before the dataset: "50 万条数据" to run through a model is no training set
    read_dataset(t, slots, training)
    dataset_tokens = slots.train_tokens
    read_usage_slots(t, slots)
    read_token_volume(t, slots)  # "1M tokens a day": a volume to cost, not a training set
    read_serving_targets(t, slots)  # before the token amounts: "20 tokens/s per user" is a speed, not a length
    read_tokens(t, slots)
    apply_epochs(t, slots, dataset_tokens)
    read_bare_lengths(t, slots)
    read_text_lengths(t, slots)  # "每条1000字", "2000-word documents": after the lengths said in tokens
    read_electricity(t, slots, lang)  # before money: "$0.12/kWh", "0.8元/度" is a tariff, not a budget or a rent
    _read_rent_rate(t, slots, lang)  # before the budget: "$2.5/GPU-hour", "每小时 18 元" is a price, not a budget
    read_money(t, slots, lang)
    read_context(t, slots)
    read_concurrency(t, slots)
    read_deadline_and_years(t, slots)
    read_deadline_words(t, slots)  # "overnight", "周末": after a duration said in numbers
    read_size(t, slots, catalog)
    read_generic_count_pair(t, slots)  # "GPUs from 256 to 512": two counts, no card named
    if slots.gpu_count_to is None:
        read_gpu_count(t, slots)
    count_of_layout(slots)  # "TP8×PP4×DP16" with no count: 512 GPUs
    read_precision(t, slots)
    read_task(t, slots, training)
    read_settings(t, slots)
    if pending:
        read_bare_answer(t, slots, pending, lang)
    job_from_tokens(slots)
    return slots


def _read_intents(t: Text, slots: Slots) -> None:
    """What the message does besides describing a job (reset, default, greeting, thanks, a question, an injection
    attempt, a minus sign, …); the injected sentence and a negative amount are blanked so no slot reads them."""
    for hit in list(INJECTION.finditer(t.s)):  # nothing from the injected sentence onwards feeds a slot
        slots.injection = True
        t.consume(*reading.injected_span(t.s, hit.start()))
    said = asked_lang(t.s)  # "answer in Chinese please": the answers' language (session), not the region or a job word
    if said is not None:
        slots.answer_lang = said[0]
        t.consume(said[1], said[2])
    s0 = t.s
    slots.reset = bool(_RESET.match(s0))
    slots.default = bool(_DEFAULT.match(s0)) or bool(_DEFAULT_ANYWHERE.search(s0))
    slots.greeting = bool(_GREETING.match(s0))
    slots.thanks = bool(_THANKS.match(s0))
    slots.question_words = bool(_QUESTION.search(s0))
    slots.advice = bool(_ADVICE.search(s0))
    slots.gib_question = reading.asks_gb_or_gib(s0)
    slots.refers_previous = reading.refers_to_previous(s0)
    slots.negative = reading.negative_amount(s0)
    if slots.negative:  # "-5 张 H100" is bad input, not five cards: the number is not read as a count
        at = t.s.find(slots.negative)
        t.consume(at, at + len(slots.negative))
    slots.excluded_vendors = reading.excluded_vendors(s0)
    slots.layout_asked = asks("global_batch", s0)  # a parallelism layout or global batch asked (machine._task_of)


__all__ = ["INJECTION", "MAX_CHARS", "Claim", "GpuMention", "Slots", "build_index", "cn_int", "extract", "normalise",
           "representative_model", "scaled", "to_number"]
