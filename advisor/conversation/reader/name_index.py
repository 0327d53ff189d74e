"""The catalog's model and GPU names as regexes, and the model that stands for a bare size.

`build_index(catalog)` compiles one pattern per spelling (id, name, aliases, the Hugging Face repo name; for GPUs
also the name without its trailing form-factor or memory words, "A100 80GB SXM4" -> "A100 80GB" -> "A100"),
longest first, so the longest spelling in a message wins. A spelling several cards share ("A100") is ambiguous
and resolved by the catalog. `representative_model(catalog, 70e9)` picks the catalog model a "70B" means.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import TYPE_CHECKING

import msgspec

from knowledge.params import param_counts

if TYPE_CHECKING:
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec, ModelSpec

_TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)?|[\u4e00-\u9fff]+")
SEP = r"[\s\-_/:+]*"  # what may stand between the tokens of a name ("llama-3.1 70b", "h100_sxm", "max+ 395")
OPTIONAL_GPU_WORDS = {"nvidia", "geforce", "rtx", "tesla", "amd", "instinct", "huawei", "radeon", "gen", "generation"}
_DROPPABLE = {"pcie", "sxm", "sxm2", "sxm4", "sxm5", "generation", "gen", "gb", "g"}
_MODEL_SUFFIX = r"(?:" + SEP + r"(?:instruct|chat|hf|base|it|preview|awq|gptq|gguf|int4|int8|fp8))*"
_GPU_PREFIX = rf"(?:(?:nvidia|geforce|rtx|tesla|amd|instinct|radeon|huawei|英伟达|昇腾){SEP})*"
_SIZE_ONLY = re.compile(r"^\d+(?:\.\d+)?\s*[bm]$")


def tokens(text: str) -> list[str]:
    """The words and numbers of a name, NFKC and lower case: "Llama-3.1-70B" -> ["llama", "3.1", "70", "b"]."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).lower())


def gpu_key(matched: str) -> str:
    """The tokens of a matched GPU name without vendor and brand words: "NVIDIA H100 SXM" -> "h100 sxm"."""
    return " ".join(tok for tok in tokens(matched) if tok not in OPTIONAL_GPU_WORDS and tok not in ("英伟达", "昇腾"))


def _token_pattern(toks: list[str]) -> str:
    parts: list[str] = []
    for tok in toks:
        if tok == "gb" or (tok == "g" and parts and parts[-1].isdigit()):  # "256g" also spells "256GB", "256 GiB"
            parts.append(r"g(?:i?b)?")
        elif tok == "b" and parts:
            parts.append(r"b")
        else:
            parts.append(re.escape(tok))
    return SEP.join(parts)


class NameIndex(msgspec.Struct):
    """The compiled spellings of one catalog, longest first, and each model's parameter counts."""

    models: list[tuple[re.Pattern[str], str, int]] = msgspec.field(default_factory=list)  # (pattern, id, alias length)
    gpus: list[tuple[re.Pattern[str], str, int, bool]] = msgspec.field(default_factory=list)  # (..., bare number)
    gpu_ambiguous: dict[str, list[str]] = msgspec.field(default_factory=dict)  # form -> ids, for "A100"
    model_params: dict[str, tuple[float, float, str]] = msgspec.field(default_factory=dict)  # id -> (total, active, family)


_INDEX_CACHE: dict[int, tuple[Catalog, NameIndex]] = {}


def _model_forms(spec: ModelSpec) -> set[str]:
    forms = {spec.id, spec.name, *spec.aliases}
    if spec.hf_repo:
        forms.add(spec.hf_repo.split("/")[-1])
    out = set()
    for form in forms:
        form = unicodedata.normalize("NFKC", str(form)).lower().strip()
        if not form or _SIZE_ONLY.match(form):
            continue
        # drop bracketed remarks: "GPT-2 XL (1.5B)" -> "gpt-2 xl"
        form = re.sub(r"\(.*?\)", "", form).strip()
        if len(form) < 3 and not re.search(r"[\u4e00-\u9fff]", form):
            continue
        out.add(form)
    return out


def _gpu_forms(spec: GpuSpec) -> set[str]:
    """Spellings of one GPU: its own, and its name without trailing form-factor / memory words."""
    forms: set[str] = set()
    for form in (spec.id, spec.name, *spec.aliases):
        form = unicodedata.normalize("NFKC", str(form)).lower().strip()
        form = re.sub(r"\(.*?\)", " ", form).strip()
        if form:
            forms.add(form)
    # derived: the name without trailing form factor / memory words ("a100 80gb sxm4" -> "a100 80gb" -> "a100")
    toks = [t for t in tokens(spec.name) if t not in OPTIONAL_GPU_WORDS]
    while len(toks) > 1:
        if toks[-1] in ("gb", "g", "gib") and len(toks) > 2 and toks[-2].isdigit():
            if not any(t.isdigit() for t in toks[:-2]):
                break  # "A10G" is no "A" with 10 GB: a name keeps its model number
            toks = toks[:-2]  # memory size: "80 gb"
        elif toks[-1].isdigit() and len(toks) > 2 and toks[-2] in _DROPPABLE:
            toks = toks[:-2]  # form factor with generation: "sxm 4"
        elif toks[-1] in _DROPPABLE:
            toks = toks[:-1]
        else:
            break
        forms.add(" ".join(toks))
    return forms


def _index_models(index: NameIndex, models: tuple[ModelSpec, ...]) -> None:
    for spec in models:
        for form in _model_forms(spec):
            toks = tokens(form)
            if toks:
                # a name ending in a word ("Mistral Large") followed by a version number is another generation
                # ("Mistral Large 3"), never this one; a count after it ("GLM-4.5-Air 2 张") is not a version
                # a name ending in its size ("Qwen3-32B", tokens "32", "b") takes no version after it: "qwen3-32b
                # 16并发" is 16 users
                sized = len(toks) >= 2 and toks[-1] in ("b", "m") and toks[-2].replace(".", "").isdigit()
                version = rf"(?!{SEP}\d+(?:\.\d+)?(?![\d.]|\s*[a-z×*张块台片卡]))" if toks[-1].isalpha() and not sized else ""
                # "Kimi K2.5" is not Kimi K2: a point release after the name is another model
                pattern = re.compile(rf"(?<![a-z0-9.]){_token_pattern(toks)}{version}{_MODEL_SUFFIX}(?![a-z0-9]|\.\d)")
                index.models.append((pattern, spec.id, len(form)))
        total, active = _param_counts(spec)
        index.model_params[spec.id] = (total, active, str(spec.family).lower())


def _index_gpus(index: NameIndex, gpus: tuple[GpuSpec, ...]) -> None:
    owners_of: dict[str, list[str]] = {}
    for spec in gpus:
        for form in _gpu_forms(spec):
            key = " ".join(t for t in tokens(form) if t not in OPTIONAL_GPU_WORDS)
            if not key:
                continue
            owners = owners_of.setdefault(key, [])
            if spec.id not in owners:
                owners.append(spec.id)
    segment = {spec.id: spec.segment for spec in gpus}
    for key, owners in owners_of.items():
        toks = key.split()
        bare_number = len(toks) == 1 and toks[0].isdigit()
        if bare_number and (len(toks[0]) < 4 or any(segment.get(o) != "consumer" for o in owners)):
            continue  # "6000" alone is not the RTX 6000 Ada; bare numbers only for GeForce cards
        # "RTX 5090 Ti" / "4080 Super" is another card than the RTX 5090 / 4080: no match without its variant word
        variant = rf"(?!{SEP}(?:ti|super)(?![a-z]))"
        # "2x4090", "8xH100": a count glued to the card by its "x" still leaves the card a word of its own
        pattern = re.compile(rf"(?:(?<![a-z0-9])|(?<=\d[x×])){_GPU_PREFIX}{_token_pattern(toks)}(?:s|'s)?{variant}"
                             rf"(?![a-z0-9])")
        if len(owners) > 1:
            index.gpu_ambiguous[key] = owners
        index.gpus.append((pattern, owners[0], len(key), bare_number))


def build_index(catalog: Catalog) -> NameIndex:
    """Regexes for every model and GPU spelling in the catalog, longest first; cached per catalog object."""
    cached = _INDEX_CACHE.get(id(catalog))
    if cached and cached[0] is catalog:
        return cached[1]
    index = NameIndex()
    _index_models(index, catalog.models)
    _index_gpus(index, catalog.gpus)
    index.models.sort(key=lambda item: -item[2])
    index.gpus.sort(key=lambda item: -item[2])
    _INDEX_CACHE[id(catalog)] = (catalog, index)
    return index


def _param_counts(spec: ModelSpec) -> tuple[float, float]:
    try:
        counts = param_counts(spec)
        return float(counts.total), float(counts.active)
    except Exception:  # noqa: BLE001 - a spec the counter cannot read is simply not a size candidate
        published = spec.published_params or 0
        return float(published), float(spec.published_active_params or published)


def _nominal_size(model_id: str) -> float | None:
    """The size a model is called by, from its id: "qwen2.5-14b" -> 14e9 (not its exact 14.77e9 parameters);
    None for ids without one ("mixtral-8x7b" is not "7B", MoE "qwen3-30b-a3b" is "30B")."""
    if re.search(r"\d+x\d+b", model_id):
        return None
    m = re.search(r"(?<![\d.])(\d+(?:\.\d+)?)b(?![a-z0-9])", model_id)
    return float(m.group(1)) * 1e9 if m else None


# preference when a bare size or "family + size" stands for a catalog model (newest common open models first)
REPRESENTATIVE_ORDER = ("qwen2.5-", "llama-3.1-", "qwen3-", "llama-3-", "llama-2-", "mistral-", "gemma-2-",
                        "yi-", "glm-", "baichuan", "chatglm", "deepseek", "mixtral", "phi-", "gpt")
FAMILY_WORDS = {"llama": "llama", "羊驼": "llama", "qwen": "qwen", "千问": "qwen", "通义千问": "qwen",
                "deepseek": "deepseek", "mistral": "mistral", "mixtral": "mixtral", "gemma": "gemma", "yi": "yi",
                "glm": "glm", "chatglm": "chatglm", "baichuan": "baichuan", "百川": "baichuan", "phi": "phi",
                "gpt": "gpt"}


def representative_model(catalog: Catalog, params: float, family: str | None = None,
                         moe: bool | None = None) -> tuple[str | None, float]:
    """The catalog model standing for "a {params} model": the preferred family within 10 % of the size, else the
    closest by log ratio; `moe` False or True keeps to dense or to mixture-of-experts models ("a 30B dense model").
    Returns (id, relative error)."""
    index = build_index(catalog)
    best: tuple[tuple[float, int, float], str] | None = None
    for model_id, (total, active, fam) in index.model_params.items():
        if total <= 0 or (moe is not None and (active < total) != moe):
            continue
        if family and family not in model_id and family not in fam:
            continue
        nominal = _nominal_size(model_id)
        err = abs(math.log((nominal or total) / params))
        rank = next((i for i, prefix in enumerate(REPRESENTATIVE_ORDER) if model_id.startswith(prefix)),
                    len(REPRESENTATIVE_ORDER))
        bucket = 0 if err < math.log(1.005) else 1 if err < math.log(1.1) else 2
        key = (bucket, rank if bucket < 2 else 0, err)
        if best is None or key < best[0]:
            best = (key, model_id)
    if best is None:
        return None, math.inf
    total = index.model_params[best[1]][0]
    return best[1], abs(total / params - 1.0)
