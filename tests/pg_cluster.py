"""A throwaway PostgreSQL server for the store tests: `initdb` + `pg_ctl` in a temporary directory, listening only
on a Unix socket there (no TCP port, nothing shared with other test runs). Debian's `postgresql` package provides
the binaries (`.ci/run` and `make test` install it); when they are missing the tests that need them skip.

PostgreSQL refuses to run as root; when the tests run as root the cluster is created and run as the `postgres`
system user (Debian's package creates it), through `runuser`."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.web_server import free_port


def pg_bin() -> Path | None:
    """The directory holding initdb and pg_ctl (PATH first, then Debian's /usr/lib/postgresql/<version>/bin)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(candidates[-1]).parent if candidates else None


def missing_reason() -> str | None:
    """Why no cluster can be started here, or None when one can."""
    if pg_bin() is None:
        return "PostgreSQL binaries (initdb, pg_ctl) not found: apt-get install postgresql (.ci/run does)"
    if os.geteuid() == 0 and (shutil.which("runuser") is None or _uid("postgres") is None):
        return "running as root needs the 'postgres' system user and runuser to start PostgreSQL"
    return None


def _uid(name: str) -> int | None:
    import pwd

    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


class PgCluster:
    """`with PgCluster() as url:` — a running server; `url` is a libpq URL for database `advisor`."""

    def __init__(self, *, durable: bool = False) -> None:
        self.durable = durable  # fsync on (as a real server runs); tests turn it off: the cluster is thrown away
        self.bin = pg_bin()
        self.port = free_port()  # names the socket file only (listen_addresses is empty)
        self.root = Path(tempfile.mkdtemp(prefix="gpu-advisor-pg-"))
        self.data = self.root / "data"
        self.url = f"postgresql://postgres@/advisor?host={self.root}&port={self.port}"

    def _run(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        args = list(cmd)
        if os.geteuid() == 0:
            args = ["runuser", "-u", "postgres", "--", *args]
        return subprocess.run(args, capture_output=True, text=True, check=check, timeout=120)

    def __enter__(self) -> str:
        if os.geteuid() == 0:
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, user="postgres")
        assert self.bin is not None
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "--no-sync", "-E", "UTF8", "--locale=C")
        self.start()
        self._run(str(self.bin / "createdb"), "-h", str(self.root), "-p", str(self.port), "-U", "postgres", "advisor")
        return self.url

    def new_database(self) -> str:
        """A fresh, empty database on this server (one per test keeps tests independent); its URL."""
        import secrets

        import psycopg

        name = "t_" + secrets.token_hex(6)
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url.replace("/advisor?", f"/{name}?")

    def start(self) -> None:
        opts = (f"-c listen_addresses='' -c unix_socket_directories='{self.root}' -p {self.port}"
                + ("" if self.durable else " -c fsync=off"))
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def __exit__(self, *exc: object) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def wait_for(predicate, timeout_s: float = 10.0, interval_s: float = 0.1) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval_s)
    return predicate()
