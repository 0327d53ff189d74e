"""Labels in the user's language (words from `knowledge.messages`): tasks, formats, slots, memory parts, regions, and
slot values in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.conversation.reader.rental import PROVIDER_IDS
from advisor.conversation.render.book import SRC_USER, Book, decimals_for
from advisor.conversation.render.options_table import ENGINE_LABELS
from advisor.estimator.formats import FORMAT_NAMES
from advisor.recommend.results import ascend_checkpoint
from knowledge.messages import known, t
from knowledge.quantities import Seconds

if TYPE_CHECKING:
    from advisor.conversation.reader.extract import GpuMention
    from knowledge.catalog import Catalog

FORMAT = FORMAT_NAMES  # the short names of the weight formats (advisor.estimator.formats)


# the parts of a GPU's memory, in the order a breakdown lists them; their words are "part.<part>" in the catalogs
PARTS = ("weights", "kv_cache", "activations", "gradients", "optimizer_states", "overhead", "reference_model")


def provider_label(name: str, lang: str) -> str:
    """A rental provider's name in the user's language: a Chinese cloud's English name in an English answer
    ("provider.<id>" in the catalogs, reader.rental.PROVIDER_IDS); other names as written."""
    key = f"provider.{PROVIDER_IDS.get(name, '')}"
    return t(key, lang) if name in PROVIDER_IDS and known(key) else name


def slot_label(slot: str, lang: str) -> str:
    """A slot's name in words ("weights": "precision"); a slot the catalogs lack by its name, underscores as spaces."""
    key = f"slot.label.{slot}"
    return t(key, lang) if known(key) else slot.replace("_", " ")


def task_label(task: str | None, lang: str) -> str:
    key = f"task.{task or 'inference'}"
    return t(key, lang) if known(key) else task or ""


def region_label(region: str, lang: str) -> str:
    """A region code in words ("cn": mainland China); a code the catalogs lack as given."""
    return t(f"region.{region}", lang) if known(f"region.{region}") else region


def format_label(fmt: str | None, lang: str) -> str:
    return FORMAT.get(fmt or "bf16", (fmt or "").upper())


def option_format(o: Any, lang: str) -> str:
    """An option's weight format in an answer's words: the checkpoint Ascend runs ("W8A8 INT8"), else the label."""
    return ascend_checkpoint(o) or format_label(o.layout.weights, lang)


def gpu_name(catalog: Catalog, gpu_id: str) -> str:
    spec = catalog.find_gpu(gpu_id) if hasattr(catalog, "find_gpu") else None
    return spec.name if spec is not None else gpu_id


def model_name(catalog: Catalog, model_id: str | None) -> str:
    if model_id is None:
        return "?"
    spec = catalog.find_model(model_id) if hasattr(catalog, "find_model") else None
    return spec.name if spec is not None else model_id


def slot_value(book: Book, slot: str, value: Any, lang: str, catalog: Catalog, prefix: str) -> str:
    """A slot value in words, with its numbers recorded."""
    if value is None:
        return t("slot.unset", lang)
    name = f"{prefix} {slot}"
    if slot == "model":
        return model_name(catalog, value)
    if slot == "task":
        return task_label(value, lang)
    if slot in ("weights", "kv"):
        return format_label(value, lang)
    if slot in ("context", "prompt_tokens", "output_tokens"):
        return book.tokens(name, value, SRC_USER, lang)
    if slot == "train_tokens":
        return book.tokens(name, value, SRC_USER, lang)
    if slot == "concurrency":
        return book.num(name, value, "sequences", SRC_USER, suffix=t("slot.concurrency_unit", lang))
    if slot == "headcount":
        return book.num(name, value, "people", SRC_USER, suffix=t("slot.people_unit", lang))
    if slot == "qps":
        return book.num(name, value, "requests/s", SRC_USER, decimals_for(value))
    if slot == "budget":
        return str(value)
    if slot == "region":
        return region_label(value, lang)
    if slot == "existing":
        return mention_text(book, value, lang, catalog, name)
    if slot == "candidates":
        return ", ".join(mention_text(book, m, lang, catalog, f"{name} {i}") for i, m in enumerate(value))
    if slot == "deadline_s":
        d = Seconds(value)
        return book.duration(name, d, "days", SRC_USER, decimals_for(d.days), suffix=t("slot.days", lang))
    if slot in ("gpu_count", "batch", "lora_rank", "zero", "tco_years"):
        return book.count(name, value, {"gpu_count": "GPUs", "tco_years": "years"}.get(slot, ""), SRC_USER)
    if slot == "buy_or_rent" and value in ("buy", "rent", "either"):  # in the user's words, not the enum's
        return t(f"slot.buy_or_rent.{value}", lang)
    if slot == "engine":
        return ENGINE_LABELS.get(str(value), str(value))
    return str(value)


def mention_text(book: Book, mention: GpuMention, lang: str, catalog: Catalog, name: str) -> str:
    gpu = gpu_name(catalog, mention.gpu)
    if mention.count:
        return f"{book.count(name, mention.count, 'GPUs', SRC_USER)}× {gpu}"
    return gpu
