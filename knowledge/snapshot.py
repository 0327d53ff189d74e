"""A JSON snapshot cache for data that is slow to parse and validate (the catalog's ~80 YAML files).

A snapshot lives outside the repository: in $GPU_ADVISOR_CACHE_DIR, else $XDG_CACHE_HOME/gpu-advisor, else
~/.cache/gpu-advisor; one file per kind and data directory, ``<kind>-<hash(directory)[:16]>.json``. It records the
key it was written for, a hash of every input file's path, size and change times (:func:`fingerprint`), so
editing, adding or removing a file makes it stale. A stale, unreadable or corrupted snapshot reads as None and an
unwritable cache directory is skipped: the caller then does the full load, silently. Each file also stores the
hash of its payload's bytes, and a payload that does not match is ignored too: what :func:`read` returns is
exactly what :func:`write` was given, which the callers (the catalog, the engine, calibration and economics tables)
wrote after validating the inputs of that key, so they rebuild their objects without validating again
(:mod:`knowledge.trusted`) and a snapshot makes loading faster but never more lenient. :func:`cached` wraps the
pattern for one table. ``GPU_ADVISOR_NO_CACHE=1`` turns the cache off.

The hash is BLAKE2b with a 32-byte digest (64 hex digits), from the `_blake2` module that `hashlib.blake2b` is:
importing `hashlib` loads OpenSSL's bindings (≈ 2.4 ms of every CLI start, byte-code cached) for SHA-256 alone.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import msgspec

try:  # start-up: hashlib's own BLAKE2b without importing hashlib (see the module docstring)
    from _blake2 import blake2b
except ImportError:  # an interpreter without the built-in module
    from hashlib import blake2b

CACHE_ENV = "GPU_ADVISOR_CACHE_DIR"
NO_CACHE_ENV = "GPU_ADVISOR_NO_CACHE"
FORMAT = 3  # bump when the layout of snapshot files changes
_PAYLOAD = b'"payload":'  # the last member of a snapshot file; the digest covers the bytes after it

T = TypeVar("T")


def cache_dir() -> Path | None:
    """Where snapshots go, or None when the cache is turned off (GPU_ADVISOR_NO_CACHE set to anything but 0)."""
    if os.environ.get(NO_CACHE_ENV, "0").strip().lower() not in ("", "0", "false", "no"):
        return None
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "gpu-advisor"


def fingerprint(files: Iterable[str | os.PathLike[str]]) -> str:
    """A hash over each file's path, size, inode and modification and status-change times in nanoseconds, in the
    order given, without reading the ~180 data files on every start (4 ms → under 1 ms). Any write changes the
    status-change time, which, unlike the modification time, a program cannot set back (`os.utime`), so an edit
    that keeps the size and restores the mtime is still seen. Raises OSError for a missing file."""
    parts = [f"gpu-advisor snapshot {FORMAT}".encode()]
    for path in files:
        st = os.stat(path)
        parts.append(os.fspath(path).encode("utf-8", "surrogateescape") + b"\0")
        parts.append(f"{st.st_size}:{st.st_ino}:{st.st_mtime_ns}:{st.st_ctime_ns}\0".encode())
    return _hash(b"".join(parts))


def _hash(data: bytes) -> str:
    """BLAKE2b of `data` with a 32-byte digest, as 64 hex digits."""
    return blake2b(data, digest_size=32).hexdigest()


def _file(directory: Path, kind: str, root: Path) -> Path:
    tag = _hash(str(root).encode("utf-8", "surrogateescape"))[:16]
    return directory / f"{kind}-{tag}.json"


def read(kind: str, root: Path, key: str) -> Any | None:
    """The payload stored for (`kind`, `root`) under `key`; None when off, missing, stale, unreadable or when the
    payload's bytes do not match the digest stored with them (a snapshot edited or cut short after writing)."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        with open(_file(directory, kind, root), "rb") as f:
            raw = f.read()
        stored = msgspec.json.decode(raw)  # the same values as json.loads, in a third of the time (675 KB catalog)
    except (OSError, ValueError, msgspec.DecodeError):  # missing, unreadable, not JSON
        return None
    if not isinstance(stored, dict) or stored.get("format") != FORMAT or stored.get("key") != key:
        return None
    start = raw.find(_PAYLOAD)  # the payload is the last member (see write): its bytes run to the closing brace
    if start < 0 or _hash(raw[start + len(_PAYLOAD):-1]) != stored.get("digest"):
        return None
    return stored.get("payload")


def write(kind: str, root: Path, key: str, payload: Any) -> None:
    """Store `payload` (JSON-serialisable) for (`kind`, `root`) under `key`, atomically; errors are ignored."""
    directory = cache_dir()
    if directory is None:
        return
    tmp = None
    try:
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))  # dumps: C encoder; dump is Python
        head = json.dumps({"format": FORMAT, "key": key, "root": str(root),
                           "digest": _hash(body.encode("utf-8"))},
                          ensure_ascii=False, separators=(",", ":"))
        text = f"{head[:-1]},{_PAYLOAD.decode()}{body}}}"
        directory.mkdir(parents=True, exist_ok=True)
        tmp = directory / f".{kind}-{os.getpid()}-{threading.get_ident()}.tmp"  # os.replace: readers never see half
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, _file(directory, kind, root))
        tmp = None
    except (OSError, TypeError, ValueError):  # read-only or full disk, unserialisable payload: stay uncached
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def cached(kind: str, files: list[Path], build: Callable[[], T], dump: Callable[[T], Any],
           restore: Callable[[Any], T]) -> T:
    """`build()` once per content of `files`: later starts `restore` what `dump` stored in the snapshot.

    The key is :func:`fingerprint` of `files` (list the data files and the modules that validate them); the
    snapshot is named after the first. A snapshot that is stale, unreadable or that `restore` rejects (any
    exception) is ignored and `build()` runs, its result stored again; errors of `build()` propagate."""
    root = files[0]
    key = None
    if cache_dir() is not None:
        try:
            key = fingerprint(files)
        except OSError:  # a missing or unreadable file: build() reports it
            key = None
    if key is not None:
        data = read(kind, root, key)
        if data is not None:
            try:
                return restore(data)
            except Exception:  # noqa: BLE001 - a snapshot that does not load is ignored: full build below
                pass
    value = build()
    if key is not None:
        write(kind, root, key, dump(value))
    return value
