"""Cards named by the cloud instance that rents them ("on AWS g5", "a p5.48xlarge", "两台 g6e.12xlarge"): the card
of that instance family in knowledge.cloud_offers, with the instance's card count when its size is said
("g5.12xlarge": 4 A10G) times the instances counted before it. A family alone ("g5") is read only beside a cloud
word (AWS, EC2, instance), so that a bare "p5" or "g6" elsewhere is no card. A card named in words wins."""

from __future__ import annotations

import re
from functools import lru_cache

from advisor.conversation.reader.numbers import cn_int
from advisor.conversation.reader.slots import GpuMention, Slots
from advisor.conversation.reader.text import Text
from knowledge.catalog import Catalog
from knowledge.cloud_offers import CloudOffer, load_cloud_offers

_CLOUD = re.compile(r"(?<![a-z])(?:aws|amazon|ec2|sagemaker|instances?)(?![a-z])|亚马逊|实例")
_HOW_MANY = re.compile(r"(?<![a-z])how many\s*$|(?:几|多少)\s*(?:台|个)\s*$")
_COUNT_BEFORE = re.compile(r"(?P<n>\d{1,3}|[两二三四五六七八九十])\s*(?:x|×|\*|台|个)?\s*$")


@lru_cache(maxsize=1)
def _families() -> tuple[re.Pattern[str], dict[str, tuple[CloudOffer, ...]]]:
    """One pattern for every instance family of the table (longest first: "p5en" before "p5"), and each family's
    sizes."""
    rows: dict[str, list[CloudOffer]] = {}
    for o in load_cloud_offers().offers:
        rows.setdefault(o.instance.split(".")[0].lower(), []).append(o)
    names = "|".join(re.escape(f) for f in sorted(rows, key=len, reverse=True))
    pattern = re.compile(rf"(?<![a-z0-9.])(?P<fam>{names})(?:\.(?P<size>[a-z0-9]+))?(?![a-z0-9])")
    return pattern, {f: tuple(v) for f, v in rows.items()}


def read_instances(t: Text, slots: Slots, catalog: Catalog) -> None:
    """The card of the first cloud instance named, as a candidate, when no card was named in words: its count is
    the size's cards × the instances said before it ("2x p5.48xlarge": 16 H100), else not said."""
    if slots.candidates or slots.existing is not None:
        return
    pattern, families = _families()
    cloud = bool(_CLOUD.search(t.s))
    for m in pattern.finditer(t.s):
        fam, size = m.group("fam"), m.group("size")
        sizes = families[fam]
        exact = next((o for o in sizes if size and o.instance.lower() == f"{fam}.{size}"), None)
        if exact is None and not cloud:
            continue  # "p5" or "g6" with no cloud in sight is no instance
        count = None
        if exact is not None and _HOW_MANY.search(t.s[max(0, m.start() - 24):m.start()]):
            # "how many g6e.12xlarge instances …?": the count asked is of instances, each a server of its cards
            slots.server_size = slots.server_size or exact.gpus
        elif exact is not None:
            before = _COUNT_BEFORE.search(t.s[max(0, m.start() - 8):m.start()])
            n = before.group("n") if before else "1"
            count = exact.gpus * (int(n) if n.isdigit() else cn_int(n) or 1)
        gpu = catalog.gpu(sizes[0].gpu)
        slots.candidates.append(GpuMention(gpu=gpu.id, count=count, text=t.quote(m.start(), m.end()),
                                           assumed=f"{m.group(0).upper()} = {gpu.name}"))
        slots.buy_or_rent = slots.buy_or_rent or "rent"
        t.consume(m.start(), m.end())
        return
