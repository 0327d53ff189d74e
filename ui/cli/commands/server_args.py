"""The server commands' shared options (`api`, `mcp`, `web`): the module's usage text as the help's epilog, and
`--host`/`--port`."""

from __future__ import annotations

import argparse

DEFAULT_HOST = "127.0.0.1"


def usage_epilog(parser: argparse.ArgumentParser, doc: str) -> None:
    """The command's module docstring after its first paragraph, as written, below the options."""
    parser.epilog = doc.split("\n\n", 1)[1]
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def add_host_port(parser: argparse.ArgumentParser, port: int, *, when: str = "", unset: bool = False) -> None:
    """`--host` (default 127.0.0.1) and `--port` (default `port`); `when` says when they apply (" with --http");
    `unset` leaves both None, for a command whose environment may give them (`web`)."""
    parser.add_argument("--host", default=None if unset else DEFAULT_HOST,
                        help=f"address to bind{when} (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=None if unset else port, help=f"port{when} (default {port})")
