"""Hardware people name by the product they own rather than by a catalog card (`knowledge/data/devices/devices.yaml`):

* laptop GPUs — "my laptop with an RTX 4060", "笔记本 4070": a different chip with less memory than the desktop card
  of the same name (RTX 4060 Laptop GPU 8 GB, 4090 Laptop GPU 16 GB; NVIDIA's standard memory configuration). Only
  the memory is known: laptop clocks and power (35–150 W) vary by machine, so no speed is claimed.
* Apple Silicon Macs of any memory size — "MacBook Pro 16G", "M2 Pro 32GB": the unified memory is shared with
  macOS, and by default the GPU may use only Metal's `recommendedMaxWorkingSetSize` of it,

      GPU share = pool × 2/3 when pool ≤ 36 GB, else pool × 3/4   (16 GB → 10.7 GB, 64 GB → 48 GB),

  which `sudo sysctl iogpu.wired_limit_mb=<MiB>` raises until the next reboot. Apple's "16 GB" is 16 GiB.

Every figure cites the sources registry (checked on load).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated

from knowledge.catalog import Catalog, check_cites, data_dir, load_catalog, read_yaml, validate_file
from knowledge.schemas import GpuSpec
from knowledge.structs import Frozen, Meta, replace

GiB = 2**30


class LaptopGpu(Frozen):
    """A laptop GPU: its name, the desktop model number it shares ("4060", "5070 ti") and its memory."""

    id: str
    name: str
    model: str
    memory_gb: Annotated[float, Meta(gt=0, le=256)]  # sold as "N GB": N GiB of GDDR
    memory: str  # "8 GB GDDR6, 128-bit"
    cite: tuple[str, ...]

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_gb * GiB)


class AppleShare(Frozen):
    """The GPU's default share of an Apple Silicon Mac's unified memory (Metal's recommendedMaxWorkingSetSize)."""

    small_pool_gb: Annotated[float, Meta(gt=0)]
    small_share: Annotated[float, Meta(gt=0, le=1)]
    large_share: Annotated[float, Meta(gt=0, le=1)]
    cite: tuple[str, ...]

    def share(self, pool_gb: float) -> float:
        """The fraction of a `pool_gb` pool the GPU may use by default."""
        return self.small_share if pool_gb <= self.small_pool_gb else self.large_share

    def gpu_bytes(self, pool_gb: float) -> int:
        """Bytes the GPU may use by default of a Mac sold with `pool_gb` GB (= GiB) of unified memory."""
        return int(pool_gb * GiB * self.share(pool_gb))


class Devices(Frozen):
    laptops: tuple[LaptopGpu, ...]
    apple: AppleShare


@lru_cache(maxsize=4)
def load_devices(path: str | None = None) -> Devices:
    """The devices table of the data directory, its citations checked against the sources registry."""
    root = data_dir(path)
    file = Path(root) / "devices" / "devices.yaml"
    devices = validate_file(Devices, read_yaml(file, Path(root)), "devices/devices.yaml")
    sources = load_catalog(path).sources
    for lap in devices.laptops:
        check_cites({"memory_gb": list(lap.cite)}, sources, f"devices/devices.yaml: {lap.id}")
    check_cites({"apple": list(devices.apple.cite)}, sources, "devices/devices.yaml: apple")
    return devices


def laptop_spec(lap: LaptopGpu, catalog: Catalog) -> GpuSpec:
    """A GpuSpec standing for a laptop GPU where only memory is read (which models fit it): the desktop GeForce card
    of the same generation with the laptop's memory and name. Its speed figures are the desktop card's, so nothing
    that reads them (throughput) may be given this spec."""
    base = next((g for g in catalog.gpus if g.segment == "consumer" and lap.model.split()[0] in g.name), None)
    base = base or next(g for g in catalog.gpus if g.segment == "consumer")
    return replace(base, id=lap.id, name=lap.name, aliases=(), memory_bytes=lap.memory_bytes)


def mac_spec(pool_gb: float, name: str, catalog: Catalog) -> GpuSpec:
    """A GpuSpec standing for a Mac the catalog does not list, for memory only (as `laptop_spec`): a catalog Apple
    machine with this pool and the GPU's default share of it (`AppleShare.gpu_bytes`)."""
    apple = load_devices().apple
    base = next(g for g in catalog.gpus if g.stack == "metal" and g.unified_memory is not None)
    assert base.unified_memory is not None
    share = apple.gpu_bytes(pool_gb)
    unified = replace(base.unified_memory, total_bytes=int(pool_gb * GiB), gpu_bytes=share, max_gpu_bytes=None,
                      gpu_rule=f"{apple.share(pool_gb):.0%} of the {pool_gb:g} GB pool (macOS default)")
    return replace(base, id="apple-silicon", name=name, aliases=(), memory_bytes=share, unified_memory=unified)


def laptop_gpu(model: str) -> LaptopGpu | None:
    """The laptop GPU with the desktop model number `model` ("4060", "5070 ti"); None when there is none."""
    key = " ".join(model.lower().split())
    return next((lap for lap in load_devices().laptops if lap.model == key), None)


__all__ = ["AppleShare", "Devices", "LaptopGpu", "laptop_gpu", "laptop_spec", "load_devices", "mac_spec"]
