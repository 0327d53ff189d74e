"""Reading the user beyond the workload slots: exclusions, region from places and clouds, a bare memory amount,
minus signs, GB-vs-GiB questions, references to the previous answer, and the part of a message an injection
attempt must not feed.

Each function takes the lower-cased, normalised text `extract` works on and returns what it found; `extract`
puts the results into `Slots`.
"""

from __future__ import annotations

import re

# --- injection: the injected instruction never feeds a slot ------------------------------------------------------
_SENTENCE_END = re.compile(r"[.!?。！？\n;；]|,?\s*(?<![a-z])then(?![a-z])|，?\s*然后|，\s*再")


def injected_span(text: str, match_start: int) -> tuple[int, int]:
    """(start, end) of the sentence holding the injection attempt: an injected "$10,000 … 8× H100" in it never
    becomes a budget or a candidate; what the user says in other sentences still counts."""
    start = 0
    for m in _SENTENCE_END.finditer(text, 0, match_start):
        start = m.end()
    nxt = _SENTENCE_END.search(text, match_start)
    return start, (nxt.start() if nxt else len(text))


def cut_at_injection(text: str, match_start: int | None) -> str:
    """`text` with the injected sentence blanked out (same length)."""
    if match_start is None:
        return text
    a, b = injected_span(text, match_start)
    return text[:a] + " " * (b - a) + text[b:]


# --- exclusions ---------------------------------------------------------------------------------------------------
_EXCLUDE_BEFORE = re.compile(
    r"(?:除了|除去|不要|不用|不考虑|不含|排除|不能用|用不了|买不到|买不着|拿不到|搞不到|禁用|别用|别选|非|"
    r"(?<![a-z])(?:no|not|except|excluding|without|other than|avoid|can'?t (?:get|buy|use)|"
    r"cannot (?:get|buy|use)|unable to (?:get|buy)|no access to|besides|apart from|anything but)(?![a-z]))"
    r"\s*(?:(?:on|using|with|from)\s+)?(?:an?\s+|the\s+|any\s+)?(?:\d+\s*(?:x|张|块)?\s*)?$")
_EXCLUDE_AFTER = re.compile(
    r"^\s*(?:s|卡|显卡)?\s*(?:都|也|根本|现在|目前|已经)?\s*(?:买不到|买不着|拿不到|搞不到|用不了|不能用|不考虑|不行|禁售|缺货|断货|"
    r"被禁|受限|不要|不用|以外|之外|除外|"
    r"(?:is|are)\s+(?:not available|unavailable|out of (?:stock|the question)|banned|not an option|off the table)|"
    r"(?:isn't|aren't) (?:available|an option)|not available)")
# "4× 4090 rather than an H100", "用 4090 而不是 H100": the card is replaced, which rules it out only when the message
# names no other card to put in its place ("what can I use instead of an H100?"); with one, the two are compared
_INSTEAD_BEFORE = re.compile(
    r"(?:而不是|而非|(?<![a-z])(?:rather than|instead of|in place of|in lieu of|as opposed to)(?![a-z]))"
    r"\s*(?:(?:on|using|with|from|buying|getting)\s+)?(?:an?\s+|the\s+|one\s+|a single\s+)?(?:\d+\s*(?:x|×|张|块)?\s*)?$")
_VENDORS = {"nvidia": r"nvidia|英伟达|n卡|n 卡", "amd": r"(?<![a-z])amd(?![a-z])|a卡", "huawei": r"huawei|华为|昇腾|ascend"}


_LIST_BEFORE = re.compile(r"[\w.\- ]{1,20}?\s*(?P<conj>(?:和|与|及|、|或者?|/|,|，|(?<![a-z])(?:or|and|nor)(?![a-z])))"
                          r"\s*(?:the\s+|an?\s+)?$")
# the first card of a list ruled out by the words after the list ("H100 和 H800 都买不到", "the H100 or H800 are banned")
_LIST_AFTER = re.compile(r"\s*(?:和|与|及|、|/|(?<![a-z])(?:or|and|nor)(?![a-z]))\s*(?:the\s+)?(?:rtx\s*)?[a-z]{0,3}\s*\d{2,4}"
                         r"(?:\s*(?:ti|super|d|sxm|pcie))?\s*s?(?![a-z0-9])")


def excluded_here(s: str, start: int, end: int) -> bool:
    """Is the card mentioned at s[start:end] ruled out by the words just before or after it (same clause)? The
    second card of a list is ruled out with the first ("不要 4090 和 3090", "no 4090 or 3090")."""
    raw = s[max(0, start - 40):start]
    listed = _LIST_BEFORE.search(raw)
    if listed:
        at = max(0, start - 40)
        if any(excluded_here(s, at + i, at + i) for i in {listed.start(), listed.start("conj")}):
            return True
    before = re.split(r"[,，。;；!！?？]|(?<![a-z])(?:and|but)(?![a-z])|但|可是", raw[-24:])[-1]
    if _EXCLUDE_BEFORE.search(before) or _EXCLUDE_AFTER.match(s[end:end + 24]):
        return True
    nxt = _LIST_AFTER.match(s, end)
    return bool(nxt and _EXCLUDE_AFTER.match(s[nxt.end():nxt.end() + 24]))


def replaced_here(s: str, start: int, end: int) -> bool:
    """Is the card at s[start:end] the one the message would replace ("… instead of an H100", "而不是 A100")? The
    caller compares it with the card named in its place, or rules it out when none is named."""
    before = re.split(r"[,，。;；!！?？]", s[max(0, start - 40):start])[-1]
    return bool(_INSTEAD_BEFORE.search(before))


# cards made in China asked for ("国产卡", "用国产芯片呢", "domestic Chinese accelerators", "信创"): every vendor from
# elsewhere is left out (the catalog's Chinese vendor is Huawei: Ascend 910B/910C, Atlas 300I Duo)
_DOMESTIC = re.compile(r"国产(?:化)?\s*(?:的)?\s*(?:卡|显卡|gpu|npu|芯片|算力|加速卡|ai\s*芯片|替代|方案|硬件)|信创|自主可控|去\s*(?:英伟达|nvidia)化|"
                       r"(?<![a-z])(?:domestic|chinese|china[- ]made|home[- ]grown)\s+(?:chinese\s+)?"
                       r"(?:gpus?|cards?|chips?|accelerators?|npus?|hardware|silicon)(?![a-z])")
FOREIGN_VENDORS = ("nvidia", "amd", "apple", "intel")
# one vendor's cards asked for by the vendor alone ("整几块昇腾卡", "用华为的卡", "on AMD GPUs"): the others left out
_WANTED = (r"(?:用|整|上|买|选|换成?|只要|只用|采购)\s*(?:几|一些|两|\d+)?\s*(?:块|张|台|个)?\s*(?:{words})\s*(?:的)?\s*"
           r"(?:卡|显卡|npu|芯片|gpu|加速卡)|(?<![a-z])(?:on|with|using|use|only|buy|get)\s+(?:\d+\s+)?(?:{words})\s+"
           r"(?:gpus?|cards?|npus?|accelerators?|chips?)(?![a-z])")


def excluded_vendors(s: str) -> list[str]:
    """Vendors ruled out as a whole: "no NVIDIA", "不要英伟达的卡", "除了 NVIDIA 以外"; cards made in China asked
    for ("国产卡", "domestic chips") rule out every vendor from elsewhere."""
    if _DOMESTIC.search(s):
        return list(FOREIGN_VENDORS)
    wanted = [v for v, words in _VENDORS.items() if re.search(_WANTED.format(words=words), s)]
    if len(wanted) == 1:  # "整几块昇腾卡", "on AMD GPUs": the cards of that vendor only
        return [v for v in dict.fromkeys((*FOREIGN_VENDORS, *_VENDORS)) if v != wanted[0]]
    out = []
    for vendor, words in _VENDORS.items():
        if re.search(rf"(?:(?<![a-z])(?:no|not|non|without|except|avoid|excluding)[\s-]+(?:{words})|(?:不要|不用|除了|排除|非)\s*(?:{words}))", s) \
                or re.search(rf"(?:{words})\s*(?:的卡)?\s*(?:买不到|用不了|不能用|以外|之外|不考虑)", s):
            out.append(vendor)
    return out


# --- region from places and clouds ---------------------------------------------------------------------------------
CN_PLACES = (
    "北京|上海|深圳|杭州|广州|成都|重庆|天津|南京|武汉|西安|苏州|长沙|郑州|青岛|合肥|厦门|宁波|济南|沈阳|大连|福州|昆明|贵阳|"
    "贵州|内蒙古|乌兰察布|宁夏|中卫|庆阳|甘肃|广东|浙江|江苏|四川|湖北|湖南|山东|河南|河北|福建|安徽|陕西|辽宁|吉林|黑龙江|"
    "江西|广西|云南|海南|山西|新疆|西藏|青海|雄安|国内机房|国内数据中心|阿里云|腾讯云|华为云|百度智能云|百度云|火山引擎|"
    "天翼云|移动云|联通云|金山云|京东云|ucloud|智算中心"
)
CN_PLACES_EN = (
    r"beijing|shanghai|shenzhen|hangzhou|guangzhou|chengdu|chongqing|tianjin|nanjing|wuhan|xi'?an|suzhou|"
    r"changsha|zhengzhou|qingdao|hefei|xiamen|ningbo|guangdong|zhejiang|jiangsu|sichuan|guizhou|inner mongolia|"
    r"alibaba cloud|aliyun|tencent cloud|huawei cloud|baidu (?:ai )?cloud|volcano engine|volcengine"
)
_CN_PLACE = re.compile(rf"{CN_PLACES}|(?<![a-z])(?:{CN_PLACES_EN})(?![a-z])")
_OUTSIDE = re.compile(r"outside (?:of )?(?:mainland )?china|out of china|non-china|中国以外|国外|海外|境外")
# a deployment placed outside mainland China by name ("新加坡机房", "在美国的数据中心", "部署在日本"); the country
# alone is not enough ("美国禁令下国内能买什么" is about China's market). Hong Kong and Macau are left out: US export
# rules have treated Hong Kong as China since 2020.
_ABROAD = ("美国|美西|美东|北美|加拿大|欧洲|德国|法国|英国|荷兰|芬兰|瑞典|日本|韩国|新加坡|马来西亚|印尼|印度尼西亚|泰国|越南|"
           "印度|澳大利亚|中东|沙特|阿联酋|迪拜|东南亚")
_ABROAD_PLACE = re.compile(rf"(?:在|到|于|去|放在|部署在|建在)\s*(?:{_ABROAD})|(?:{_ABROAD})\s*(?:的)?\s*(?:机房|数据中心|idc|云|区域|"
                           r"节点|服务器|集群|客户|团队|公司|部署)")


def region_from_places(s: str) -> str | None:
    """'cn' for a mainland city, province, data-centre phrase or Chinese cloud; 'global' for "outside China" or a
    deployment placed in a named country or region outside mainland China."""
    if _OUTSIDE.search(s):
        return "global"
    if _CN_PLACE.search(s):
        return "cn"
    return "global" if _ABROAD_PLACE.search(s) else None


# --- memory amounts, GB vs GiB ------------------------------------------------------------------------------------
_GIB_QUESTION = re.compile(r"(?:gb|g)\s*(?:or|还是|和|与|vs\.?|versus|/)\s*(?:\d+(?:\.\d+)?\s*)?gib|"
                           r"gib\s*(?:or|还是|和|与|vs\.?|versus|/)\s*(?:\d+(?:\.\d+)?\s*)?gb|"
                           r"(?<![a-z])gib(?![a-z]).{0,20}(?:difference|区别|不同)|gb.{0,12}gib.{0,12}(?:\?|？|吗)")


def asks_gb_or_gib(s: str) -> bool:
    return bool(_GIB_QUESTION.search(s))


# --- minus signs --------------------------------------------------------------------------------------------------
_NEGATIVE = re.compile(r"(?<![\w.\-])[-−–]\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>x|张|块|台|片|卡|个|cards?|gpus?|nodes?|"
                       r"servers?|[kmb]\b|万|元|usd|\$|tokens?|users?|路|并发|人|days?|hours?|hrs?|h\b|weeks?|months?|years?|"
                       r"天|小时|周|个月|年|gb|gib)?")


def negative_amount(s: str) -> str | None:
    """The first number typed with a minus sign in front of a count or amount ("-5 张 H100", "-3 GPUs")."""
    for m in _NEGATIVE.finditer(s):
        if m.group("unit") or re.match(r"\s*(?:[a-z]\d|rtx|h\d|a\d|l\d)", s[m.end():m.end() + 6]):
            return m.group(0).strip()
    return None


# --- the previous answer ------------------------------------------------------------------------------------------
_PREVIOUS = re.compile(r"这个配置|这套配置|这套|那套|该配置|上面的配置|上述配置|刚才那个|刚才的|刚刚那个|前面那个|这个方案|那个方案|"
                       r"这台|那台|这些卡|那些卡|(?<![a-z])(?:that|this|the same|the above|your|the recommended|"
                       r"the previous) (?:setup|configuration|config|server|option|box|cluster|machine|hardware|"
                       r"cards|gpus|one)(?![a-z])|(?<![a-z])on it(?![a-z])|还够|还能跑|还放得下|还装得下|还行吗|"
                       r"(?<![a-z])still (?:fit|enough|work|run|ok)")


def refers_to_previous(s: str) -> bool:
    return bool(_PREVIOUS.search(s))
