"""GPU families: the card a rule talks about, independent of memory size and form factor.

The guides name cards ("A100", "4090"), the catalog names SKUs (`a100-80g-sxm`, `rtx-4090`). Rules match
on the family, so "A100 → A800 in China" covers every A100 SKU. `family_of` maps a catalog id, name or
alias to its family slug by pattern; `resolve_gpu` checks the id against the catalog when it loads and
raises `UnknownGpu` (with close matches) when neither the catalog nor the patterns know it.
"""

from __future__ import annotations

import re
import unicodedata

from knowledge.errors import UnknownGpu
from rules.sources import catalog_or_none

# family slug -> display name (English; model names are the same in Chinese)
FAMILY_NAMES: dict[str, str] = {
    "rtx-2080ti-22g": "RTX 2080 Ti 22G (modded)",
    "rtx-2080ti": "RTX 2080 Ti",
    "rtx-3060": "RTX 3060",
    "rtx-3070": "RTX 3070",
    "rtx-3080ti": "RTX 3080 Ti",
    "rtx-3080": "RTX 3080",
    "rtx-3090ti": "RTX 3090 Ti",
    "rtx-3090": "RTX 3090",
    "rtx-4060ti": "RTX 4060 Ti",
    "rtx-4060": "RTX 4060",
    "rtx-4070ti-super": "RTX 4070 Ti SUPER",
    "rtx-4070-super": "RTX 4070 SUPER",
    "rtx-4070ti": "RTX 4070 Ti",
    "rtx-4070": "RTX 4070",
    "rtx-4080-super": "RTX 4080 SUPER",
    "rtx-4080": "RTX 4080",
    "rtx-4090d": "RTX 4090 D",
    "rtx-4090-48g": "RTX 4090 48G (modded)",
    "rtx-4090": "RTX 4090",
    "rtx-5080": "RTX 5080",
    "rtx-5090d": "RTX 5090 D",
    "rtx-5090": "RTX 5090",
    "rtx-6000-ada": "RTX 6000 Ada",
    "rtx-a6000": "RTX A6000",
    "rtx-a5000": "RTX A5000",
    "rtx-a4000": "RTX A4000",
    "a10g": "A10G",
    "a10": "A10",
    "a30": "A30",
    "a40": "A40",
    "a100": "A100",
    "a800": "A800",
    "h100": "H100",
    "h800": "H800",
    "h200": "H200",
    "h20": "H20",
    "b200": "B200",
    "l4": "L4",
    "l20": "L20",
    "l40s": "L40S",
    "l40": "L40",
    "t4": "T4",
    "v100": "V100",
    "rx-7900-xtx": "Radeon RX 7900 XTX",
    "mi250x": "MI250X",
    "mi300x": "MI300X",
    "ascend-910b": "Ascend 910B",
    "ascend-910c": "Ascend 910C",
    "atlas-300i-duo": "Atlas 300I Duo",
    "rtx-pro-6000": "RTX PRO 6000 Blackwell",
    "rtx-pro-5000": "RTX PRO 5000 Blackwell",
    "rtx-pro-4500": "RTX PRO 4500 Blackwell",
    "rtx-pro-4000": "RTX PRO 4000 Blackwell",
    "rtx-5060ti": "RTX 5060 Ti",
    "rtx-5070ti": "RTX 5070 Ti",
    "rtx-5070": "RTX 5070",
    "b300": "B300",
    "gb200": "GB200",
    "gb300": "GB300",
    "mi325x": "MI325X",
    "mi350x": "MI350X",
    "mi355x": "MI355X",
    "mac-m3-ultra": "Mac Studio M3 Ultra",
    "mac-m4-max": "Apple M4 Max",
    "mac-m2-ultra": "Mac Studio M2 Ultra",
    "mac-m1-ultra": "Mac Studio M1 Ultra",
    "mac-m1-max": "Apple M1 Max",
    "mac-m2-max": "Apple M2 Max",
    "mac-m3-max": "Apple M3 Max",
    "mac-m4-pro": "Apple M4 Pro",
    "mac-m5-max": "Apple M5 Max",
    "mac-m5-pro": "Apple M5 Pro",
    "dgx-spark": "DGX Spark",
    "ryzen-ai-max": "Ryzen AI Max+ 395",
    "gaudi3": "Gaudi 3",
}

# (family, pattern on the normalised name); first match wins, so specific patterns come first.
# Names are normalised to lower-case words separated by single spaces, vendor words removed.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (fam, re.compile(pat))
    for fam, pat in (
        ("rtx-2080ti-22g", r"^2080 ?ti.*22 ?g"),
        ("rtx-2080ti", r"^2080 ?ti"),
        ("rtx-3060", r"^3060"),
        ("rtx-3070", r"^3070(?! ?ti)"),
        ("rtx-3080ti", r"^3080 ?ti"),
        ("rtx-3080", r"^3080"),
        ("rtx-3090ti", r"^3090 ?ti"),
        ("rtx-3090", r"^3090"),
        ("rtx-4060ti", r"^4060 ?ti"),
        ("rtx-4060", r"^4060"),
        ("rtx-4070ti-super", r"^4070 ?ti ?(super|s\b)"),
        ("rtx-4070-super", r"^4070 ?(super|s\b)"),
        ("rtx-4070ti", r"^4070 ?ti"),
        ("rtx-4070", r"^4070"),
        ("rtx-4080-super", r"^4080 ?(super|s\b)"),
        ("rtx-4080", r"^4080"),
        ("rtx-4090-48g", r"^4090(?! ?d\b).*\b48 ?g"),
        ("rtx-4090d", r"^4090 ?d\b"),
        ("rtx-4090", r"^4090"),
        ("rtx-pro-6000", r"^pro ?6000"),
        ("rtx-pro-5000", r"^pro ?5000"),
        ("rtx-pro-4500", r"^pro ?4500"),
        ("rtx-pro-4000", r"^pro ?4000"),
        ("rtx-5060ti", r"^5060 ?ti"),
        ("rtx-5070ti", r"^5070 ?ti"),
        ("rtx-5070", r"^5070"),
        ("rtx-5080", r"^5080"),
        ("rtx-5090d", r"^5090 ?d\b"),
        ("rtx-5090", r"^5090"),
        ("rtx-6000-ada", r"^6000 ?ada"),
        ("rtx-a6000", r"^a6000"),
        ("rtx-a5000", r"^a5000"),
        ("rtx-a4000", r"^a4000"),
        ("a100", r"^a100"),
        ("a10g", r"^a10 ?g\b"),
        ("a10", r"^a10(?![0-9])"),
        ("a30", r"^a30(?![0-9])"),
        ("a40", r"^a40(?![0-9])"),
        ("a800", r"^a800"),
        ("h100", r"^h100"),
        ("h800", r"^h800"),
        ("h200", r"^h200"),
        ("h20", r"^h20(?![0-9])"),
        ("b200", r"^b200"),
        ("b300", r"^b300"),
        ("gb200", r"^gb200"),
        ("gb300", r"^gb300"),
        ("l40s", r"^l40 ?s\b"),
        ("l40", r"^l40(?![0-9])"),
        ("l20", r"^l20(?![0-9])"),
        ("l4", r"^l4(?![0-9])"),
        ("t4", r"^t4(?![0-9])"),
        ("v100", r"^v100"),
        ("rx-7900-xtx", r"^(?:radeon ?)?(?:rx ?)?7900 ?xtx"),
        ("mi250x", r"^mi ?250 ?x"),
        ("mi300x", r"^mi ?300 ?x"),
        ("mi325x", r"^mi ?325 ?x?"),
        ("mi350x", r"^mi ?350 ?x?"),
        ("mi355x", r"^mi ?355 ?x?"),
        ("ascend-910b", r"^(ascend ?)?910 ?b"),
        ("ascend-910c", r"^(ascend ?)?910 ?c"),
        ("atlas-300i-duo", r"^(?:atlas ?300 ?i ?duo|(?:ascend ?)?310 ?p)"),
        ("mac-m3-ultra", r"^(mac (studio )?)?m3 ultra"),
        ("mac-m4-max", r"^(mac (studio |book pro )?)?m4 max"),
        ("mac-m2-ultra", r"^(mac (studio )?)?m2 ultra"),
        ("mac-m1-ultra", r"^(mac (studio )?)?m1 ultra"),
        ("mac-m1-max", r"^(mac (studio |book pro )?)?m1 max"),
        ("mac-m2-max", r"^(mac (studio |book pro )?)?m2 max"),
        ("mac-m3-max", r"^(mac (studio |book pro )?)?m3 max"),
        ("mac-m4-pro", r"^(mac (mini |book pro )?)?m4 pro"),
        ("mac-m5-max", r"^(mac (studio |book pro )?)?m5 max"),
        ("mac-m5-pro", r"^(mac (mini |book pro )?)?m5 pro"),
        ("dgx-spark", r"^(dgx spark|gb10)"),
        ("ryzen-ai-max", r"^ryzen ai max"),
        ("gaudi3", r"^gaudi ?3"),
    )
)
_VENDOR_WORDS = re.compile(r"^(nvidia|geforce|tesla|quadro|amd|instinct|huawei|apple|intel|rtx) ?")


def _normalise(name: str) -> str:
    key = " ".join(re.sub(r"[^0-9a-z]+", " ", unicodedata.normalize("NFKC", name).lower()).split())
    while True:
        shorter = _VENDOR_WORDS.sub("", key, count=1)
        if shorter == key or not shorter:
            return key
        key = shorter


def family_of(name: str) -> str | None:
    """Family slug of a catalog id, name or alias ("a100-80g-sxm" → "a100", "RTX 4090 D" → "rtx-4090d")."""
    key = _normalise(name)
    if "魔改" in name and key.startswith("2080"):  # "魔改2080ti": the community 22 GB mod
        return "rtx-2080ti-22g"
    if "魔改" in name and re.match(r"4090(?! ?d\b)", key):  # "魔改 4090": the China-built 48 GB board
        return "rtx-4090-48g"
    for fam, pat in _PATTERNS:
        if pat.search(key):
            return fam
    return None


def family_name(family: str) -> str:
    return FAMILY_NAMES.get(family, family)


def resolve_gpu(name: str) -> tuple[str, str | None]:
    """(catalog id, family) of `name`.

    With a loadable catalog the name must be a catalog id or alias (UnknownGpu otherwise). Without one,
    a name whose family the patterns recognise is accepted as given.
    """
    catalog = catalog_or_none()
    if catalog is not None:
        spec = catalog.find_gpu(name)
        if spec is None:
            raise UnknownGpu(name, [g.id for g in catalog.gpus] + [a.lower() for g in catalog.gpus for a in g.aliases])
        return spec.id, family_of(spec.id) or family_of(spec.name)
    fam = family_of(name)
    if fam is None:
        raise UnknownGpu(name, FAMILY_NAMES)
    return name, fam
