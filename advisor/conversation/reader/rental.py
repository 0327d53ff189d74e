"""The rental price a person states for themselves, and the provider they rent from ("rent H100 on AWS at
$2.5/GPU-hour", "按每卡每小时 18 元租 4 张 4090", "AutoDL 上 4090 一小时 2 块钱", "$98/hour for an 8-GPU p5 instance").

    read_rate("rent h100 on aws at $2.5/gpu-hour", "en")
      -> RentRate(amount=2.5, currency="USD", provider="AWS", text="$2.5/gpu-hour", ...)

An amount is a rate when an hour word follows it ("/hr", "per GPU-hour", "an hour", "每小时", "/小时", "卡时") or
precedes it in the same clause ("每小时 12 块", "一小时 2 块钱", "时租 ¥1.88", "hourly rate of $2"), and the hour is
not a usage ("8 hours a day"). Currency from the text: $, USD, dollars, 美元 → USD; 元, 块, 块钱, RMB, CNY, yuan,
人民币, ¥ → CNY (¥ is read as yuan: the advisor prices in CNY and USD only); a bare "2.5/hr" takes the message's
language (en: USD, zh: CNY) and says it was assumed.

Per GPU or per instance: "per GPU", "each", "每卡", "每张", or a GPU in the hour mark itself ("/gpu/hr", "per
GPU-hour", "/GPU-h", "每卡每小时", even beside "8x H200 server") make it per GPU; an instance word ("instance", "node",
"server", "machine", "整机", "一台", "服务器") or "for 8 GPUs" after the amount make it the price of the whole
instance, divided by the GPU count said beside it ("8-GPU", "8 卡", "for 8 H100s"); an instance with no count said
keeps the instance price and `gpus` None (the answer assumes the cards it sizes and says so). Otherwise per GPU.
A zero or negative rate is bad input (`bad`), never read as its absolute value.

A price per day, week or month ("$1,500 per GPU per month", "月租 2000 元", "每天 60 块", "月租 1.2 万") is read when the
message rents (a rental word or a provider) and no budget or spending word sits beside it ("we spend $20k a month on
the API" is no rental price); the hourly price is the amount over the period's hours (730 a month = 8760 / 12, 168 a
week, 24 a day), `per_hours` keeps which, and the answer says so.

Providers: the names people use for the clouds that rent GPUs (`PROVIDERS`), canonical names as the catalog's
`CloudPrice.provider` starts with where the catalog has them.
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import CNY_WORDS, HOURS_PER_MONTH, USD_WORDS, currency_of
from knowledge.structs import Value

# (canonical name, pattern on the lower-cased message); a word that is also plain English ("modal", "replicate",
# "together", "vast") only after a preposition or with its domain
PROVIDERS: tuple[tuple[str, str], ...] = (
    ("AWS", r"(?<![a-z])(?:aws|amazon(?: web services)?|ec2|sagemaker|p5(?:\.48xlarge|e|en)?|p4de?|g6e)(?![a-z0-9])|亚马逊云|亚马逊"),
    ("GCP", r"(?<![a-z])(?:gcp|google cloud|google compute engine|gce|a3-(?:high|mega)gpu\S*)(?![a-z])|谷歌云"),
    ("Azure", r"(?<![a-z])(?:azure|nd\s*h100\s*v5|nd96\S*)(?![a-z])|微软云"),
    ("Lambda", r"(?<![a-z])lambda(?:\s*labs|\s*cloud)?(?![a-z])"),
    ("CoreWeave", r"(?<![a-z])core\s*weave(?![a-z])"),
    ("RunPod", r"(?<![a-z])run\s*pod(?![a-z])"),
    ("Vast.ai", r"(?<![a-z])vast(?:\.ai|ai|\s+ai)(?![a-z])"),
    ("Modal", r"(?<![a-z])(?:(?:on|at|via|from|with|using|use)\s+modal|modal\.com|modal\s+labs)(?![a-z])"),
    ("Replicate", r"(?<![a-z])(?:(?:on|at|via|from|with|using|use)\s+replicate|replicate\.com)(?![a-z])"),
    ("Together AI", r"(?<![a-z])together(?:\.ai|\s+ai)(?![a-z])"),
    ("Vultr", r"(?<![a-z])vultr(?![a-z])"),
    ("TensorWave", r"(?<![a-z])tensor\s*wave(?![a-z])"),
    ("Paperspace", r"(?<![a-z])paperspace(?![a-z])"),
    ("Oracle Cloud", r"(?<![a-z])(?:oci|oracle cloud)(?![a-z])"),
    ("Nebius", r"(?<![a-z])nebius(?![a-z])"),
    ("阿里云", r"阿里云|阿里|(?<![a-z])(?:aliyun|alibaba cloud|alibaba)(?![a-z])"),
    ("腾讯云", r"腾讯云|腾讯|(?<![a-z])tencent(?: cloud)?(?![a-z])"),
    ("火山引擎", r"火山引擎|火山云|(?<![a-z])(?:volcengine|volcano engine)(?![a-z])"),
    ("百度智能云", r"百度智能云|百度云|百度|(?<![a-z])baidu(?: ai)?(?: cloud)?(?![a-z])"),
    ("华为云", r"华为云|(?<![a-z])huawei cloud(?![a-z])"),
    ("AutoDL", r"(?<![a-z])auto\s*dl(?![a-z])"),
    ("恒源云", r"恒源云|(?<![a-z])gpushare(?:\.com)?(?![a-z])"),
    ("矩池云", r"矩池云|(?<![a-z])matpool(?![a-z])"),
    ("UCloud", r"(?<![a-z])ucloud(?![a-z])|优刻得"),
    ("京东云", r"京东云|(?<![a-z])jd cloud(?![a-z])"),
    ("天翼云", r"天翼云"),
)
# the message-catalog id of a provider whose canonical name is Chinese ("provider.<id>": its name in each language)
PROVIDER_IDS = {"阿里云": "aliyun", "腾讯云": "tencent", "火山引擎": "volcengine", "百度智能云": "baidu", "华为云": "huawei",
                "恒源云": "gpushare", "矩池云": "matpool", "京东云": "jdcloud", "天翼云": "ctyun"}
_PROVIDER_RX = [(name, re.compile(rx)) for name, rx in PROVIDERS]

_NUM = r"(?P<sign>[-−])?\s*(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)"
_AMOUNTS = [
    re.compile(rf"(?P<cur>us\$|\$|¥|(?<![a-z])(?:usd|rmb|cny)(?![a-z]))\s*{_NUM}(?![\d.]|\s*(?:k|万|千|m)(?![a-z]))"),
    re.compile(rf"(?<![\w.$¥]){_NUM}\s*(?P<cur>{USD_WORDS}|{CNY_WORDS})(?![a-z])"),
]
# a scaled amount ("1.2 万", "$1.5k"): only as a price per day, week or month ("月租 1.2 万", "$1.5k a month")
_SCALED = re.compile(rf"(?:(?P<cur>us\$|\$|¥)\s*|(?<![\w.,$¥]))(?<![\d.,]){_NUM}\s*(?P<scale>万|千|k)(?![a-z])\s*"
                     rf"(?P<cur2>{USD_WORDS}|{CNY_WORDS})?")
_SCALE = {"万": 1e4, "千": 1e3, "k": 1e3}
# a number with no currency, right before a per-hour mark: "at 2.5/hr"
_BARE = re.compile(rf"(?<![\w.$¥\-−]){_NUM}(?=\s*/\s*(?:gpu[\s-]*)?(?:hr|hrs|hour|h)(?![a-z]))")

_GPU_WORD = r"(?:gpus?|cards?|卡|张|个|[a-z]{0,6}\d{2,4}[a-z]{0,4}s?(?:\s*(?:80|40|48|24)\s*g[bi]?)?)"
_HOUR = r"(?:gpu[\s-]*)?(?:hrs?|hours?|h|小时|个小时|卡时|时|钟头)(?![a-z])"
# the hour mark after the amount: "/hr", "per GPU-hour", "an hour", "per H100 per hour", "每卡每小时", "/卡/小时"
_AFTER = re.compile(
    rf"^\s*(?:(?:/|per|an?|each|every|for\s+(?:an?|one|each)|每|一|一个)\s*{_GPU_WORD}?\s*[-/]?\s*)+{_HOUR}"
    r"(?!\s*(?:a|per|each|every|/|每|一)\s*(?:day|week|month|天|日|周|月))|^\s*hourly(?![a-z])")
# the hour mark before the amount, in the same clause: "每小时 12 块", "一小时 2 块钱", "时租 ¥1.88", "hourly rate of $2"
_BEFORE = re.compile(
    r"(?:(?:每|一|1)\s*(?:个)?\s*(?:卡|张)?\s*(?:每)?\s*(?:个)?\s*小时|每卡时|每卡每时|时租|小时价|租金每小时|"
    r"hourly(?:\s+(?:rate|price|cost))?|per\s+(?:gpu[\s-]*)?hour|an\s+hour|/\s*h(?:ou)?r)"
    r"\s*(?:的)?\s*(?:价格|租金|单价|费用|价|预算)?\s*(?:是|为|要|只要|仅|约|大概|大约|不超过|最多|:|of|is|at|costs?|=)?\s*"
    r"(?:about|around|~)?\s*$")
# a rental price per day, week or month ("$1,500 per GPU per month", "月租 2000 元", "每天 60 块", "¥12,000/台/月"):
# read only with a rental word in the message ("rent", "租", "lease", a provider) and no budget or spending word
# beside it ("we spend $20k a month on the API" is no rental price), then divided by the period's hours
_PERIOD_HOURS = {"month": HOURS_PER_MONTH, "mo": HOURS_PER_MONTH, "月": HOURS_PER_MONTH, "个月": HOURS_PER_MONTH,
                 "week": 168.0, "wk": 168.0, "周": 168.0, "星期": 168.0, "day": 24.0, "天": 24.0, "日": 24.0}
_PERIOD_AFTER = re.compile(
    rf"^\s*(?:(?:/|per|an?|each|every|每|一|一个)\s*(?:{_GPU_WORD}|台|instance|node|server|machine)?\s*[-/]?\s*)+"
    r"(?P<p>months?|mo|weeks?|wk|days?|个月|月|周|星期|天|日)(?![a-z])|^\s*(?P<ly>monthly|weekly|daily)(?![a-z])")
_PERIOD_BEFORE = re.compile(
    r"(?P<p>月租|包月|每月|每个月|一个月|周租|每周|日租|每天|一天|monthly(?:\s+(?:rate|price|rent|cost|fee))?|"
    r"per\s+month|a\s+month|weekly(?:\s+(?:rate|price|rent))?|daily(?:\s+(?:rate|price|rent))?|per\s+day)"
    r"\s*(?:的)?\s*(?:价格|租金|单价|费用|价)?\s*(?:是|为|要|只要|仅|约|大概|大约|:|of|is|at|costs?|=)?\s*(?:about|around|~)?\s*$")
_RENT_WORD = re.compile(r"(?<![a-z])(?:rent\w*|leas\w*|cloud|instances?|on[- ]demand|reserved)(?![a-z])|租|云")
# the most a person will pay an hour, not a price they were quoted: a budget or ceiling word before the amount
# ("budget $2/hr", "under $3 an hour", "max $5/hour", "每小时预算 20 元", "每小时不超过 20 元") or after it ("$2/hr max",
# "每小时 20 元以内")
_CAP_BEFORE = re.compile(r"(?:budget(?:\s+(?:of|is))?|under|below|up\s+to|at\s+most|max(?:imum)?|no\s+more\s+than|"
                         r"less\s+than|within|cap(?:ped)?(?:\s+(?:at|of))?|afford|(?:^|\s)with|预算|不超过|最多|低于|控制在)"
                         r"\s*[:：]?\s*(?:~|about|around|roughly)?\s*$")
_CAP_AFTER = re.compile(r"^\s*(?:max(?:imum)?|at\s+most|or\s+less|tops|以内|以下|之内)(?![a-z])")
_SPEND_WORD = re.compile(r"预算|budget|spend\w*|花费|开销|afford|api|tokens?|token|电费|salary|工资|"
                         r"(?<![a-z])(?:we\s+have|we've\s+got|we\s+got|allocat\w*|earmark\w*)(?![a-z])|我们有|能花|可以花|"
                         r"最多花|额度|能投入")
# the most a rental price per GPU-hour said per day, week or month can be: above it the amount is a budget for
# many cards ("$100k a month for rented H100s"), not one card's price (B300s rent for under $10 an hour)
_MAX_PERIOD_RATE = {"USD": 50.0, "CNY": 350.0}
_PERIOD_OF = {"月租": "month", "包月": "month", "每月": "month", "每个月": "month", "一个月": "month", "周租": "week",
              "每周": "week", "日租": "day", "每天": "day", "一天": "day"}


def _period_hours(word: str) -> float:
    """Hours of the period a price word names ("月租" → 730, "weekly" → 168, "per day" → 24)."""
    w = _PERIOD_OF.get(word, word).lower()
    return next((hours for key, hours in _PERIOD_HOURS.items() if key in w), HOURS_PER_MONTH)


# a price per token, never per hour: "$3 per 1M tokens", "每百万 token 2 元"
_PER_TOKEN = re.compile(r"^\s*(?:per|/|每|a|for)\s*(?:1\s*)?(?:m|mn|million|k|thousand|百万|千|万)?\s*(?:output\s+|input\s+)?"
                        r"(?:tokens?|词元)|^\s*(?:per|/|每)\s*(?:1\s*)?(?:m|mn|million|百万)(?![a-z])")
_CLAUSE = re.compile(r"[,;!?，。；！？\n]|(?<![\d])\.(?!\d)")
_PER_GPU = re.compile(r"(?<![a-z])(?:per\s+(?:gpu|card)|each|per\s+[a-z]{0,6}\d{2,4}[a-z]*(?!\s*(?:instance|node|server))|"
                      r"apiece)(?![a-z])|每卡|每张|/卡|单卡|一张")
# a GPU in the hour mark ("/gpu/hr", "per GPU-hour", "/GPU-h", "per H100 per hour", "每卡每小时", "元/卡时")
_GPU_HOUR = re.compile(r"gpu|card|卡|张|(?<![a-z])[a-z]{0,6}\d{2,4}")
_INSTANCE = re.compile(r"(?<![a-z])(?:instances?|nodes?|servers?|machines?|boxe?s?|vms?|p5(?:\.48xlarge)?|p4de?|"
                       r"nd\s*h100\s*v5|nd96\S*)(?![a-z])|整机|一台|每台|服务器|节点|实例|机器")
_INSTANCE_GPUS = re.compile(r"(?P<n>\d+)\s*(?:-|x|×)?\s*(?:gpus?|cards?|卡|张)(?![a-z])|(?P<n2>\d+)\s*x\s*[a-z]")
_FOR_GPUS = re.compile(r"^\s*(?:/\s*h\w*|per\s+hour|an\s+hour|/hour)?\s*(?:for|with|covering)\s+(?:all\s+)?"
                       r"(?P<n>\d+)\s*(?:x\s*)?(?:gpus?|cards?|[a-z]{0,6}\d{2,4}[a-z]*s?)(?![a-z])")


class RentRate(Value):
    """A rental price the person states: `amount` per GPU-hour in `currency` (None for an instance price whose GPU
    count was not said), the price as said per instance and its GPU count where it was an instance's, the provider
    named (canonical, None when none), and the words it was read from."""

    amount: float | None
    currency: str
    currency_said: bool = True
    instance_amount: float | None = None
    gpus: int | None = None
    provider: str | None = None
    text: str = ""
    per_hours: float = 1.0  # the hours the price as said covers: 1 for a rate per hour, 730 for one per month
    cap: bool = False  # the most the person will pay an hour ("budget $2/hr", "under $3 an hour"), not a price


def read_provider(s: str) -> str | None:
    """The first rental provider named in the lower-cased message (canonical name), None when none."""
    found = [(m.start(), name) for name, rx in _PROVIDER_RX if (m := rx.search(s))]
    return min(found)[1] if found else None


def same_provider(quoted: str, named: str) -> bool:
    """Whether a catalog quote's provider ("AWS (g6e.xlarge, us-east-1)", "RunPod*" for an overseas quote) is the
    provider `named` (read_provider's canonical name)."""
    return quoted.rstrip("*").lower().startswith(named.lower())


def _clause(s: str, start: int, end: int, before: int = 40, after: int = 48) -> tuple[str, str]:
    """The text of the amount's clause before and after it (cut at clause punctuation)."""
    b = _CLAUSE.split(s[max(0, start - before):start])[-1]
    a = _CLAUSE.split(s[end:end + after])[0]
    return b, a


def _currency(cur: str | None, lang: str) -> tuple[str, bool]:
    if not cur:
        return ("CNY" if lang == "zh" else "USD"), False
    return currency_of(cur), True


def find_rates(s: str, lang: str) -> list[tuple[re.Match[str], float, str, bool, float]]:
    """(match, signed amount, currency, currency said, hours the amount covers) of every rental price in `s` (lower
    case): per hour, or per day, week or month where the message rents and does not speak of a budget there."""
    out = []
    taken: list[tuple[int, int]] = []
    renting = bool(_RENT_WORD.search(s)) or read_provider(s) is not None
    for rx in _AMOUNTS:
        for m in rx.finditer(s):
            if any(m.start() < e and s0 < m.end() for s0, e in taken):
                continue
            before, after = _clause(s, m.start(), m.end())
            if _PER_TOKEN.match(after):
                continue
            hours = 1.0 if (_AFTER.match(after) or _BEFORE.search(before)) else _period(before, after, renting)
            if hours is None:
                continue
            value = float(m.group("num").replace(",", "")) * (-1 if m.group("sign") else 1)
            cur, said = _currency(m.groupdict().get("cur"), lang)
            taken.append((m.start(), m.end()))
            out.append((m, value, cur, said, hours))
    for m in _SCALED.finditer(s):  # "月租 1.2 万": per day, week or month only
        if any(m.start() < e and s0 < m.end() for s0, e in taken):
            continue
        before, after = _clause(s, m.start(), m.end())
        hours = _period(before, after, renting)
        if hours is None:
            continue
        value = float(m.group("num").replace(",", "")) * _SCALE[m.group("scale")] * (-1 if m.group("sign") else 1)
        word = m.group("cur") or m.group("cur2")
        cur, said = _currency(word, lang) if word else ("CNY", True) if m.group("scale") in ("万", "千") else \
            _currency(None, lang)
        taken.append((m.start(), m.end()))
        out.append((m, value, cur, said, hours))
    for m in _BARE.finditer(s):  # "at 2.5/hr": per hour only
        before, after = _clause(s, m.start(), m.end())
        if not any(m.start() < e and s0 < m.end() for s0, e in taken) and not _PER_TOKEN.match(after) and (
                _AFTER.match(after) or _BEFORE.search(before)):
            value = float(m.group("num").replace(",", "")) * (-1 if m.group("sign") else 1)
            cur, said = _currency(None, lang)
            out.append((m, value, cur, said, 1.0))
    return sorted(out, key=lambda x: x[0].start())


def _period(before: str, after: str, renting: bool) -> float | None:
    """The hours of the day, week or month an amount is the rental price of ("$1,500 per GPU per month": 730),
    None when it is no such price (no rental word in the message, or a budget word in its clause)."""
    if not renting or _SPEND_WORD.search(before) or _SPEND_WORD.search(after[:24]):
        return None
    m = _PERIOD_AFTER.match(after)
    if m is not None:
        return _period_hours(m.group("p") or m.group("ly"))
    b = _PERIOD_BEFORE.search(before)
    return _period_hours(b.group("p")) if b is not None else None


def read_rate(s: str, lang: str, full: str | None = None) -> tuple[RentRate | None, tuple[int, int] | None, str | None]:
    """(the stated rate, the span it was read from, the words of a zero or negative rate) of the lower-cased message
    `s` (its read parts blanked); `full`, the same message unblanked (same length), gives the words around the
    amount (the GPU count of an instance, "8 卡", is read by the card reader first); the first rate said wins."""
    rates = find_rates(s, lang)
    full = full if full is not None and len(full) == len(s) else s
    if not rates:
        return None, None, None
    m, value, cur, said, per_hours = rates[0]
    before, after = _clause(full, m.start(), m.end())
    hour = _AFTER.match(after) if per_hours == 1.0 else _PERIOD_AFTER.match(after)
    end = m.end() + (hour.end() if hour else 0)
    words = s[m.start():end].strip() if hour else (before.strip()[-12:] + " " + s[m.start():m.end()].strip()).strip()
    if value <= 0:
        return None, (m.start(), end), words
    provider = read_provider(full)
    near_before, near_after = _clause(full, m.start(), m.end(), 48, 64)
    near = near_before + " " + near_after
    for_gpus = _FOR_GPUS.match(near_after)
    mark = (after[:hour.end()] if hour else "") + " " + (b.group(0) if (b := _BEFORE.search(before)) else "")
    # "/gpu/hr", "per GPU-hour", "每卡每小时": the hour mark itself is per GPU, whatever instance is named nearby
    per_gpu = (bool(_PER_GPU.search(near)) or bool(_GPU_HOUR.search(mark))) and not for_gpus
    instance = not per_gpu and (bool(_INSTANCE.search(near)) or for_gpus is not None)
    if instance:
        counted = for_gpus or _INSTANCE_GPUS.search(near)
        n = int(counted.group("n") or counted.groupdict().get("n2") or 0) if counted else 0
        gpus = n if 1 <= n <= 64 else None
        hourly = value / per_hours
        return (RentRate(amount=hourly / gpus if gpus else None, currency=cur, currency_said=said,
                         instance_amount=hourly, gpus=gpus, provider=provider, text=words, per_hours=per_hours),
                (m.start(), end), None)
    if per_hours > 1.0 and value / per_hours > _MAX_PERIOD_RATE.get(cur, 50.0):
        return None, None, None  # a budget a month, read by reader.amounts
    cap = per_hours == 1.0 and bool(_CAP_BEFORE.search(before) or _CAP_AFTER.match(after[hour.end():] if hour else after))
    return (RentRate(amount=value / per_hours, currency=cur, currency_said=said, provider=provider, text=words,
                     per_hours=per_hours, cap=cap), (m.start(), end), None)


__all__ = ["PROVIDERS", "PROVIDER_IDS", "RentRate", "find_rates", "read_provider", "read_rate"]
