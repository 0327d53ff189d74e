"""The link from rules to the knowledge base: the catalog (when it loads) and the sources registry.

Rule metadata names source ids; `citation()` renders them as "title, section (document or URL, retrieved
date)". Sources come from `knowledge.catalog.load_catalog().source(id)`; when the full catalog cannot be
loaded (for example while another data folder is being edited), the sources folder alone is read with the
catalog's own `load_sources`, so a rule's citation never depends on unrelated data.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from knowledge.catalog import data_dir, load_catalog, load_sources
from knowledge.errors import CatalogError
from knowledge.messages import t

if TYPE_CHECKING:
    from knowledge.catalog import Catalog
    from knowledge.schemas import Source


@lru_cache(maxsize=4)
def _catalog(root: str) -> Catalog | None:
    try:
        return load_catalog(root)
    except CatalogError:
        return None


def catalog_or_none() -> Catalog | None:
    """The validated catalog, or None when it does not load (the failure is cached for the process)."""
    return _catalog(str(data_dir()))


@lru_cache(maxsize=4)
def _sources(root: str) -> dict[str, Source]:
    from pathlib import Path

    return load_sources(Path(root))[0]


def source(source_id: str) -> Source:
    """The registry entry of `source_id`; CatalogError naming the id when there is none."""
    catalog = catalog_or_none()
    if catalog is not None:
        return catalog.source(source_id)
    found = _sources(str(data_dir())).get(source_id)
    if found is None:
        raise CatalogError(f"unknown source '{source_id}' (not in knowledge/data/sources/*.yaml)", field="source")
    return found


def citation(source_id: str, section: str = "") -> str:
    """One line: title, section, and where to find it (document path or URL, with the retrieval date).

    A source id the registry lacks renders as "<id> (source not in the registry)" rather than failing the
    whole evaluation; tests/test_rules_meta.py requires every rule's sources to resolve.
    """
    return _citation(source_id, section, str(data_dir()))


@lru_cache(maxsize=1024)
def _citation(source_id: str, section: str, root: str) -> str:
    try:
        src = source(source_id)
    except CatalogError:
        return f"{source_id}{', ' + section if section else ''} (source not in the registry)"
    parts = [src.title]
    if section:
        parts.append(section)
    where = src.document or src.url or ""
    if src.retrieved and src.url and not src.document:
        where = f"{where}, retrieved {src.retrieved.isoformat()}"
    text = ", ".join(parts)
    return f"{text} ({where})" if where else text


_RETRIEVED = re.compile(r", retrieved (\d{4}-\d{2}-\d{2})")


def citation_in(text: str, lang: str) -> str:
    """A rendered citation (`citation`) with its retrieval date's words in `lang`; titles and sections stay as
    published."""
    if lang == "en":
        return text
    return _RETRIEVED.sub(lambda m: t("citation.retrieved", lang, date=m.group(1)), text)
