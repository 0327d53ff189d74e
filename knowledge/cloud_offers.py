"""Which catalog cards each cloud rents as instances: `knowledge/data/cloud_offers.yaml`, typed and validated.

A cloud named as the host ("host it on AWS") is sized over the cards it rents. The GPU catalog's dated hourly quotes
say that for the clouds quoted there; this table adds the instance families of a cloud whose quotes the catalog does
not hold for every card (AWS rents H100, H200, A100, L4, L40S and T4, and the catalog quotes only its L40S). It
holds no prices. The tests check that every card and source id resolves.
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
    """One instance family of a cloud: its catalog card and how many of them one instance has."""

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

    def cards_of(self, provider: str) -> tuple[str, ...]:
        """The catalog cards `provider` rents, in file order without repeats."""
        return tuple(dict.fromkeys(o.gpu for o in self.of(provider)))


@lru_cache(maxsize=1)
def load_cloud_offers() -> CloudOffers:
    """The validated table of the package's `knowledge/data/cloud_offers.yaml`, cached per process."""
    return validate_file(CloudOffers, read_yaml(CLOUD_OFFERS_FILE), CLOUD_OFFERS_FILE.name)
