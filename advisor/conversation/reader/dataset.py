"""A fine-tuning dataset described by its size: "50k samples of 1k tokens", "10万条数据，每条约 2k tokens",
"3 epochs", "训练 3 轮".

The training token budget is samples × tokens per sample × epochs (decimal scales: "1k tokens" is 1,000 here, a
count of tokens, not a context length). The per-sample length is also the sequence length the job trains at
(k = 1024 there, as `read_context` reads "2k"): "100k examples of 512 tokens" trains 512-token sequences, not
the default context; a context word elsewhere in the message ("8k context") still wins, read after this.
A count of samples without a length sets nothing (the dialog's default stays, and says so); epochs alone set only
`slots.epochs`, which the dialog applies to the dataset an earlier turn gave ("and 5 epochs?").
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import to_number
from advisor.conversation.reader.ranges import check
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import EN_WORD_NUM, NUM, Text, scaled

_SCALE = r"(?:万亿|亿|千万|百万|十万|万|千|thousand|million|billion|[kmbw])"
_ITEMS_EN = (r"(?:samples?|examples?|conversations?|dialog(?:ue)?s?|records?|rows?|instructions?|pairs?|"
             r"transcripts?|tickets?|chats?)")  # not prompts/documents/sequences: a batch-inference job has those too
_DATA_ZH = r"(?:数据|样本|对话|指令|问答|语料|文档|记录|例子|样例|工单|聊天记录)"
# "5 万对偏好数据": preference pairs are counted in 对
_ITEMS_ZH = rf"(?:条|(?:个|组|份)\s*(?:训练)?{_DATA_ZH}|对\s*(?:偏好)?\s*{_DATA_ZH}?)"
_LEN = rf"(?P<len>{NUM})\s*(?P<lunit>k|千|thousand)?\s*(?:-\s*)?(?:个\s*)?(?:tokens?|词元|token)"
# between the count and the length: a few words ("customer-support dialogues", ", roughly", "averaging", "每条平均"),
# never a sentence break, and never a word that makes the length a context window instead
_GAP = r"(?:(?!context|window|上下文|窗口|序列长度|seq)[^.;:?!\n。；：？！]){0,40}?"

# "50k samples of 1k tokens", "80,000 customer-support dialogues averaging 1.2k tokens", "1 million samples x 512
# tokens"; "50k 1k-token samples"
_EN = [
    re.compile(rf"(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s+(?:[a-z&-]+\s+){{0,3}}?{_ITEMS_EN}(?![a-z]){_GAP}{_LEN}"),
    re.compile(rf"(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s*(?:x|×|\*|of)?\s*{_LEN}\s*{_ITEMS_EN}(?![a-z])"),
]
# "10万条数据，每条 1k tokens", "3 万条问答数据，每条平均 800 tokens", "10万条 1k token 的样本"
_ZH = [
    re.compile(rf"(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s*{_ITEMS_ZH}{_GAP}{_LEN}"),
]
# a sample's length alone: "每条大约 800 token", "每条样本平均 1.5k tokens", "each sample is ~800 tokens"
_LEN_ONLY = [
    re.compile(rf"每\s*(?:条|个|份)\s*(?:训练)?\s*{_DATA_ZH}?\s*(?:大约|大概|约|平均|平均约|左右|是|有)*\s*~?\s*{_LEN}"),
    re.compile(rf"(?<![a-z])(?:each|per|every|the average|average|avg\.?)\s+{_ITEMS_EN}(?:\s+(?:is|has|of|averag\w*|about|around|roughly|~))*\s*~?\s*{_LEN}"),
    re.compile(rf"{_LEN}\s*(?:each|per\s+{_ITEMS_EN})(?![a-z])"),
]
_TRAINING = re.compile(r"微调|精调|训练|fine[\s-]*tun|finetun|(?<![a-z])(?:train\w*|sft|q?lora|epochs?|dpo)(?![a-z])")
_PER_TIME = re.compile(r"\s*(?:(?:per|a|each|every|/)\s*(?:day|hour|minute|second|sec|s|month|week)(?![a-z])|"
                       r"每(?:天|日|小时|分钟|秒|月|周)|/\s*秒)")
# a count of samples alone: "一万条数据", "5 万条样本", "20k samples", "on 100,000 instruction pairs"
_COUNT_ONLY = [
    re.compile(rf"(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s*(?:条\s*(?:训练)?\s*{_DATA_ZH}|{_ITEMS_ZH}|条(?=\s*[，,、。]))"),
    re.compile(rf"(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s+(?:[a-z&-]+\s+){{0,2}}?(?:training\s+)?{_ITEMS_EN}(?![a-z])"),
]
_EPOCHS = [
    re.compile(rf"(?P<n>{NUM}|{EN_WORD_NUM})\s*(?:full\s+)?(?:epochs?|passes over the data)(?![a-z])"),
    re.compile(rf"(?:训练|跑|迭代|过)\s*(?P<n>{NUM})\s*(?:个)?\s*(?:轮|遍|epochs?|个\s*epochs?)"),
    re.compile(rf"(?P<n>{NUM})\s*个\s*epochs?"),
    # "5 万条，每条 1k token，3 轮": rounds beside a dataset, not "3 轮对话" (turns of a conversation)
    re.compile(rf"(?<![\d.第])(?P<n>{NUM})\s*(?:轮|遍)(?!\s*(?:对话|会话|问答|交互|聊天))"),
]
MIN_SAMPLES = 100  # fewer is one conversation's length ("a conversation of 8k tokens"), not a dataset
MAX_EPOCHS = 100  # more is a misreading (a step count, a year), not a fine-tuning schedule


# a batch-inference job: its items and a word that runs a model over them ("summarise 1 million documents", "批量推理
# 50 万条数据", "classify 200k tickets", "offline batch of 30k prompts"), with no training word in the message
_BATCH_CUE = re.compile(r"(?<![a-z])(?:(?<!max )(?<!maximum )(?<!largest )(?<!biggest )(?<!decode )batch(?![\s-]*size)|offline|summari[sz]\w*|classif\w*|translat\w*|label\w*|annotat\w*|tag(?:ging)?|"
                        r"extract\w*|process\w*|rewrite|rewriting|score|scoring|run (?:it |them )?(?:over|through|on))(?![a-z])|"
                        # "push 2 million tickets through Mistral Nemo", "feed 500k docs into the model"
                        r"(?<![a-z])(?:push|pass|feed|pipe|send|put)\w*\s+(?:[^\s.;!?]+\s+){0,8}?(?:through|into)(?![a-z])|"
                        r"批量|离线|跑批|摘要|总结|分类|翻译|标注|打标|抽取|提取|处理|清洗|改写|跑完|过一遍")
# a time asked for the items alone ("500k prompts, 1k in / 500 out: hours on one H100?"): a job too, unless the time is
# a request's own (first token, latency) or the count is a prompt length ("8k prompts": prompts of 8k tokens)
_TIME_CUE = re.compile(r"how long|how many (?:hours|days)|(?<![a-z])(?:hours|days) (?:on|with|for)(?![a-z])|多久|多长时间|"
                       r"几个?小时|几天")
_ONE_REQUEST_TIME = re.compile(r"first token|ttft|latency|首字|首\s*token|延迟|时延")
_AT_BEFORE = re.compile(r"(?<![a-z])(?:at|with|of|for)\s+$")
_LENGTH_LIKE = re.compile(r"(?:1|2|4|8|16|32|64|128|256)\s*k\s+(?:prompts?|inputs?|queries|requests?)")
_JOB_ITEMS_EN = (r"(?:documents?|docs?|articles?|files?|pages?|items?|records?|rows?|prompts?|requests?|queries|questions?|"
                 r"tickets?|emails?|reviews?|messages?|samples?|texts?|transcripts?|papers?|reports?|conversations?|chats?)")
_JOB_ITEMS_ZH = r"(?:条|篇|份|个\s*(?:文档|文件|问题|请求)|封)\s*(?:数据|文档|文本|记录|样本|评论|邮件|工单|对话|请求|问题|文章|新闻|论文|报告)?"
_JOB = [
    # ("1M 2000-word documents": the length in words is left to reader.text_length)
    re.compile(rf"(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s+(?P<adj>\d[\d,.]*\s*k?\s*-?\s*(?:words?|characters?|chars?)\s+)?"
               rf"(?:(?!tokens?\b|toks?\b)[a-z&-]+\s+){{0,2}}?(?P<items>{_JOB_ITEMS_EN})(?![a-z])"
               rf"(?:\s*(?:of|with|at|averaging|,)?\s*(?:about|around|roughly|~)?\s*{_LEN}(?![a-z]|\s*(?:in|input)(?![a-z]))"
               rf"(?:\s*each)?)?"),  # ("500k prompts, 1k tokens in, 500 out": the pair is read by the lengths)
    re.compile(rf"(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s*{_JOB_ITEMS_ZH}"),
]
_JOB_LEN = [re.compile(rf"{_LEN}\s*(?:each|apiece|per\s+(?:item|document|doc|ticket|request|prompt|file|article|row|record))"
                       r"(?![a-z])"),
            re.compile(rf"(?<![a-z])(?:each|every)\s+(?:one\s+|item\s+|document\s+|doc\s+|article\s+|file\s+)?(?:(?:is|has)\s+)?"
                       rf"(?:about|around|roughly|averaging|~)?\s*{_LEN}"),
            re.compile(rf"每\s*(?:条|篇|份|个)\s*(?:数据|文档|文本|记录|样本)?\s*(?:大约|大概|约|平均|平均约|左右|是|有)*\s*~?\s*{_LEN}")]
MIN_JOB_REQUESTS = 100  # fewer is a handful of requests, not a batch job
# what each item becomes ("… to 150 tokens each", "down to 200 tokens", "压缩到 200 token", "总结成 300 字以内"): the
# output of each request, read with the job (a context said this way has its own word before "to")
_JOB_OUTPUT = re.compile(rf"(?:(?<![a-z])(?:down\s+to|into|to|in)\s+(?:about\s+|around\s+|roughly\s+|~\s*)?|"
                         rf"(?:压缩|缩短|总结|概括|摘要|精简)(?:到|成|为)\s*(?:约|大约|大概)?\s*){_LEN}(?!\s*(?:/|per\b|a\s+day|每))")
# the items become labels: "classify 10M tickets", "sentiment of 2M reviews", "tag each product", "情感分类", "打标签";
# not when they are also summarised, translated or rewritten (those answers are text)
_LABEL_JOB = re.compile(r"(?<![a-z])(?:classif\w*|categori[sz]\w*|label(?:s|ed|led|ing|ling)?|tag(?:s|ged|ging)?|"
                        r"sentiment|moderat\w*|scor(?:e|es|ed|ing)|rank(?:ing)?|yes[/ -]or[/ -]no|yes/no|true/false)(?![a-z])|"
                        r"分类|打标签?|标签|情感(?:分析|判断|分类)?|打分|评分|审核|判断(?:类别|是否)|归类")
_LONG_ANSWER = re.compile(r"(?<![a-z])(?:summari[sz]\w*|translat\w*|rewrit\w*|generat\w*|explain\w*|describ\w*|"
                          r"answer(?:s|ing)? (?:questions|them))(?![a-z])|摘要|总结|翻译|改写|生成|解释|描述|回答")
_TRANSLATION_JOB = re.compile(r"(?<![a-z])translat\w*|翻译|译成|译为")
_CONTEXT_BEFORE_TO = re.compile(r"(?:context|window|ctx|上下文|窗口|prompts?|inputs?)\s*(?:length\s*)?(?:up\s+)?$")
# a job said as its tokens ("1亿 token 的文档", "100M tokens of documents", "a corpus of 2B tokens"): its prompt tokens
_JOB_TOKENS = [
    re.compile(rf"(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s*(?:个\s*)?(?:tokens?|toks?)\s*(?:的|of)?\s*(?:documents?|docs?|"
               r"texts?|articles?|data|papers?|reports?|logs?|transcripts?|content|文档|文本|数据|文章|语料|资料|日志|内容)"),
    re.compile(rf"(?:corpus|dataset|documents?|文档|语料|文本)\s*(?:of|totall?ing|totaling|with|共|总共|一共|约|大约|有)?\s*"
               rf"(?:about\s*|around\s*|~\s*)?(?P<count>{NUM})\s*(?P<cunit>{_SCALE})?\s*(?:个\s*)?(?:tokens?|toks?)"),
]
MIN_JOB_TOKENS = 1e5  # fewer is one long prompt, not a job


def read_batch_job(t: Text, slots: Slots, training: bool = False) -> None:
    """`slots.job_requests` from a batch-inference job's size ("summarise 1 million documents of 3k tokens each",
    "批量推理 50 万条数据"): the count of items when the message runs a model over them and trains nothing; a length
    said with the items ("of 3k tokens each") is each request's prompt (decimal: a count of tokens). In a training
    conversation (`training`) a time asked alone ("how long for 10k samples of 4k tokens?") is about its data."""
    strong = bool(_BATCH_CUE.search(t.s))
    timed = bool(_TIME_CUE.search(t.s) and not _ONE_REQUEST_TIME.search(t.s)) and not training
    if not (strong or timed) or _TRAINING.search(t.s):
        return
    for rx in _JOB:
        for m in t.finditer(rx):
            if _PER_TIME.match(t.s, m.end()):
                continue  # "20k requests per day" is a request rate
            if _LENGTH_LIKE.match(m.group(0)) and (not strong or _AT_BEFORE.search(t.s, 0, m.start())):
                continue  # "at 2k prompts": a length
            count = scaled(m.group("count"), m.group("cunit"))
            if not count or count < MIN_JOB_REQUESTS or count > 1e12 or count != int(count):
                continue
            slots.job_requests = count
            length = scaled(m.group("len"), m.group("lunit")) if "len" in rx.groupindex and m.group("len") else None
            said_in_words = "adj" in rx.groupindex and m.group("adj")  # its words and items stay for text_length
            t.consume(m.start(), m.start("adj") if said_in_words else m.end())
            if said_in_words:
                t.consume(m.end("items"), m.end())
            each = None if length else next((x for x in (p.search(t.s) for p in _JOB_LEN) if x), None)
            if each is not None:  # "…, about 500 tokens each", "每条约 800 token"
                length = scaled(each.group("len"), each.group("lunit"))
                t.consume(each.start(), each.end())
            if length and check("context", length) is None:
                slots.prompt_tokens = int(length)
            slots.task = slots.task or "inference"
            _job_output(t, slots)
            return
    if not strong:
        return
    for rx in _JOB_TOKENS:  # no items counted: the job's tokens, in requests of a stated or assumed length (dialog)
        hit = rx.search(t.s)
        tokens = scaled(hit.group("count"), hit.group("cunit")) if hit else None
        if hit and tokens and MIN_JOB_TOKENS <= tokens <= 1e15:
            slots.job_tokens = tokens
            slots.task = slots.task or "inference"
            t.consume(hit.start(), hit.end())
            each = next((x for x in (p.search(t.s) for p in _JOB_LEN) if x), None)
            length = scaled(each.group("len"), each.group("lunit")) if each else None
            if each is not None and length and check("context", length) is None:  # "each document about 4k tokens"
                slots.prompt_tokens = int(length)
                t.consume(each.start(), each.end())
            return


# the length of one document when a job is said only as its tokens: a few pages of text (the summarisation sets'
# documents run from about 700 tokens, CNN/DailyMail, to several thousand, arXiv); stated as an assumption, asked to
# be corrected
JOB_DOC_TOKENS = 2000


def _job_output(t: Text, slots: Slots) -> None:
    """The length each item of a batch job becomes ("summarise 50k articles of 3k tokens to 150 tokens each"); a job
    that classifies, labels or scores its items, with no length said, answers with labels, one that translates them
    with translations (`slots.job_answer`)."""
    for m in t.finditer(_JOB_OUTPUT):
        if _CONTEXT_BEFORE_TO.search(t.s[max(0, m.start() - 24):m.start()]):
            continue
        length = scaled(m.group("len"), m.group("lunit"))
        if length and check("output_tokens", length) is None:
            slots.output_tokens = int(length)
            t.consume(m.start(), m.end())
            return
    labels = bool(_LABEL_JOB.search(t.s))
    if _TRANSLATION_JOB.search(t.s) and not labels:
        slots.job_answer = "translation"
    elif labels and not _LONG_ANSWER.search(t.s):
        slots.job_answer = "label"


def job_from_tokens(slots: Slots) -> None:
    """A job said as its tokens and no items ("1亿 token 的文档"): requests = ⌈tokens ÷ a request's prompt⌉, the
    prompt as stated ("每篇 3k token") else JOB_DOC_TOKENS, which the answer states as assumed."""
    if not slots.job_tokens or slots.job_requests:
        return
    length = slots.prompt_tokens or JOB_DOC_TOKENS
    slots.prompt_tokens = length
    slots.job_requests = float(-(-int(slots.job_tokens) // length))


def read_dataset(t: Text, slots: Slots, training: bool = False) -> None:
    """Set `slots.train_tokens` from a dataset's size (samples × tokens each × epochs) when the text gives both a
    sample count and a per-sample length; the count and the epochs are consumed, the length is left for
    `read_context`. A count alone is read with a training word, or in a training conversation (`training`)."""
    epochs = _read_epochs(t)
    slots.epochs = epochs
    for rx in (*_EN, *_ZH):
        for m in t.finditer(rx):
            count = scaled(m.group("count"), m.group("cunit"))
            length = scaled(m.group("len"), m.group("lunit"))
            if not count or not length or count < MIN_SAMPLES or length < 1:
                continue
            tokens = count * length * (epochs or 1)
            wrong = check("train_tokens", tokens)
            if wrong is None:
                slots.train_tokens = tokens
            else:
                slots.out_of_range.append(wrong)
            seq = round((to_number(m.group("len")) or 0) * (1024 if m.group("lunit") else 1))
            if check("context", seq) is None:
                slots.context = seq
            t.consume(m.start("count"), m.end("len"))
            return
    for rx in _LEN_ONLY:  # "每条大约 800 token", "each sample is about 800 tokens": the length alone (a follow-up)
        hit = rx.search(t.s)
        if hit:
            m = hit
            length = scaled(m.group("len"), m.group("lunit"))
            if length and length >= 1 and check("context", length) is None:
                slots.sample_tokens = length
                seq = round((to_number(m.group("len")) or 0) * (1024 if m.group("lunit") else 1))
                slots.context = seq if check("context", seq) is None else slots.context
                t.consume(m.start(), m.end())
                return
    for rx in _COUNT_ONLY if training or _TRAINING.search(t.s) else ():  # "一万条数据微调": the count, its length left to the dialog
        for m in t.finditer(rx):
            if _PER_TIME.match(t.s, m.end()):
                continue  # "20k chats per day" is a request rate
            count = scaled(m.group("count"), m.group("cunit"))
            if count and count >= MIN_SAMPLES and check("train_tokens", count) is None:
                slots.samples = count
                t.consume(m.start(), m.end())
                return


def _read_epochs(t: Text) -> int | None:
    for rx in _EPOCHS:
        for m in t.finditer(rx):
            n = scaled(m.group("n"), None)
            if n is not None and 1 <= n <= MAX_EPOCHS and n == int(n):
                t.consume(m.start(), m.end())
                return int(n)
    return None


_TOTAL = re.compile(r"(?<![a-z])(?:in total|total|overall|all told)(?![a-z])|总共|总计|一共|合计|总量")


def apply_epochs(t: Text, slots: Slots, dataset_tokens: float | None) -> None:
    """"a 100M-token dataset for 3 epochs", "数据集 2 亿 token，训练 3 轮": a token amount read apart from a dataset
    of samples is one pass, so the budget is that amount × epochs (300 M, 6 亿); not when the amount is said to be
    the total ("600M tokens in total"). `dataset_tokens`: train_tokens as `read_dataset` left it (epochs included)."""
    if slots.epochs and slots.train_tokens and dataset_tokens is None and not _TOTAL.search(t.s):
        tokens = slots.train_tokens * slots.epochs
        if check("train_tokens", tokens) is None:
            slots.train_tokens = tokens
