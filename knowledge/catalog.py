"""The validated catalog: GPUs, models and the sources they cite, read from `knowledge/data/`.

Layout of the data directory (overridable with the environment variable ``GPU_ADVISOR_DATA`` or the
`path` argument of :func:`load_catalog`)::

    sources/*.yaml      mapping  source-id -> {title, url | document, retrieved, kind, ...}  (one file per team)
    gpus/<id>.yaml      one GpuSpec per file, `id` equal to the file stem
    models/<id>.yaml    one ModelSpec per file, `id` equal to the file stem

Validation: schemas (pydantic, ``extra="forbid"``), ids equal to file stems, names and aliases unique within each
catalog after normalisation (case, spaces, underscores and dashes ignored), every citation and every GPU
cross-reference resolving. Any failure raises :class:`~knowledge.errors.CatalogError` with one line naming file
and field.

Caching: in memory once per process and data directory; across processes, a JSON snapshot of the validated
entries (:mod:`knowledge.snapshot`, outside the repository, keyed by a hash (BLAKE2b) of the data files and of the
code that validates them) saves parsing and validating the YAML on the next start: its entries were validated
when it was written, and a digest of its payload shows it unchanged since, so they are constructed without
validating again (:mod:`knowledge.trusted`); citations, cross-references and names are checked again. A stale,
corrupted or failing snapshot is ignored and the YAML files are loaded as without one. ``GPU_ADVISOR_NO_CACHE=1``
turns the snapshot off.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from knowledge import schemas, snapshot
from knowledge.errors import CatalogError, UnknownGpu, UnknownModel
from knowledge.schemas import GpuSpec, ModelSpec, Source
from knowledge.structs import StructError, validate
from knowledge.trusted import READER_FILES, construct, dump

DATA_ENV = "GPU_ADVISOR_DATA"
PACKAGE_DATA = Path(__file__).resolve().parent / "data"

_SEPARATORS = re.compile(r"[\s_\-]+")
# tried, in order, when a name is not found as typed
_GPU_PREFIXES = ("nvidia", "geforce", "tesla", "amd", "instinct", "英伟达", "apple")
_MODEL_SUFFIXES = ("instruct", "chat", "hf", "base", "it", "4k", "bf16", "fp16", "fp8")

T = TypeVar("T")  # a struct (knowledge.structs) or a pydantic model


def normalize(name: str) -> str:
    """Lookup key of a name or alias: NFKC (full-width to ASCII), lower case, no spaces/underscores/dashes."""
    return _SEPARATORS.sub("", unicodedata.normalize("NFKC", name).lower())


def data_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: `path`, else $GPU_ADVISOR_DATA, else the package's `knowledge/data`."""
    if path is not None:
        return Path(path)
    env = os.environ.get(DATA_ENV)
    return Path(env) if env else PACKAGE_DATA


class _Sources(Mapping[str, Source]):
    """The sources of a snapshot, each kept as its JSON text until looked up (as models are): a start reads ~550
    sources and a command cites a handful; membership (every citation check) reads no entry. Iterated in file
    order, equal to the dict of the same entries."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts
        self.built: dict[str, Source] = {}

    def __getitem__(self, sid: str) -> Source:
        hit = self.built.get(sid)
        if hit is None:
            hit = self.built[sid] = construct(Source, msgspec.json.decode(self.texts[sid]))
        return hit

    def __contains__(self, sid: object) -> bool:
        return sid in self.texts

    def __iter__(self) -> Iterator[str]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)


class _Models:
    """The model entries, each built on first use. From YAML every entry is built (and validated) up front; from a
    snapshot an entry is kept as its JSON text until looked up, so start-up does not grow with the number of
    models (issue 27): one lookup builds one ModelSpec and re-checks its citations."""

    def __init__(self, order: list[str], built: dict[str, ModelSpec], texts: dict[str, tuple[str, str]],
                 sources: Mapping[str, Source]) -> None:
        self.order = order
        self.built = built
        self.texts = texts  # id -> (file shown in messages, the entry as JSON text)
        self.sources = sources
        self._all: tuple[ModelSpec, ...] | None = None

    def get(self, model_id: str) -> ModelSpec:
        hit = self.built.get(model_id)
        if hit is None:
            shown, text = self.texts[model_id]
            hit = construct(ModelSpec, msgspec.json.decode(text))
            _check_model_sources(hit, self.sources, shown)
            self.built[model_id] = hit
        return hit

    def all(self) -> tuple[ModelSpec, ...]:
        if self._all is None:
            self._all = tuple(self.get(i) for i in self.order)
        return self._all


# the models users described in this process (add_user_model), by normalised id: every Catalog instance finds them
_USER_MODELS: dict[str, ModelSpec] = {}


class Catalog:
    """GPUs, models and sources, validated. Look entries up by id or any alias with :meth:`gpu` / :meth:`model`.
    (A plain class with slots: `dataclasses` and the `inspect` it loads cost the CLI's start-up ≈ 7 ms.)"""

    __slots__ = ("_gpu_by_id", "_gpu_index", "_model_index", "_models", "gpus", "path", "sources")

    def __init__(self, *, gpus: tuple[GpuSpec, ...], _models: _Models, sources: Mapping[str, Source], path: Path,
                 _gpu_index: dict[str, str] | None = None, _model_index: dict[str, str] | None = None,
                 _gpu_by_id: dict[str, GpuSpec] | None = None) -> None:
        self.gpus = gpus
        self._models = _models
        self.sources = sources
        self.path = path
        self._gpu_index = _gpu_index if _gpu_index is not None else {}
        self._model_index = _model_index if _model_index is not None else {}
        self._gpu_by_id = _gpu_by_id if _gpu_by_id is not None else {}

    def __repr__(self) -> str:
        return f"Catalog(path={str(self.path)!r}, gpus={len(self.gpus)})"

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        """Every model, in file order (builds the ones not yet looked up)."""
        return self._models.all()

    # --- lookups -------------------------------------------------------------------------------------------
    def gpu(self, name: str) -> GpuSpec:
        """The GPU whose id, name or alias matches `name` (case, spaces, '-' and '_' ignored).

        Raises UnknownGpu with close matches when nothing matches."""
        found = _resolve(name, self._gpu_index, _gpu_variants)
        if found is None:
            raise UnknownGpu(name, _pool(name, self._gpu_index))
        return self._gpu_by_id[found]

    def model(self, name: str) -> ModelSpec:
        """The model whose id, name, alias or Hugging Face repo matches `name`; "-Instruct"/"-chat" suffixes
        and an "org/" prefix are ignored when the exact name is not known. Raises UnknownModel otherwise."""
        found = _resolve(name, self._model_index, _model_variants)
        if found is None:
            user = _USER_MODELS.get(normalize(name))
            if user is not None:
                return user
            raise UnknownModel(name, _pool(name, self._model_index))
        return self._models.get(found)

    def find_gpu(self, name: str) -> GpuSpec | None:
        found = _resolve(name, self._gpu_index, _gpu_variants)
        return None if found is None else self._gpu_by_id[found]

    def find_model(self, name: str) -> ModelSpec | None:
        found = _resolve(name, self._model_index, _model_variants)
        return _USER_MODELS.get(normalize(name)) if found is None else self._models.get(found)

    def add_user_model(self, spec: ModelSpec) -> None:
        """Make a model the user described (a config.json, a shape typed in chat) findable by its id for this process;
        it is not listed among the catalog's models and cites the user, not a maker."""
        self._models.built[spec.id] = spec
        self._model_index.setdefault(normalize(spec.id), spec.id)
        _USER_MODELS[normalize(spec.id)] = spec  # also for a catalog loaded again in this process

    def source(self, id: str) -> Source:
        try:
            return self.sources[id]
        except KeyError:
            raise CatalogError(f"unknown source '{id}'", field="source") from None

    def gpu_ids(self) -> tuple[str, ...]:
        return tuple(g.id for g in self.gpus)

    def memory_twins(self, gpu_id: str) -> list[GpuSpec]:
        """The catalog's other memory sizes of the card `gpu_id` names, with more memory, smallest first: the ids
        that are the same once the memory ("96g") and form-factor words ("pcie", "sxm", "nvl") are left out
        ("mac-studio-m3-ultra-96g" → the 256 GB and 512 GB machines; "a100-40g-pcie" → the 80 GB A100s; not the
        RTX PRO 6000 for the RTX 6000 Ada). A community memory mod (the 48 GB RTX 4090, the 22 GB 2080 Ti) is no
        larger size of a stock card: it is offered only when it is asked for by name."""
        own = self.gpu(gpu_id)
        key = twin_key(own.id)
        return sorted((g for g in self.gpus if g.id != own.id and twin_key(g.id) == key and g.memory > own.memory
                       and (own.modded or not g.modded)), key=lambda g: (g.memory, g.id))

    def model_ids(self) -> tuple[str, ...]:
        return tuple(self._models.order)


_FORM_WORDS = frozenset({"pcie", "sxm", "sxm2", "sxm4", "sxm5", "nvl", "maxq", "server", "hgx", "oam", "v2"})


def twin_key(gpu_id: str) -> str:
    """A catalog id without its memory and form-factor words: the cards one name sells in several memory sizes
    share it ("a100-80g-sxm" and "a100-40g-pcie" → "a100")."""
    return "-".join(w for w in gpu_id.split("-") if w not in _FORM_WORDS and not (w[:-1].isdigit() and w[-1] == "g"))


def _pool(name: str, index: dict[str, str]) -> list[str]:
    """Ids whose names or aliases are close to `name` (best first), for "did you mean"."""
    import difflib

    close = difflib.get_close_matches(normalize(name), list(index), n=12, cutoff=0.6)
    return list(dict.fromkeys(index[key] for key in close)) or sorted(set(index.values()))


def _resolve(name: str, index: dict[str, str], variants: Any) -> str | None:
    if not isinstance(name, str) or not name.strip():
        return None
    for key in variants(name):
        if key in index:
            return index[key]
    return None


def _gpu_variants(name: str) -> Iterator[str]:
    key = normalize(name)
    yield key
    for prefix in _GPU_PREFIXES:
        if key.startswith(prefix) and len(key) > len(prefix):
            yield key[len(prefix):]
            for p2 in _GPU_PREFIXES:  # "nvidia geforce rtx 4090"
                rest = key[len(prefix):]
                if rest.startswith(p2) and len(rest) > len(p2):
                    yield rest[len(p2):]
    if key.endswith("gb"):  # "a100 80gb" -> "a100 80g"
        yield key[:-1]


def _model_variants(name: str) -> Iterator[str]:
    raw = name.strip()
    keys = [normalize(raw)]
    if "/" in raw:
        keys.append(normalize(raw.rsplit("/", 1)[1]))
    for key in keys:
        yield key
        stripped = key
        changed = True
        while changed:  # "-instruct-hf" etc.
            changed = False
            for suffix in _MODEL_SUFFIXES:
                if stripped.endswith(suffix) and len(stripped) > len(suffix) + 2:
                    stripped = stripped[: -len(suffix)]
                    changed = True
                    yield stripped


# --- loading ---------------------------------------------------------------------------------------------------

def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def read_yaml(path: Path, root: Path | None = None) -> Any:
    """Parse one YAML file; syntax errors become a CatalogError naming the file and line."""
    import yaml  # here, not at the top: a start-up that finds a fresh snapshot parses no YAML

    shown = _rel(path, root) if root else str(path)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.load(f, Loader=loader)  # a safe loader (C or pure Python)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CatalogError(f"{shown}:{where}: invalid YAML: {problem}", field=shown) from None
    except OSError as exc:
        raise CatalogError(f"{shown}: cannot read ({exc.strerror})", field=shown) from None


def validation_message(exc: Any, shown: str) -> str:
    """One line naming the file, the field (dotted path) and what was wrong with it. `exc`: a
    knowledge.structs.StructError or pydantic's ValidationError (the same `errors()`)."""
    err = exc.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown field (not in the schema)"
    elif err["type"] == "missing":
        msg = "required field is missing"
    more = f" (+{exc.error_count() - 1} more errors)" if exc.error_count() > 1 else ""
    got = ""
    if err["type"] not in ("missing",) and "input" in err and not isinstance(err["input"], (dict, list)):
        got = f"; got {err['input']!r}"
    return f"{shown}: field '{loc}': {msg}{got}{more}"


def validate_file(schema: type[T], data: Any, shown: str) -> T:
    if not isinstance(data, dict):
        raise CatalogError(f"{shown}: expected a mapping of fields, got {type(data).__name__}", field=shown)
    try:
        if isinstance(schema, type) and issubclass(schema, msgspec.Struct):
            return validate(schema, data)
        return schema.model_validate(data)  # type: ignore[attr-defined, no-any-return]
    except (ValueError, StructError) as exc:
        if not hasattr(exc, "errors"):  # not a validation error: a bug in a schema's own check
            raise
        raise CatalogError(validation_message(exc, shown), field=shown) from None


def _load_entries(root: Path, folder: str, schema: type[T]) -> list[tuple[T, str]]:
    directory = root / folder
    if not directory.is_dir():
        raise CatalogError(f"{_rel(directory, root)}: data folder missing", field=folder)
    out: list[tuple[T, str]] = []
    for path in sorted(directory.glob("*.yaml")):
        shown = _rel(path, root)
        data = read_yaml(path, root)
        entry = validate_file(schema, data, shown)
        if entry.id != path.stem:  # type: ignore[attr-defined]
            raise CatalogError(f"{shown}: field 'id': '{entry.id}' must equal the file name '{path.stem}'",  # type: ignore[attr-defined]
                               field="id")
        out.append((entry, shown))
    return out


def load_sources(root: Path) -> tuple[dict[str, Source], dict[str, str]]:
    """All sources of `root/sources/*.yaml`: id -> Source, and id -> the file defining it."""
    sources: dict[str, Source] = {}
    where: dict[str, str] = {}
    directory = root / "sources"
    if not directory.is_dir():
        raise CatalogError(f"{_rel(directory, root)}: data folder missing", field="sources")
    for path in sorted(directory.glob("*.yaml")):
        shown = _rel(path, root)
        data = read_yaml(path, root) or {}
        if not isinstance(data, dict):
            raise CatalogError(f"{shown}: expected a mapping source-id -> {{title, url, ...}}", field=shown)
        for sid, body in data.items():
            if sid in sources:
                raise CatalogError(f"{shown}: source id '{sid}' is also defined in {where[sid]}", field="id")
            if not isinstance(body, dict):
                raise CatalogError(f"{shown}: field '{sid}': expected a mapping {{title, url, ...}}", field=str(sid))
            try:
                sources[sid] = validate(Source, {"id": sid, **body})
            except StructError as exc:
                raise CatalogError(validation_message(exc, f"{shown} [{sid}]"), field=str(sid)) from None
            where[sid] = shown
    return sources, where


def check_cites(cites: dict[str, list[str]], sources: Mapping[str, str] | Mapping[str, Source], shown: str,
                prefix: str = "cite") -> None:
    for fname, ids in cites.items():
        if not ids:
            raise CatalogError(f"{shown}: field '{prefix}.{fname}': empty citation list", field=fname)
        for sid in ids:
            if sid not in sources:
                raise CatalogError(f"{shown}: field '{prefix}.{fname}': source '{sid}' is not in sources/*.yaml",
                                   field=fname)


def _check_source(sid: str, sources: Mapping[str, Source], shown: str, loc: str) -> None:
    if sid not in sources:
        raise CatalogError(f"{shown}: field '{loc}': source '{sid}' is not in sources/*.yaml", field=loc)


def _index(entries: list[tuple[Any, str]], extra: Any = None) -> dict[str, str]:
    """normalised name -> id; a name claimed by two entries is an error naming both files."""
    index: dict[str, str] = {}
    owner: dict[str, str] = {}
    for entry, shown in entries:
        names = [entry.id, entry.name, *entry.aliases, *(extra(entry) if extra else ())]
        for name in names:
            key = normalize(name)
            if not key:
                raise CatalogError(f"{shown}: field 'aliases': empty alias", field="aliases")
            if key in index and index[key] != entry.id:
                raise CatalogError(f"{shown}: field 'aliases': '{name}' is also a name of '{index[key]}' "
                                   f"({owner[key]}); aliases must be unique", field="aliases")
            index[key] = entry.id
            owner[key] = shown
    return index


def _model_extra_names(m: ModelSpec) -> list[str]:
    """The Hugging Face repo ids of the entry (base and chat checkpoint) and their last parts, as names."""
    return [name for repo in (m.hf_repo, m.hf_repo_chat) if repo and " " not in repo
            for name in (repo, repo.rsplit("/", 1)[-1])]


def build_catalog(root: Path) -> Catalog:
    """Read and validate everything under `root` (uncached; use :func:`load_catalog`)."""
    sources, _ = load_sources(root)
    gpus = _load_entries(root, "gpus", GpuSpec)
    models = _load_entries(root, "models", ModelSpec)
    return _assemble(root, sources, gpus, models)


def _assemble(root: Path, sources: Mapping[str, Source], gpus: list[tuple[GpuSpec, str]],
              models: list[tuple[ModelSpec, str]]) -> Catalog:
    """Check citations, cross-references and name uniqueness of validated entries; index them."""
    gpu_ids = {g.id for g, _ in gpus}
    for g, shown in gpus:
        check_cites(g.cite, sources, shown)
        for i, src in enumerate(g.china.source):
            _check_source(src, sources, shown, f"china.source.{i}")
        for i, p in enumerate(g.prices):
            _check_source(p.source, sources, shown, f"prices.{i}.source")
        for i, c in enumerate(g.cloud):
            _check_source(c.source, sources, shown, f"cloud.{i}.source")
        refs = [("china.china_variant_of", g.china.china_variant_of), ("china.china_substitute", g.china.china_substitute)]
        refs += [(f"china.substitutes.{i}", s) for i, s in enumerate(g.china.substitutes)]
        for loc, ref in refs:
            if ref is not None and ref not in gpu_ids:
                raise CatalogError(f"{shown}: field '{loc}': '{ref}' is not a GPU id", field=loc)
    for m, shown in models:
        _check_model_sources(m, sources, shown)
    model_index = _index(models, _model_extra_names)
    lazy = _Models([m.id for m, _ in models], {m.id: m for m, _ in models}, {}, sources)
    return _catalog(root, sources, gpus, lazy, model_index)


def _check_model_sources(m: ModelSpec, sources: Mapping[str, Source], shown: str) -> None:
    check_cites(m.cite, sources, shown)
    for i, q in enumerate(m.quantized):
        _check_source(q.source, sources, shown, f"quantized.{i}.source")


def _catalog(root: Path, sources: Mapping[str, Source], gpus: list[tuple[GpuSpec, str]], models: _Models,
             model_index: dict[str, str], gpu_index: dict[str, str] | None = None) -> Catalog:
    return Catalog(gpus=tuple(g for g, _ in gpus), _models=models, sources=sources, path=root,
                   _gpu_index=_index(gpus) if gpu_index is None else gpu_index, _model_index=model_index,
                   _gpu_by_id={g.id: g for g, _ in gpus})


# --- snapshot (see knowledge/snapshot.py) -----------------------------------------------------------------------

_SNAPSHOT_KIND = "catalog"
_FOLDERS = ("sources", "gpus", "models")


def _snapshot_key(root: Path) -> str | None:
    """A hash (snapshot.fingerprint) of the data files and of the modules that validate them; None when a file
    cannot be read."""
    try:  # os.listdir: a third of pathlib's glob on this path, same names in the same order
        files = [os.path.join(d, name) for d in (os.path.join(root, folder) for folder in _FOLDERS)
                 for name in sorted(n for n in os.listdir(d) if n.endswith(".yaml"))]
        return snapshot.fingerprint([*files, __file__, schemas.__file__, *READER_FILES])
    except OSError:
        return None


def _to_snapshot(catalog: Catalog) -> dict[str, Any]:
    """The validated entries as JSON data (the fields they were given), each GPU and model with the file name
    shown in messages."""
    root = catalog.path

    def entries(folder: str, items: tuple[Any, ...]) -> list[list[Any]]:
        return [[_rel(root / folder / f"{e.id}.yaml", root), dump(e)] for e in items]

    return {
        # each source as JSON text, as the models: a start scans these strings and parses the few it cites
        "sources": {sid: json.dumps(dump(s), separators=(",", ":")) for sid, s in catalog.sources.items()},
        "gpus": entries("gpus", catalog.gpus),
        # each model as JSON text: parsing the snapshot only scans these strings; an entry is parsed when looked up
        "models": [[shown, json.dumps(body, separators=(",", ":"))] for shown, body in entries("models", catalog.models)],
        "model_index": catalog._model_index,
        "gpu_index": catalog._gpu_index,  # ~700 names normalised (NFKC, a regex) on every start otherwise
    }


def _from_snapshot(root: Path, data: dict[str, Any]) -> Catalog:
    """The entries of a snapshot this program wrote after validating the YAML of its key (snapshot.read checks
    the payload's digest), constructed without validating again (knowledge.trusted); the GPUs' citations and
    cross-references are checked again, each model's citations when it is first looked up (its JSON text is parsed
    only then, as a source's). Raises on any mismatch."""
    source_texts = data["sources"]
    if not isinstance(source_texts, dict) or not all(isinstance(text, str) for text in source_texts.values()):
        raise CatalogError("snapshot: sources are not JSON texts", field="sources")
    sources = _Sources(source_texts)
    gpus = [(construct(GpuSpec, body), shown) for shown, body in data["gpus"]]
    _assemble(root, sources, gpus, [])  # the GPUs' citations and cross-references
    texts: dict[str, tuple[str, str]] = {}
    for shown, text in data["models"]:
        model_id = Path(shown).stem  # the file name is the id (checked when the YAML was read)
        texts[model_id] = (shown, text)
    index = data["model_index"]
    if not isinstance(index, dict) or not set(index.values()) <= set(texts):
        raise CatalogError("snapshot: the model index names unknown models", field="models")
    gpu_index = data["gpu_index"]
    if not isinstance(gpu_index, dict) or not set(gpu_index.values()) <= {g.id for g, _ in gpus}:
        raise CatalogError("snapshot: the GPU index names unknown GPUs", field="gpus")
    return _catalog(root, sources, gpus, _Models(list(texts), {}, texts, sources), index, gpu_index)


@lru_cache(maxsize=8)
def _load_cached(root: str) -> Catalog:
    path = Path(root)
    key = _snapshot_key(path) if snapshot.cache_dir() is not None else None
    if key is not None:
        data = snapshot.read(_SNAPSHOT_KIND, path, key)
        if data is not None:
            try:
                return _from_snapshot(path, data)
            except Exception:  # noqa: BLE001 - any snapshot that does not load is ignored: full load below
                pass
    catalog = build_catalog(path)
    if key is not None:
        snapshot.write(_SNAPSHOT_KIND, path, key, _to_snapshot(catalog))
    return catalog


def load_catalog(path: str | os.PathLike[str] | None = None) -> Catalog:
    """The validated catalog of `path` (default: $GPU_ADVISOR_DATA or the package data), cached per process."""
    return _load_cached(_resolved(str(data_dir(path))))


@lru_cache(maxsize=64)
def _resolved(root: str) -> str:
    """`root` as an absolute path with links resolved (memoised: `Path.resolve` stats every component, and the
    recommender asks for the catalog on every call)."""
    return str(Path(root).resolve())


def clear_cache() -> None:
    """Forget cached catalogs (tests that edit data files)."""
    _load_cached.cache_clear()
    _resolved.cache_clear()
