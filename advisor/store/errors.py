"""Errors of the store. All are `AdvisorError`s: the CLI prints them on one line and exits with status 2."""

from __future__ import annotations

from knowledge.errors import AdvisorError


class StoreError(AdvisorError):
    """The store cannot be used as configured (bad URL, a schema newer than this program)."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or written now (server down, disk full, locked too long)."""


class Conflict(StoreError):
    """Another turn committed on the conversation first; the caller reruns its turn on the new state."""
