"""The extractor's readers of names: catalog models and GPUs (with their counts, owned or wanted, ruled out),
model names the catalog lacks, and memory figures: a claim quoted from a guide ("文章说 … 28GB") or a card's
capacity typed without its name ("28GB 显存够吗").

Each reader takes the working `Text` and the `Slots` being filled, and blanks out what it read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from advisor.conversation.reader import constraints as reading
from advisor.conversation.reader.count_pairs import read_count_pairs
from advisor.conversation.reader.cues import words
from advisor.conversation.reader.inline_specs import read_bandwidth, read_user_model
from advisor.conversation.reader.name_index import FAMILY_WORDS, SEP, build_index, gpu_key, representative_model
from advisor.conversation.reader.numbers import DIGITS, to_number
from advisor.conversation.reader.ranges import MAX_GPU_COUNT, OutOfRange
from advisor.conversation.reader.servers import per_server_default, servers_asked, servers_near
from advisor.conversation.reader.slots import Claim, GpuMention, Slots
from advisor.conversation.reader.text import EN_WORD_NUM, NUM, SIZE, Text, size_of

if TYPE_CHECKING:
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec

Item = TypeVar("Item")

# --- memory figures ----------------------------------------------------------------------------------------------
_CLAIM_MARKER = re.compile(
    r"文章|教程|指南|攻略|博客|帖子|网上|视频|有人|别人|据说|听说|号称|宣称|说是|看到|"
    r"\bguide\b|\barticle\b|\bblog\b|\bpost\b|\btutorial\b|\bvideo\b|someone|they say|i read|i saw|"
    r"\bclaims?\b|\bsays?\b|\bsaid\b|according to"
)
_MEM_AMOUNT = re.compile(rf"({DIGITS})\s*(?:个\s*)?(gib|gb|g|tb)(?![a-z0-9])(?:\s*(?:显存|内存|vram|of vram|memory|ram))?")
_MEM_UNITS = {"gib": "GiB", "gb": "GB", "g": "GB", "tb": "TB"}
_CARD_NAME_BEFORE = re.compile(r"(?:(?<![a-z])[a-z]{1,3}\d{2,4}|\d{4}\s*(?:ti|super|d)?)\s*$")
_CAPACITY_AFTER = re.compile(r"\s*(?:的)?\s*(?:显存|vram|of vram|gpu memory|memory|video memory|graphics memory|(?:is |be )?enough|"
                             r"够(?:不够|吗|用|了)|"
                             # "a 16GB laptop GPU", "8G 笔记本显卡": the kind of machine before the card word
                             r"(?:(?:laptop|notebook|mobile|desktop|gaming|nvidia|amd|video|consumer)\s+){0,2}"
                             r"(?:(?:gpu|graphics )?cards?(?![a-z])|gpus?(?![a-z]))|(?:笔记本|游戏本|台式机)?(?:显卡|的卡|卡(?!\s*[x×])))")
_CAPACITY_BEFORE = re.compile(r"(?:显存|vram|card(?: has| with| of)?|gpu(?: has| with)?|卡|只有|标的|标称|标着|写着|has|have|with|是|为|of|"
                              r"(?<![a-z])(?:fits?|fitting|run|runs|squeeze|load)\s+(?:on|in|into|within)(?:\s+(?:a|an|one|just))?|"
                              r"(?<![a-z])within)\s*(?:only\s*)?$")  # "fit on 80GB", "runs in 24gb", "within 48 GB"
_NOT_CAPACITY = re.compile(r"\s*(?:的)?\s*(?:ram|内存|system memory|cpu memory|disk|硬盘|ssd|nvme|data|数据|file|文件|download|下载)")


def _figure(t: Text, m: re.Match[str], start: int) -> Claim:
    """A `_MEM_AMOUNT` match as a memory figure, quoted from `start`; 1 TB = 1000 GB."""
    value, unit = float(m.group(1).replace(",", "")), m.group(2)
    factor = 1e3 if unit == "tb" else 1.0
    t.consume(m.start(), m.end())
    return Claim(text=t.quote(start, m.end()), value=value, unit=_MEM_UNITS[unit],
                 bytes_if_gb=value * factor * 1e9, bytes_if_gib=value * factor * 2**30)


def read_claim(t: Text, slots: Slots) -> None:
    """A memory figure after a claim marker ("the guide says … 28GB"), not one inside a card's name."""
    marker = _CLAIM_MARKER.search(t.s)
    if not marker:
        return
    for m in _MEM_AMOUNT.finditer(t.s, marker.start()):
        if _CARD_NAME_BEFORE.search(t.s[max(0, m.start() - 12):m.start()]):
            continue  # part of a card's name ("A100 40GB PCIe 的带宽…"), not the stated figure
        slots.claim = _figure(t, m, marker.start())
        return


def read_capacity(t: Text, slots: Slots) -> None:
    """A GPU's memory typed without a card ("28GB 显存够吗", "my card has 24 GB"): the capacity to check against.
    Amounts of system RAM, disk or data are not capacities; a quoted claim is read by `read_claim` first."""
    if slots.claim is not None or slots.candidates or slots.existing:
        return  # a card named in the message has its memory in the catalog
    for m in _MEM_AMOUNT.finditer(t.s):
        value, unit = float(m.group(1).replace(",", "")), m.group(2)
        if unit == "tb" or not 1 <= value <= 1024 or _NOT_CAPACITY.match(t.s[m.end():m.end() + 24]):
            continue
        # "a 3080 10GB": the memory of a card the catalog lacks, typed right after its name (read_gpus ran first)
        after_unknown = bool(slots.unknown_gpus) and bool(
            _CARD_NAME_BEFORE.search(t.original.lower()[max(0, m.start() - 16):m.start()]))
        if not (_CAPACITY_AFTER.match(t.s[m.start(2) + len(unit):]) or "显存" in m.group(0) or "vram" in m.group(0)
                or "memory" in m.group(0) or _CAPACITY_BEFORE.search(t.s[max(0, m.start() - 16):m.start()])
                or after_unknown):
            continue
        slots.capacity = _figure(t, m, m.start())
        slots.bandwidth = read_bandwidth(t.s)
        return


# --- models ------------------------------------------------------------------------------------------------------
# a precision word at the end of a model name ("Llama-3.1-70B FP8", "Qwen2.5-72B-Instruct-AWQ") names the weights
# format: the model match stops before it so the precision patterns still read it
_MODEL_PRECISION_SUFFIX = re.compile(SEP + r"(?:awq|gptq|gguf|int4|int8|fp8)(?![a-z0-9])")
_DISTILL = re.compile(r"蒸馏|distill")
_FAMILIES = r"(?P<fam>llama|羊驼|通义千问|千问|qwen|deepseek|mistral|mixtral|gemma|chatglm|glm|baichuan|百川|yi|phi)"
_FAMILY_SIZE = re.compile(
    _FAMILIES +
    rf"[\s\-_]*(?:(?P<ver>\d+\.\d+)[\s\-_]*|(?P<ver2>\d+)[\s\-_]+)?(?:模型)?[\s\-_]*(?P<num>{DIGITS})\s*(?P<unit>b|亿)(?![a-z0-9])")
# the size before the family ("a 70B like Llama 3.1", "the 8B Llama 3", "72B 的 Qwen2.5")
_SIZE_FAMILY = re.compile(
    rf"(?<![\w.])(?P<num>{DIGITS})\s*(?P<unit>b|亿)(?![a-z0-9])\s*(?:-?\s*(?:param(?:eter)?s?|参数)\s*)?(?:model\s*|模型\s*)?"
    r"(?:like|such as|as|from|of|version of|的|版)?\s*(?:the\s+)?" + _FAMILIES +
    r"[\s\-_]*(?:(?P<ver>\d+\.\d+)|(?P<ver2>\d+))?(?![\d.]|\s*(?:b|亿)(?![a-z]))")
_MODEL_LIKE = re.compile(r"(?<![a-z])(?:llama|qwen|deepseek|mistral|mixtral|gemma|glm|baichuan|gpt(?!q)|claude|falcon|"
                         r"bloom|opt(?=[\s\-_]*\d)|internlm|minicpm|kimi|ernie|文心|grok|minimax|hunyuan|混元|olmo|falcon|豆包|doubao|"
                         r"讯飞星火|星火大模型|盘古大模型|"
                         r"starcoder|codestral|nemotron|granite|command[\s-]?r|smollm|seed[\s-]?oss|"
                         r"devstral|magistral|ministral|phi(?=[\s\-_]*\d)|longcat|ling-|ring-)[\w.\-]*"
                         r"(?:[\s\-](?:\d[\w.\-]*|[a-z]{1,2}\d[\w.\-]*|scout|maverick|behemoth|air|flash|pro|max|mini|"
                         r"next|coder|instruct|thinking|turbo|nano|small|medium|large|super|ultra|oss|vl|omni))*")


# a family named alone, which the catalog holds several models of: the dialog asks which, never "unknown model"
_FAMILY_ONLY = frozenset({"deepseek", "qwen", "llama", "glm", "kimi", "mistral", "gemma", "minimax", "phi"})


def _hits(s: str, patterns: Sequence[tuple[re.Pattern[str], Item]]) -> list[tuple[int, int, str, Item]]:
    """Every match of the patterns in `s` as (start, end, matched text, item), leftmost first, longest first."""
    found = [(m.start(), m.end(), m.group(0), item) for pattern, item in patterns for m in pattern.finditer(s)]
    return sorted(found, key=lambda h: (h[0], -(h[1] - h[0])))


def read_models(t: Text, slots: Slots, catalog: Catalog) -> None:
    """Catalog models by name (the first one named), a distilled model's size, "family + size" ("qwen 14b"), or a
    model-like name the catalog lacks (`unknown_model`)."""
    index = build_index(catalog)
    hits = _hits(t.s, [(pattern, model_id) for pattern, model_id, _n in index.models])
    taken_end = -1
    for start, end, _text, model_id in hits:
        if start < taken_end:
            continue
        suffix = _MODEL_PRECISION_SUFFIX.search(t.s, start, end)
        end = suffix.start() if suffix else end
        newer = _other_version(t.s, start, end, _text, model_id, catalog)
        if newer is None:  # "GLM-5-Turbo" is not GLM-5 (a variant name would have matched as its own alias)
            variant = _VARIANT_AFTER.match(t.s, end)
            newer = variant.end() if variant else None
        if newer is not None:  # "Mistral Large 3" is not Mistral Large 2: an unknown model, never a stand-in
            if slots.model is None and slots.unknown_model is None:
                slots.unknown_model = t.quote(start, newer)
            taken_end = newer
            t.consume(start, newer)
            continue
        if slots.model is None:
            slots.model, slots.model_text = model_id, t.quote(start, end)
        if model_id not in slots.models:
            slots.models.append(model_id)
        taken_end = end
        t.consume(start, end)
    if len(slots.models) < 2:
        slots.models = []  # one model named: no comparison
    if slots.model is None:  # "a 40-layer model with hidden 5120 and 8 KV heads": the user's own model, as typed
        typed = read_user_model(t.s, catalog)
        if typed is not None:
            slots.model, slots.model_assumed = typed[0].id, "shape"
            for start, end in typed[1]:
                t.consume(start, end)
            return
    if slots.model is not None and "distill" not in slots.model and _DISTILL.search(t.s):
        _distilled(t, slots, catalog, min(h[0] for h in hits))
    if slots.model is None and (other := _NOT_A_LANGUAGE_MODEL.search(t.s)):
        # "Stable Diffusion XL on a 4060 Ti", "Whisper large-v3": not a language model, so none the catalog holds;
        # said first as unknown, never sized as some LLM
        slots.unknown_model = t.original[other.start():other.end()].strip()
        t.consume(other.start(), other.end())
        return
    if slots.model is None and not _family_and_size(t, slots, catalog):
        # something that looks like a model name but is not in the catalog ("混元 Hunyuan-A13B": the longer name)
        unknown = next((m for m in _MODEL_LIKE.finditer(t.s) if len(m.group(0)) > 3 or (
            len(m.group(0)) >= 2 and not m.group(0).isascii())), None)
        if unknown and len(unknown.group(0)) <= 3:  # a Chinese name ("豆包"): a fuller Latin one after it, if any
            unknown = next((m for m in _MODEL_LIKE.finditer(t.s, unknown.end()) if len(m.group(0)) > 3), unknown)
        if unknown and unknown.group(0)[:1].isascii():  # "DeepSeek需要几张卡": a Latin name ends at the Chinese
            cut = re.search(r"[\u3400-\u9fff]", unknown.group(0))
            unknown = _MODEL_LIKE.match(t.s[:unknown.start() + cut.start()], unknown.start()) if cut else unknown
        if unknown and unknown.group(0).strip(" -_") in _FAMILY_ONLY:
            t.consume(unknown.start(), unknown.end())  # "满血版DeepSeek": a family, not a model; which one is asked
        elif unknown:
            slots.unknown_model = t.original[unknown.start():unknown.end()].strip()
            t.consume(unknown.start(), unknown.end())  # "gpt-oss-120b": its "120b" is no bare model size


# a version number right after a name without one ("mistral large 3"); not a count, size or unit ("mistral large 2x",
# "… large 3 users", "… 4 张")
_VERSION_AFTER = re.compile(r"[\s\-]?v?(?P<ver>\d{1,2}(?:\.\d)?)(?![\w.])(?!\s*(?:x|×|\*|users?|people|gpus?|cards?|nodes?|"
                            r"servers?|k\b|tokens?|bits?|张|块|卡|个|人|路|台|位|万|千))")


# a variant word glued to a catalog name ("-flash", "-turbo", "-vl"): another model than the one the name matched
_VARIANT_AFTER = re.compile(r"[\-_](?:flash|air|turbo|lite|mini|nano|max|plus|pro|ultra|omni|vl|coder)(?![a-z0-9])"
                            r"(?:[\-_][a-z0-9]+)*")


# image, speech and vision models people also ask about: the catalog sizes language models only
_NOT_A_LANGUAGE_MODEL = re.compile(
    r"(?<![a-z])(?:stable[\s-]*diffusion(?:[\s-]*(?:xl|\d(?:\.\d)?))?|sdxl|sd\s*3(?:\.5)?|flux(?:\.1)?(?:[\s-]*(?:dev|schnell|pro))?|"
    r"whisper(?:[\s-]*(?:large|medium|small|base|tiny)(?:[\s-]*v\d)?)?|midjourney|dall[\s-]*e\s*\d?|comfyui|"
    r"yolo\s*v?\d*|wan\s*2\.\d|hunyuan[\s-]*video|sora)(?![a-z0-9])")


def not_a_language_model(name: str) -> bool:
    """Whether `name` is an image, speech or vision model ("Stable Diffusion XL", "Whisper large-v3")."""
    return bool(_NOT_A_LANGUAGE_MODEL.fullmatch(name.lower().strip()))


def _other_version(s: str, start: int, end: int, matched: str, model_id: str, catalog: Catalog) -> int | None:
    """The end of "<name> <version>" when the catalog model matched by a version-less alias ("mistral large") is
    another version than the one typed after it ("3"), else None."""
    if re.search(r"\d", matched):
        return None
    m = _VERSION_AFTER.match(s, end)
    if m is None:
        return None
    spec = catalog.model(model_id)
    names = " ".join((spec.id, spec.name, *spec.aliases)).lower()
    ver = m.group("ver")
    return None if re.search(rf"(?<![\d.]){re.escape(ver)}(?![\d.])", names) else m.end()


def _distilled(t: Text, slots: Slots, catalog: Catalog, named_at: int) -> None:
    """"DeepSeek-R1 蒸馏版 32B" / "R1 distill 7B": the distilled model of that size, not the 671B original."""
    size = SIZE.search(t.s)
    value = size_of(size) if size and size.group("num") else None
    if size is None or value is None:
        return
    model_id, err = representative_model(catalog, value, "distill")
    if model_id and err < 0.25:
        slots.model, slots.model_text, slots.model_assumed = model_id, t.quote(named_at, size.end()), "family+size"
        t.consume(size.start(), size.end())


def _same_generation(family: str, version: str, model_id: str) -> bool:
    """Does catalog `model_id` belong to the generation typed ("llama 3.1" → llama-3.1-…, "qwen 2.5" → qwen2.5-…)?"""
    compact = re.sub(r"[^a-z0-9]", "", model_id.lower())
    typed = re.sub(r"[^a-z0-9]", "", (FAMILY_WORDS.get(family) or family) + version)
    return compact.startswith(typed)


def _family_and_size(t: Text, slots: Slots, catalog: Catalog) -> bool:
    """"llama 70b", "qwen 14b", "千问 72B", "a 70B like Llama 3.1": family word and size -> the family's model of that
    size."""
    fam = _FAMILY_SIZE.search(t.s) or _SIZE_FAMILY.search(t.s)
    if not fam:
        return False
    params = float(fam.group("num").replace(",", "")) * (1e9 if fam.group("unit") == "b" else 1e8)
    model_id, err = representative_model(catalog, params, FAMILY_WORDS.get(fam.group("fam")))
    version = fam.group("ver") or fam.group("ver2")
    if version and model_id and not _same_generation(fam.group("fam"), version, model_id):
        # "Gemma 3 27B" is not Gemma-2-27B: a generation the catalog lacks is an unknown model, never a stand-in
        whole = _MODEL_LIKE.match(t.s, fam.start())  # the whole name: "Qwen3.5-397B-A17B", not "Qwen3.5-397B"
        end = max(fam.end(), whole.end() if whole else 0)
        slots.unknown_model = t.quote(fam.start(), end)
        t.consume(fam.start(), end)
        return True
    if not model_id or err >= 0.25:
        return False
    slots.model, slots.model_text, slots.model_assumed = model_id, t.quote(fam.start(), fam.end()), "family+size"
    t.consume(fam.start(), fam.end())
    return True


# --- GPUs ----------------------------------------------------------------------------------------------------------
_MONEY_AFTER = re.compile(r"\s*(?:元|块|rmb|cny|usd|美元|万|k\b|w\b|tokens?|b\b|亿|年|天|小时|mhz|w\b|瓦|gb|g\b|"
                          r"ms\b|毫秒|秒|s\b|sec|seconds?|%|users?|tok)")  # "a 40 ms target": a number, not the A40
# "a 40-person company", "a 100 people team", "40 人": a headcount, not the bare-number card (A40, 4090)
_PEOPLE_AFTER = re.compile(r"\s*-?\s*(?:person|people|member|strong|seat|man)\b|\s*(?:个人|人|名|位)")
# a word between the count and the card ("512 rented H100", "8 used A100s", "16 of our H800", "8 张租来的 H100")
_COUNT_ADJECTIVE = (r"(?:(?:of\s+(?:our|my|the|their)\s+)?(?:(?:rented|leased|used|spare|new|idle|existing|owned|reserved|"
                    r"dedicated|available|second[\s-]*hand|refurbished|on[\s-]*demand|cloud)\s+)?|of\s+(?:our|my|the|their)\s+|"
                    r"(?:租来的|租的|二手的?|闲置的?|现有的?|新的?)\s*)")
_COUNT_BEFORE = re.compile(rf"(?P<num>{NUM}|{EN_WORD_NUM})(?P<k>k(?=\s))?(?P<wan>\s*[万千](?=\s*[张块台片卡]))?\s*(?:x|\*|张|块|台|片|卡|个|枚)?\s*(?:张|块)?\s*"
                           rf"(?:卡\s*)?(?:的\s*)?{_COUNT_ADJECTIVE}$")
_COUNT_WINDOW = 32  # characters looked at before a card's name for its count ("1024 refurbished ")
# "16k H100s", "on 16K H100", "24k H100 GPUs": a count in thousands (training clusters) when the card is named as
# hardware — after "on/using/with/across" or followed by a plural or a GPU word; a bare "32k H100" stays a context
_K_COUNT_BEFORE = re.compile(r"(?:\b(?:on|using|with|across|over|of|have|own|got)|用|在|有)\s*$")
_K_COUNT_AFTER = re.compile(r"(?:s\b|\s*(?:gpus?|cards?|accelerators?|nodes?|张|块|卡))", re.I)
_COUNT_AFTER = re.compile(rf"(?:s|'s)?\s*(?:x|\*)\s*(?P<num>\d+)|\s*(?P<num2>{NUM})\s*(?:张|块|片)")


def k_gpus(value: float) -> int:
    """What "k" multiplies in a GPU count: 1,024 where the count is a power of two or a multiple of 8 under 100
    (clusters are built so: Meta's "16K H100" is 16,384 GPUs, its "24K" clusters 24,576), else 1,000 ("100k H100s",
    "200k GPUs")."""
    n = int(value) if float(value).is_integer() else 0
    return 1024 if n > 0 and (n & (n - 1) == 0 or (n % 8 == 0 and n < 100)) else 1000


_GPU_LIKE = re.compile(r"(?:华为\s*)?(?:昇腾|ascend|atlas)\s*\d{3}[a-z]{0,2}(?![a-z0-9])|"
                       r"(?<![a-z])(?:vera\s*)?rubin(?:\s*(?:cpx|ultra))?(?![a-z0-9])|"
                       r"(?<![a-z0-9])(?:rtx\s*(?:pro\s*)?\d{4}\s*(?:ti\s*super|ti|super|d|blackwell)?|"
                       # NVIDIA's Ampere/Ada workstation cards by their plain names ("RTX A5000", "A4000", "Quadro RTX 8000")
                       r"(?:rtx\s*)?a[2-6]000(?:\s*ada)?(?![0-9])|quadro\s*(?:rtx\s*|gv|gp)?\d{3,4}|\d{4}\s*(?:ti\s*super|ti|super)|[ahlbv]\d{2,3}[a-z]?|"
                       # a bare GeForce number with its memory or a card word ("一张 4060 8G", "my 3050 laptop")
                       r"(?<![\d.$¥￥])[1-5]0[5-9]0(?=\s*(?:\d{1,2}\s*g(?:b|ib)?(?![a-z0-9])|显卡|的卡|gpu|笔记本|laptop))|"
                       r"mi\d{3}[a-z]?|gtx\s*\d{3,4}|g[bh]\d{2,3}|gaudi\s*\d|dgx\s*spark|"
                       r"(?:mac\s*(?:studio|mini)\s*)?m\d\s*(?:ultra|max|pro)(?:\s*\d+\s*gb?)?|(?:ryzen\s*)?ai\s*max\+?\s*\d{3}|"
                       # other accelerators people ask about (Jetson, Radeon/Arc workstation cards, TPUs, Trainium)
                       r"jetson\s*(?:agx\s*)?(?:thor|orin)|radeon\s*(?:ai\s*)?pro\s*[rw]\d{4}|rx\s*\d{4}\s*(?:xtx|xt)?|"
                       r"arc\s*(?:pro\s*)?[ab]\d{2,3}|tpu\s*v?\d+[a-z]*|trainium\s*\d?|inferentia\s*\d?|"
                       # Chinese accelerators: Moore Threads, Cambricon, Hygon DCU, Kunlunxin, MetaX, Biren, Enflame
                       r"(?:摩尔线程\s*)?mtt\s*[sx]\d{3,4}|(?:寒武纪\s*)?(?:mlu\s*\d{3}[a-z]?|思元\s*\d{3})|"
                       r"(?:海光\s*(?:dcu\s*)?|dcu\s*)[kz]\d{3}[a-z]?|(?:昆仑芯|kunlun(?:xin)?)\s*[pr]?\d{3}|"
                       r"(?:沐曦\s*)?(?:mxc|曦云\s*c)\s*\d{3}|(?:壁仞\s*)?br\s*\d{3}[a-z]?|燧原\s*[is]\d{2}|"
                       # the maker's name before a bare model code ("沐曦C500", "摩尔线程S4000", "天数智芯天垓150")
                       r"(?:摩尔线程|沐曦|壁仞|燧原|天数智芯|天数|寒武纪|海光|昆仑芯)\s*(?:[\u4e00-\u9fff]{2}\s*)?[a-z]{0,3}\s*\d{2,4}[a-z]?)"
                       r"(?![a-z0-9])")
_OWN = re.compile(r"(?:我的|我们的|自己的|手上的|手里的|家里的|只有|现有|已有|我们有|我有|手上有|手头有|手里有|已经有|拥有|自有|有)(?!没)|"
                  r"就(?:这么|这|那)?几[张块台]|(?:这|那)几[张块台]|(?<![a-z])(?:have|has|own|owns|got|our|my|existing|already)(?![a-z])|i've|we've")
_NOT_OWN = re.compile(r"没有|没|不是|don'?t have|do not have|no longer|(?<![a-z])sell(?![a-z])|(?<![a-z])rent|租|买|buy|quote|报价|compare|对比|比较|vs|versus|或者|还是|or(?![a-z])|would|worth")
# who owns the card named without a count: a team or company ("we", "our", "我们", "公司") has some number of them
_FLEET = re.compile(r"(?<![a-z])(?:we|we've|our|us|team|company|lab|cluster)(?![a-z])|我们|咱们|公司|团队|实验室|单位|集群")
_SELLING = words(zh=r"卖|销售|报价|供货|出售|可提供|能提供|提供|报哪|给客户报|客户(?:要|想|需要)",
                 en=r"sell|sells|selling|quote|quoting|offer|offers|stock|carry|resell")
_CLAUSE = re.compile(r"[,.;!?，。；！？\n]|(?<![a-z])and(?![a-z])|但是|不过|\bbut\b|想|want|plan")


def read_gpus(t: Text, slots: Slots, catalog: Catalog) -> None:
    """Catalog GPUs with the count said beside them: the first owned one is `existing` (unless the message is
    about selling), the others `candidates`; ruled-out ones go to `excluded`, GPU-like words the catalog lacks to
    `unknown_gpus`."""
    selling = bool(_SELLING.search(t.s))
    for mention, owned in _gpu_mentions(t, slots, catalog):
        if owned and not selling and slots.existing is None:
            slots.existing = mention
            continue
        if slots.existing is not None and slots.existing.gpu == mention.gpu:
            if slots.existing.count is None:
                slots.existing.count = mention.count
            continue
        same = next((c for c in slots.candidates if c.gpu == mention.gpu), None)
        if same is None:
            slots.candidates.append(mention)
        elif same.count is None:
            same.count = mention.count  # "RTX 4090 有 24GB … 一张 4090 够吗": the count comes later
        elif mention.count is not None and mention.count != same.count and len(slots.candidates) < 4:
            slots.candidates.append(mention)  # "8 H100 vs 16 H100": two counts of one card, each a configuration
    read_count_pairs(t, slots)
    for m in _GPU_LIKE.finditer(t.s):  # "RTX 9090", "H300"
        if re.fullmatch(r"[bm]\d{1,2}", m.group(0)):  # "b1", "m2" are not GPUs (B200, B300 are)
            continue
        slots.unknown_gpus.append(t.quote(m.start(), m.end()))
        t.consume(m.start(), m.end())


def _gpu_mentions(t: Text, slots: Slots, catalog: Catalog) -> list[tuple[GpuMention, bool]]:
    """The catalog GPUs named, each with whether the user owns it; ruled-out ones go straight to `excluded`."""
    index = build_index(catalog)
    taken_end = -1
    mentions: list[tuple[GpuMention, bool]] = []
    replaced: list[tuple[GpuMention, str]] = []  # "… instead of an H100": compared when another card is named
    for start, end, matched, (gpu_id, bare) in _hits(t.s, [(p, (g, bare)) for p, g, _n, bare in index.gpus]):
        spaced = re.fullmatch(r"[a-z]{1,2}\s+\d+", matched)  # "a 40" as typed apart: the A40 only without a unit after
        if start < taken_end or ((bare or spaced) and _MONEY_AFTER.match(t.s[end:end + 12])) \
                or _PEOPLE_AFTER.match(t.s[end:end + 12]):
            continue  # "4090 元" is money, "a 40-person company" a headcount, not a card
        taken_end = end
        gpu_id, assumed = _resolve(catalog, gpu_key(matched), gpu_id, index.gpu_ambiguous)
        gpu_id = _total_of_namesake(t.s, catalog, gpu_id, matched, start, end)
        said = _memory_said(t.s, start, end, matched)
        variant = None
        if said is not None and not _holds(catalog.gpu(gpu_id), said[0], OWN_TOLERANCE) \
                and not _said_as_total(t.s, catalog.gpu(gpu_id), said, _count_near(t.s, start, end)[0]):
            variant = _variant(catalog, gpu_id, matched, said[0])
        if said is not None and variant is not None:  # "Mac Studio M3 Ultra with 512GB", "a 40GB A100": that one
            gpu_id, assumed, start, end = variant, "", min(start, said[1]), max(end, said[2])
        count, c_start, c_end = _count_near(t.s, start, end)
        over, at = _count_before(t.s, start, end) if count is None else (None, start)
        if over is not None and over > MAX_GPU_COUNT:  # "300000 H100s": said back as out of range, never dropped
            slots.out_of_range.append(OutOfRange(slot="gpu_count", value=over, lo=1, hi=MAX_GPU_COUNT))
            t.consume(at, start)  # "50 万张 H100": a count of cards, not a budget
        if said is not None and variant is None and not _holds(catalog.gpu(gpu_id), said[0], OWN_TOLERANCE, count):
            # "H100 96G", "96G的H100", "4090D 48G": a card the catalog lacks, not its namesake ("两张 3090 48G": both)
            slots.unknown_gpus.append(t.quote(min(start, said[1]), max(end, said[2])))
            t.consume(min(start, said[1]), max(end, said[2]))
            continue
        in_servers = servers_near(t.s, start, end)
        if in_servers is None and count is not None and re.match(r"[dh]gx\s*[a-z]", matched):
            in_servers = (count, None, c_start, c_end)  # "2 DGX B200": systems of the card's usual server size
        if in_servers is not None:  # "2 nodes of 8x H100", "两台 8 卡 H800": servers × GPUs per server
            spec = catalog.gpu(gpu_id)
            per = in_servers[1] or per_server_default(spec.interface, spec.segment, spec.max_per_node)
            if per is not None and in_servers[0] * per <= MAX_GPU_COUNT:
                count, c_start, c_end = in_servers[0] * per, in_servers[2], in_servers[3]
        elif (count is not None and c_start < start and _CAP_BEFORE.search(t.s[max(0, c_start - 24):c_start])
              and _COUNT_ASKED.search(t.s)):
            slots.gpu_cap, count = count, None  # "we can rent up to 128 H200s": a ceiling; the count is the question
        elif count is not None and c_start < start and servers_asked(t.s, start, end):
            slots.server_size = count if 1 <= count <= 16 else None
            count = None  # "几台 8 卡 H20 服务器": 8 cards in a server, the count of servers asked
        rack = _RACK.search(t.s[start:end + 8]) if gpu_id.startswith(("gb200", "gb300")) else None
        if rack is not None and (count or 1) * int(rack.group(1)) <= MAX_GPU_COUNT:
            # "a GB200 NVL72", "2 GB300 NVL72 racks": the racks' GPUs (72 or 36 each, as the name says)
            count = (count or 1) * int(rack.group(1))
            c_start, c_end = (c_start, max(end, start + rack.end())) if c_start < start else (start, start + rack.end())
        span_start, span_end = min(start, c_start), max(end, c_end)
        mention = GpuMention(gpu=gpu_id, count=count, text=t.quote(span_start, span_end), assumed=assumed)
        if reading.excluded_here(t.s, start, end):  # "国内买不到 A100", "not H20", "除了 4090": ruled out
            _exclude(slots, index.gpu_ambiguous, gpu_key(matched), gpu_id)
        elif reading.replaced_here(t.s, start, end):
            replaced.append((mention, gpu_key(matched)))
        else:
            clause = _clause_before(t.s, start)
            owned = bool(_OWN.search(clause)) and not _NOT_OWN.search(clause)
            if owned and count is None and _FLEET.search(clause):
                owned, slots.fleet = False, gpu_id  # "we only have L40S": that card, as many as it takes
            mentions.append((mention, owned))
        t.consume(span_start, span_end)
    for mention, key in replaced:  # "4× 4090 rather than one H100": both sides; "what instead of an H100?": ruled out
        if mentions:
            mentions.append((mention, False))
        else:
            _exclude(slots, index.gpu_ambiguous, key, mention.gpu)
    return mentions


# a count said as a ceiling ("up to 128 H200s", "at most 64 GPUs of H100", "最多 64 张 H800")
_CAP_BEFORE = re.compile(r"(?:(?<![a-z])up to|at most|no more than|a maximum of|max(?:imum)? of|最多(?:能用|可用|只有)?|至多|不超过)\s*$")
# the count of cards asked (else "up to 64" is the 64): not "how many users / requests / tokens"
_COUNT_ASKED = re.compile(r"how many(?!\s+(?:concurrent\s+)?(?:users?|people|persons|requests?|queries|tokens?|sessions?|"
                          r"streams?|chats?|customers?|seats?|days?|hours?))|(?:几|多少)\s*(?:张|台|块|卡)|"
                          r"(?:actually|really) need")
_RACK = re.compile(r"nvl\s*-?\s*(36|72)(?![0-9])")  # GB200 / GB300 NVL36 and NVL72 racks: GPUs per NVLink domain


# a memory size said right beside a card's name: after it ("A100 80G", "a 4090 with 48GB", "4090 的显存 48G") or
# before it ("a 40GB A100", "48G的4090", "24G 版 4090"); system RAM and disks ("a 4090 with 64GB RAM") are not the card's
_MEMORY_AFTER = re.compile(
    r"\s*(?:,\s*)?(?:with|w/|having|of|带|有|配|的)?\s*(?:显存\s*)?(?P<gb>\d{1,4})\s*(?:gb|gib|g)(?![a-z0-9])"
    r"(?!\s*(?:of\s+)?(?:system\s+)?(?:ram|ddr\d?|内存|系统|disk|ssd|硬盘))")
_MEMORY_BEFORE = re.compile(r"(?<![\d.])(?P<gb>\d{1,4})\s*(?:gb|gib|g)\s*(?:显存\s*)?(?:的|版本|版)?\s*(?:of\s+)?"
                            r"(?:version\s+of\s+)?(?:the\s+)?(?:an?\s+)?$")
_BEFORE_WINDOW = 24  # characters looked at before a name for a size said ahead of it


def _memory_said(s: str, start: int, end: int, matched: str) -> tuple[float, int, int] | None:
    """(the number said, GB or GiB; its span) of a memory size said beside the card name at s[start:end], or None
    (also when the name itself carries one: "A100 40GB" was matched with it)."""
    if re.search(r"\d\s*(?:gb|gib|g)\b", matched):
        return None
    m = _MEMORY_AFTER.match(s, end)
    if m is not None:
        return float(m.group("gb")), m.start("gb"), m.end()
    lo = max(0, start - _BEFORE_WINDOW)
    m = _MEMORY_BEFORE.search(s[lo:start])
    return (float(m.group("gb")), lo + m.start(), start) if m is not None else None


# a memory size said as the cards' sum, right after it ("two 4090 48GB in total", "两张 4090 48G 总共"), not one card's
_TOTAL_AFTER = re.compile(r"\s*(?:of\s+)?(?:vram\s+|memory\s+|显存\s*)?(?:in total|total|combined|altogether|between them|"
                          r"总共|一共|合计|总计|加起来|总显存)(?![a-z])|\s*显存(?!\s*的)")  # "两张4090 48G显存": the two's memory
_SIZE_IN_NAME = re.compile(r"\s*(\d{1,4})\s*(?:gb|gib|g)(?![a-z0-9])")


def _said_as_total(s: str, gpu: GpuSpec, said: tuple[float, int, int], count: int | None) -> bool:
    """Whether a size said beside a card is the sum over the cards counted, said as such ("two 4090s with 48GB in
    total"): then it is that card, not a larger memory variant of it."""
    return bool(count and count > 1 and _TOTAL_AFTER.match(s, said[2]) and _holds(gpu, said[0], OWN_TOLERANCE, count))


def _total_of_namesake(s: str, catalog: Catalog, gpu_id: str, matched: str, start: int, end: int) -> str:
    """A card matched by a name that carries its memory ("4090 48GB", the 48 GB RTX 4090), counted and followed by
    "in total" ("two 4090 48GB in total"), where the name without that size is a card holding the sum over the
    count: that card (two 24 GB RTX 4090s), not the larger variant."""
    m = _SIZE_IN_NAME.search(matched)
    count = _count_near(s, start, end)[0] if m is not None else None
    if m is None or not count or count < 2 or not _TOTAL_AFTER.match(s, end):
        return gpu_id
    base = catalog.find_gpu((matched[:m.start()] + matched[m.end():]).strip())
    gb = float(m.group(1))
    if base is None or base.id == gpu_id or _holds(base, gb, OWN_TOLERANCE) or not _holds(base, gb, OWN_TOLERANCE, count):
        return gpu_id
    return base.id


def _holds(gpu: GpuSpec, gb: float, tolerance: float, count: int | None = None) -> bool:
    """Whether `gb` is the memory of `gpu` (or of `count` of them) in GB or GiB, within `tolerance` (a share)."""
    total = gpu.unified_memory.total_bytes if gpu.unified_memory is not None else gpu.memory_bytes
    sizes = [total / 1e9, total / 2**30]
    sizes += [x * count for x in sizes] if count else []
    return any(abs(gb - x) <= tolerance * x for x in sizes)


OWN_TOLERANCE = 0.06  # a card's own memory said loosely ("B200 180GB" for 192 GB, "A100 40G" for 40 GiB)
VARIANT_TOLERANCE = 0.02  # telling memory variants of one name apart ("94GB" is not "96GB")


def _variant(catalog: Catalog, gpu_id: str, matched: str, gb: float) -> str | None:
    """The catalog card of the same name as `gpu_id` (an alias starting with the words said, or the same model word
    in the id: "a800-80g-pcie" → "a800") whose memory is `gb`, sharing the most id words with `gpu_id` (its form
    factor); None when there is none."""
    def model_word(card: str) -> str:  # "a800-80g-pcie" → "a800", "rtx-4090" → "4090"
        return next((w for w in card.split("-") if any(c.isdigit() for c in w)), card)

    key, base, words_ = gpu_key(matched), model_word(gpu_id), set(gpu_id.split("-"))
    same = [g for g in catalog.gpus if g.id != gpu_id and _holds(g, gb, VARIANT_TOLERANCE) and (
        model_word(g.id) == base or any(gpu_key(a).startswith(key) for a in (g.name, *g.aliases)))]
    return max(same, key=lambda g: len(words_ & set(g.id.split("-")))).id if same else None


def _exclude(slots: Slots, ambiguous: dict[str, list[str]], key: str, gpu_id: str) -> None:
    """Rule a card out; "A100" names several cards, and ruling it out rules out every one of them."""
    for ruled_out in ambiguous.get(key) or ambiguous.get(key.removesuffix(" s")) or [gpu_id]:
        if ruled_out not in slots.excluded:
            slots.excluded.append(ruled_out)


def _resolve(catalog: Catalog, key: str, gpu_id: str, ambiguous: dict[str, list[str]]) -> tuple[str, str]:
    """(catalog id, how an ambiguous name was taken): "A100" names several cards and the catalog's own alias
    resolution decides (else the first listed); "H100s" is the plural of the ambiguous "H100", not its PCIe card."""
    owners = ambiguous.get(key)
    if owners is None and re.search(r"\d g(?: |$)", key):
        # "A100 80G" matched the spelling "A100 80GB" (the unit said short): the same name, so the same choice
        # between its cards (the catalog's alias decides: the SXM4 card), not the first card listed (the PCIe one)
        spelled = re.sub(r"(\d) g(?= |$)", r"\1 gb", key)
        if ambiguous.get(spelled):
            key, owners = spelled, ambiguous[spelled]
    if owners is None and key.endswith(" s"):
        plural_of = ambiguous.get(key[:-2])
        if plural_of and gpu_id in plural_of:
            key, owners = key[:-2], plural_of
    if not owners or len(owners) < 2:
        return gpu_id, ""
    spec = catalog.find_gpu(key) or next(g for g in catalog.gpus if g.id == owners[0])
    return spec.id, f"{key.upper()} = {spec.name}"


def _clause_before(s: str, start: int) -> str:
    cut = 0
    for m in _CLAUSE.finditer(s, 0, start):
        cut = m.end()
    return s[cut:start]


def _count_before(s: str, start: int, end: int) -> tuple[float | None, int]:
    """The number said right before a GPU name as its count ("两张 4090", "16k H100s"), any size, and where it
    starts; (None, start) when there is none."""
    before = s[max(0, start - _COUNT_WINDOW):start]
    m = _COUNT_BEFORE.search(before)
    if not m or re.search(r"\d\s*$|[a-z]$", before[:m.start("num")]):
        return None, start  # "1 024 H100" is no count of 24; "fp8 H100", "int4 4090" are formats, not counts
    value = to_number(m.group("num"))
    if value is not None and m.group("k"):
        as_hardware = _K_COUNT_BEFORE.search(s[max(0, start - 40):start - (len(before) - m.start())]) \
            or _K_COUNT_AFTER.match(s[end:end + 16]) or s[end - 1:end].lower() == "s"  # "H100s"
        value = value * k_gpus(value) if as_hardware else None
    if value is not None and m.group("wan"):  # "1 万张 H800": ten thousand cards, not a budget of ¥10,000
        value *= 10_000 if "万" in m.group("wan") else 1_000
    return value, start - (len(before) - m.start())


def _count_near(s: str, start: int, end: int) -> tuple[int | None, int, int]:
    """The count said before ("两张 4090", "4x H100") or after ("H100 x 8") a GPU name, and the span it widens to."""
    value, at = _count_before(s, start, end)
    if value is not None and 1 <= value <= MAX_GPU_COUNT:
        return int(value), at, end
    m = _COUNT_AFTER.match(s[end:end + 16])
    if m:
        value = to_number(m.group("num") or m.group("num2"))
        if value is not None and 1 <= value <= MAX_GPU_COUNT:
            return int(value), start, end + m.end()
    return None, start, end
