"""Exact weight bytes from a checkpoint's own files, without reading the weights.

* ``model.safetensors.index.json``: ``metadata.total_size`` is the byte size of all tensors of the sharded
  checkpoint (written by ``huggingface_hub``/``transformers`` when saving shards); ``weight_map`` names each tensor.
* A GGUF file: the header's tensor infos (name, shape, ggml type) read with the ``gguf`` package's ``GGUFReader``
  (a memory map: only the header pages are touched); bytes per tensor = elements / block size × block bytes
  (``gguf.constants.GGML_QUANT_SIZES``, the same table as llama.cpp's ``ggml_type_size``).

Every refusal is an :class:`~knowledge.errors.InputError` naming the file and what is accepted.
"""

from __future__ import annotations

from pathlib import Path

from knowledge.errors import InputError
from knowledge.hf_config import parse_config_json
from knowledge.structs import Value

MAX_INDEX_BYTES = 64 * 2**20  # DeepSeek-V3's index (~91k tensors) is about 9 MB
ACCEPTED = "a model.safetensors.index.json or a .gguf file"


class WeightFile(Value):
    """What a checkpoint file says about its weights."""

    path: str
    kind: str  # "safetensors-index" or "gguf"
    total_bytes: int
    tensors: int
    types: dict[str, int]  # GGUF: bytes per ggml type (empty for a safetensors index)
    params: int | None = None  # elements of all tensors (GGUF); None where the file does not say
    architecture: str | None = None  # GGUF general.architecture
    name: str | None = None  # GGUF general.name


def read_weight_file(path: str | Path) -> WeightFile:
    """A safetensors index (by its JSON content) or a GGUF file (by its magic bytes)."""
    p = Path(path)
    if p.is_dir():
        p = p / "model.safetensors.index.json"
    try:
        with p.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise InputError(f"cannot read weights file '{p}': {exc.strerror}", field="weights_file",
                         accepted=ACCEPTED) from None
    if magic == b"GGUF":
        return read_gguf(p)
    return read_safetensors_index(p)


def read_safetensors_index(path: str | Path) -> WeightFile:
    """``metadata.total_size`` of a ``model.safetensors.index.json`` (bytes of every tensor of every shard)."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_INDEX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read weights file '{p}': {exc.strerror}", field="weights_file",
                         accepted=ACCEPTED) from None
    if len(raw) > MAX_INDEX_BYTES:
        raise InputError(f"'{p}' is larger than {MAX_INDEX_BYTES // 2**20} MiB", field="weights_file",
                         accepted=ACCEPTED)
    try:
        data = parse_config_json(raw.decode("utf-8"), str(p))
    except UnicodeDecodeError:
        raise InputError(f"'{p}' is neither GGUF nor UTF-8 JSON", field="weights_file", accepted=ACCEPTED) from None
    except InputError as exc:
        raise InputError(f"{exc} — not a GGUF file either", field="weights_file", accepted=ACCEPTED) from None
    meta = data.get("metadata") if isinstance(data, dict) else None
    total = meta.get("total_size") if isinstance(meta, dict) else None
    if isinstance(total, float) and total.is_integer():
        total = int(total)
    if not isinstance(total, int) or isinstance(total, bool) or total <= 0:
        raise InputError(f"'{p}': no positive integer 'metadata.total_size' (a model.safetensors.index.json has one)",
                         field="weights_file", accepted=ACCEPTED)
    weight_map = data.get("weight_map")
    return WeightFile(path=str(p), kind="safetensors-index", total_bytes=total, types={},
                      tensors=len(weight_map) if isinstance(weight_map, dict) else 0)


def read_gguf(path: str | Path) -> WeightFile:
    """Bytes, elements and types of every tensor listed in a GGUF header (the data itself is not read)."""
    try:
        from gguf import GGUFReader
        from gguf.constants import GGML_QUANT_SIZES
    except ImportError:  # pragma: no cover - a declared dependency
        raise InputError("reading GGUF needs the 'gguf' package (pip install gguf)", field="weights_file",
                         accepted=ACCEPTED) from None
    p = Path(path)
    try:
        reader = GGUFReader(str(p), "r")
    except (OSError, ValueError, KeyError, IndexError) as exc:
        raise InputError(f"'{p}' is not a readable GGUF file ({exc})", field="weights_file",
                         accepted=ACCEPTED) from None
    total = params = 0
    types: dict[str, int] = {}
    for t in reader.tensors:
        elements = int(t.n_elements)
        block, size = GGML_QUANT_SIZES[t.tensor_type]
        nbytes = elements // block * size
        total += nbytes
        params += elements
        types[t.tensor_type.name] = types.get(t.tensor_type.name, 0) + nbytes

    def _text(key: str) -> str | None:
        field = reader.get_field(key)
        if field is None or not field.data:
            return None
        return bytes(field.parts[field.data[0]]).decode("utf-8", "replace")

    return WeightFile(path=str(p), kind="gguf", total_bytes=total, tensors=len(reader.tensors), params=params,
                      types=types, architecture=_text("general.architecture"), name=_text("general.name"))
