"""The LLM reader: one structured-output call fills the same typed request the offline reader fills.

    request = llm_read("Serve Qwen2.5-72B to 50 users with 8k context", settings, catalog, "en")

The model sees the message and a JSON schema: the `Reading` struct below (the act, the names it saw, each card's
role and count, the numbers it read), as `msgspec.json.schema` writes it with its references inlined
(`reading_schema()`, made on first use: the `ask` path without a model never builds it). LangChain's
`with_structured_output(..., method="json_schema")` sends it as `response_format` (OpenAI and llama.cpp's servers
constrain decoding to it: every key required, enums, no other keys). The reply's text is decoded by msgspec,
strictly (a cut-off or malformed reply is an error of one line, not completed by a lenient parser), held to the
message (`ground`: a name that is not in its words, a number that is not among its amounts (8k = 8000 or 8192), a
word outside the struct's vocabulary is dropped and named in the note), converted to `Reading` (every key there,
each of its type and vocabulary) and then validated exactly like the offline reading (`request.validate`: catalog
ids that exist; a name the catalog lacks becomes an unknown name, never a stand-in). The model only reads: every
number of the answer still comes from the estimator, the catalog and the renderer.

A failure — no model, a timeout, an HTTP error, malformed, cut-off or empty JSON, a missing key, a reading that
does not validate — falls back to the offline reader, and `Request.note` says why (`reader` stays "offline").
"""

from __future__ import annotations

import re
import typing
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from advisor.conversation.llm.chat_model import chat_openai_class
from advisor.conversation.reader.quantity import quantities
from advisor.conversation.reader.request import Act, Request, Role, read, reconcile, validate
from advisor.workload import Currency, Region, Task
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.conversation.llm.settings import Settings
    from knowledge.catalog import Catalog

# What the model fills. The docstring and the `Meta` descriptions are part of the schema the model is sent (the
# comments are not); the vocabularies are the request's and the workload's own (`Act`, `Role`, `Task`, …).


class Card(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # one card the message names: as typed, its role, how many (null when not said)
    name: str
    role: Role
    count: int | None


class Reading(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What one message to a GPU sizing advisor asks. Fill only what the message says."""

    act: Annotated[Act, msgspec.Meta(description="the kind of question")]
    model: Annotated[str | None, msgspec.Meta(description="the LLM named, as typed (e.g. Qwen2.5-72B)")]
    gpus: list[Card]
    task: Task | None
    weights: Annotated[str | None, msgspec.Meta(description="bf16, fp16, fp8, int8, int4, awq-int4, gptq-int4, nf4")]
    context_tokens: int | None
    concurrent_users: Annotated[int | None, msgspec.Meta(
        description="requests at the same time (e.g. 50 concurrent users)")]
    headcount: Annotated[int | None, msgspec.Meta(
        description="people who use the service, not all at once (a team, company or user base: 'team of 15')")]
    train_tokens: float | None
    budget: float | None
    currency: Currency | None
    region: Region | None


@cache
def reading_schema() -> dict[str, Any]:
    """`Reading` as msgspec's JSON schema, its `$ref`s inlined (the schema is one object, as LangChain names the
    response format after its top-level `title` and some OpenAI-compatible servers resolve no references), each
    enum with its JSON type beside it (OpenAI's strict mode describes every value by a type)."""
    found = msgspec.json.schema(Reading)
    defs = found.get("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, list):
            return [inline(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return inline(defs[node["$ref"].rsplit("/", 1)[-1]])
        out = {k: inline(v) for k, v in node.items()}
        if "enum" in out and "type" not in out and all(isinstance(v, str) for v in out["enum"]):
            out = {"type": "string", **out}
        return out

    return typing.cast(dict[str, Any], inline(found))


def __getattr__(name: str) -> Any:
    if name == "READING_SCHEMA":  # the schema as a constant, built on first use
        return reading_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SCHEMA_REFUSED = re.compile(r"response_format|validation error|json_schema", re.I)

PROMPT = ("Read the user's message to a GPU sizing advisor into the JSON schema. Copy model and GPU names exactly "
          "as typed; give numbers as plain values (8k context = 8192, 50 users = 50); null for anything not said. "
          "concurrent_users is requests at the same time; a team, company or user-base size ('team of 15', "
          "'全公司 300 人用', '50 employees will use it') is headcount, not concurrent_users. "
          "Do not answer the question.")


_WORDS = {name: typing.get_args(tp) for name, tp in (("task", Task), ("currency", Currency), ("region", Region))}
_NUMERIC = {"context_tokens": "context", "concurrent_users": "concurrency", "headcount": "headcount",
            "train_tokens": "train_tokens", "budget": "budget"}


def _squash(s: str) -> str:
    return re.sub(r"[\W_]+", "", s.lower())


def _named_in(name: str, squashed_text: str) -> bool:
    """A model or card name the model returned is in the message: whole (spaces, hyphens and case aside) or by its
    distinctive numbered token ("RTX 4090" for "4090", "Llama 3 70B" for "llama3-70b")."""
    if not name or not name.strip():
        return False
    if _squash(name) and _squash(name) in squashed_text:
        return True
    tokens = [_squash(t) for t in re.split(r"[\s/-]+", name) if re.search(r"\d", t)]
    return bool(tokens) and all(t and t in squashed_text for t in tokens)


def _number_in(value: float, found: list[Any]) -> bool:
    """A number the model returned is one the message says: within 3 %, or a k/万 amount read in powers of two
    (8k context = 8192)."""
    for q in found:
        for v in (q.value, q.value * 1.024, q.value * 1.024 ** 2, q.hi or q.value):
            if abs(v - value) <= 0.03 * abs(value) + 0.5:
                return True
    return False


def _alias_in(spec: Any, squashed_text: str) -> bool:
    """The catalog entry a name resolves to is named in the message by one of its aliases ("千问 72B" for
    Qwen2.5-72B, "4090" for the RTX 4090): a model that writes the catalog name for what was typed is right."""
    if spec is None:
        return False
    forms = [spec.name, spec.id, *(getattr(spec, "aliases", ()) or ())]
    return any(len(_squash(f)) >= 3 and _squash(f) in squashed_text for f in forms)


def ground(reading: dict[str, Any], text: str, catalog: Catalog | None = None) -> tuple[dict[str, Any], list[str]]:
    """The reading without what the message does not say: names not in its words, numbers not among its amounts,
    words outside the schema's vocabulary (a small model's constrained decoding can still invent them), keys the
    schema does not have (a server that ignored it). Returns the kept reading and what was dropped, for the note."""
    squashed, found, dropped = _squash(text), quantities(text), []
    out = {k: v for k, v in reading.items() if k in Reading.__struct_fields__}
    dropped += [f"key {str(k)[:20]!r}" for k in reading if k not in Reading.__struct_fields__]
    def named(name: str, find: Any) -> bool:
        return _named_in(name, squashed) or (find is not None and _alias_in(find(name), squashed))

    find_model = catalog.find_model if catalog is not None else None
    find_gpu = catalog.find_gpu if catalog is not None else None
    if out.get("model") is not None and not named(str(out["model"]), find_model):
        dropped.append(f"model {str(out['model'])[:40]!r}")
        out["model"] = None
    gpus = []
    for g in out.get("gpus") or []:
        if isinstance(g, dict) and named(str(g.get("name") or ""), find_gpu):
            gpus.append(g)
        else:
            dropped.append(f"card {str(g.get('name') if isinstance(g, dict) else g)[:40]!r}")
    if "gpus" in out:  # (a missing key stays missing: `Reading` requires it)
        out["gpus"] = gpus
    for key in _NUMERIC:
        v = out.get(key)
        if v is not None and (not isinstance(v, int | float) or v <= 0 or not _number_in(float(v), found)):
            dropped.append(f"{_NUMERIC[key]} {v}")
            out[key] = None
    for key, allowed in _WORDS.items():
        if out.get(key) is not None and out[key] not in allowed:
            dropped.append(f"{key} {str(out[key])[:20]!r}")
            out[key] = None
    if out.get("weights") is not None and not re.fullmatch(r"[a-z0-9_-]{2,12}", str(out["weights"]).lower()):
        dropped.append(f"weights {str(out['weights'])[:20]!r}")
        out["weights"] = None
    return out, dropped


def _to_request(reading: Reading, lang: str) -> dict[str, Any]:
    """The schema's flat reading as the typed request's data (every value the model read is `stated`)."""
    job: list[dict[str, Any]] = []
    limits: list[dict[str, Any]] = []
    subjects: list[dict[str, Any]] = []
    if reading.model:
        subjects.append({"kind": "model", "id": reading.model, "text": reading.model})
        job.append({"name": "model", "value": reading.model, "text": reading.model})
    for key, name, unit in (("task", "task", ""), ("weights", "weights", ""), ("context_tokens", "context", "tokens"),
                            ("concurrent_users", "concurrency", "sequences"), ("headcount", "headcount", "people"),
                            ("train_tokens", "train_tokens", "tokens")):
        if getattr(reading, key) is not None:
            job.append({"name": name, "value": getattr(reading, key), "unit": unit})
    if reading.budget is not None:
        limits.append({"name": "budget", "value": reading.budget,
                       "unit": reading.currency or ("CNY" if lang == "zh" else "USD")})
    if reading.region:
        limits.append({"name": "region", "value": reading.region})
    hardware = [{"gpu": g.name, "role": g.role, "count": g.count, "text": g.name} for g in reading.gpus]
    subjects += [{"kind": "gpu", "id": h["gpu"], "text": h["text"]} for h in hardware if h["role"] != "excluded"]
    return {"act": reading.act, "lang": lang, "subjects": subjects, "job": job, "limits": limits,
            "hardware": hardware, "reader": "llm"}


def decode_reading(raw: str | bytes, text: str, catalog: Catalog | None = None) -> tuple[Reading, list[str]]:
    """The model's reply text as a `Reading` held to the message, and what was dropped. msgspec decodes the JSON
    object strictly and converts the grounded values (`msgspec.DecodeError` / `ValidationError`, one line each:
    "Object missing required field `budget`", "Expected `object`, got `array`")."""
    data = msgspec.json.decode(raw, type=dict[str, Any])
    data, dropped = ground(data, text, catalog)
    return msgspec.convert(data, Reading, strict=False), dropped


def _model(settings: Settings) -> Any:
    from openai import Timeout  # optional dependency: openai only with the llm extra

    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    return chat_openai_class()(model=settings.model, base_url=settings.base_url, api_key=api_key, temperature=0.0,
                                max_retries=0, streaming=False, max_tokens=min(settings.max_tokens, 600),
                                timeout=Timeout(min(settings.request_timeout_s, settings.turn_timeout_s),
                                                connect=settings.connect_timeout_s))


def llm_read(text: str, settings: Settings | None, catalog: Catalog, lang: str = "en", *,
             chat_model: Any = None) -> Request:
    """The request the model reads from `text`, validated; the offline reading with a note when it fails."""
    if chat_model is None and (settings is None or settings.api_key is None):
        return replace(read(text, catalog, lang), note="no model configured: read offline")
    try:
        model = chat_model if chat_model is not None else _model(settings)  # type: ignore[arg-type]
        messages = [("system", PROMPT), ("user", text[:4000])]
        schema = reading_schema()
        try:
            # the reply's own text (`raw`), decoded below by msgspec: LangChain's lenient parser would complete a
            # cut-off reply
            raw = model.with_structured_output(schema, method="json_schema", include_raw=True).invoke(messages)["raw"]
        except Exception as exc:
            if not _SCHEMA_REFUSED.search(str(exc)):
                raise
            # llama-cpp-python's server takes the schema as {"type": "json_object", "schema": …} (a grammar), not
            # OpenAI's json_schema: the same constraint, asked the way that server understands
            raw = model.bind(response_format={"type": "json_object", "schema": schema}).invoke(messages)
        reading, dropped = decode_reading(str(raw.content), text, catalog)
        # the offline reading of the same words settles a disagreement on the act and the named model (`reconcile`)
        request = reconcile(validate(_to_request(reading, lang), catalog), read(text, catalog, lang))
        return replace(request, note="not in the message, dropped: " + ", ".join(dropped)) \
            if dropped else request
    except Exception as exc:  # noqa: BLE001 - any failure of the model's reading: the offline reader answers
        detail = f"{type(exc).__name__}: {str(exc)[:120]}"
        return replace(read(text, catalog, lang), note=f"model reading unusable ({detail}); read offline")


__all__ = ["PROMPT", "Reading", "decode_reading", "ground", "llm_read", "reading_schema"]
