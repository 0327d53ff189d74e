"""Which catalog cards each cloud rents as instances: `knowledge/data/cloud_offers.yaml`, typed and validated.

A cloud named as the host ("host it on AWS") is sized over the cards it rents. The GPU catalog's dated hourly quotes
say that for the clouds quoted there; this table adds the instance sizes, so that an answer names the instance that
holds the cards (AWS rents H200 eight at a time, L40S one, four or eight). It holds no prices: those are the catalog's
per-GPU quotes. The tests check that every card and source id resolves.
"""

# No `from __future__ import annotations`: the field annotations are evaluated when the class is made.

import datetime as dt
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from knowledge.catalog import read_yaml, validate_file
from knowledge.schemas import Slug
from knowledge.structs import Frozen, Meta, PositiveInt

CLOUD_OFFERS_FILE = Path(__file__).resolve().parent / "data" / "cloud_offers.yaml"


class CloudOffer(Frozen):
    """One instance size of a cloud: its catalog card and how many of them one instance has."""

    provider: str  # as advisor.conversation.reader.rental.read_provider names it
    instance: str
    gpu: Slug  # catalog id
    gpus: PositiveInt
    source: str  # id of data/sources/gpus.yaml
    as_of: dt.date  # the date the listing was read


class CloudOffers(Frozen):
    """The rows of cloud_offers.yaml, in file order."""

    offers: Annotated[tuple[CloudOffer, ...], Meta(min_length=1)]

    def of(self, provider: str) -> tuple[CloudOffer, ...]:
        """The instance families `provider` rents (its canonical name, any case), in file order."""
        return tuple(o for o in self.offers if o.provider.lower() == provider.lower())

    def instances_for(self, provider: str, gpu: str, count: int, group: int = 1) -> tuple[CloudOffer, int] | None:
        """The instance size of `provider` and how many of it rent `count` cards of `gpu` whose copies of the model
        take `group` cards each (TP × PP; 1 for independent single-card copies); None where it rents none.

        A copy that fits one instance stays in it: n = ceil(copies / floor(k / group)) instances of k cards. A copy
        larger than every size spans the largest: n = ceil(count / k_max). Of the sizes that hold it, the fewest
        cards rented (n·k), then the smaller instances (a cloud's per-GPU price rises with the size's CPUs and host
        memory: AWS g6e.xlarge $1.86 a GPU-hour, g6e.48xlarge $3.77); "2 L40S in TP 2" is one 4-card g6e.12xlarge,
        "2 L40S as two copies" two 1-card g6e.xlarge."""
        sizes = [o for o in self.of(provider) if o.gpu == gpu]
        if not sizes or count < 1:
            return None
        group = max(1, min(group, count))
        copies = -(-count // group)
        fitting = [(-(-copies // (o.gpus // group)), o) for o in sizes if o.gpus >= group]
        if not fitting:
            big = max(sizes, key=lambda o: o.gpus)
            return big, -(-count // big.gpus)
        n, offer = min(fitting, key=lambda p: (p[0] * p[1].gpus, p[1].gpus))
        return offer, n

    def cards_of(self, provider: str) -> tuple[str, ...]:
        """The catalog cards `provider` rents, in file order without repeats."""
        return tuple(dict.fromkeys(o.gpu for o in self.of(provider)))


@lru_cache(maxsize=1)
def load_cloud_offers() -> CloudOffers:
    """The validated table of the package's `knowledge/data/cloud_offers.yaml`, cached per process."""
    return validate_file(CloudOffers, read_yaml(CLOUD_OFFERS_FILE), CLOUD_OFFERS_FILE.name)
