"""Deterministic turns of the web chat in worker processes, so a web server uses more than one core.

Gradio serves every session from one Python process, whose GIL makes it one core's worth of Python: under a burst
of questions the turns themselves (extraction, estimator, recommender, rules, composition: ~4 ms warm, 25–75 ms for
a question not seen before) queue behind Gradio's own work. `TurnPool` runs them in `workers` separate processes
instead. The workers keep no conversations: each call carries the dialog's slot state (`DialogState`, a few KB),
the language and the message, and returns the new state with the turn's steps and answer; the conversation (and its
history) stays in the server's session, so a worker that dies loses nothing. Each worker warms up once (dialog,
catalog, compiled rules) and keeps its own recommender memo.

`RemoteConversation` is the session's view: the `Conversation` interface the web controller uses (`driver`, `lang`,
`state`, `history`, `stream`). When the pool is unavailable (a worker died, a turn took longer than
`TURN_TIMEOUT_S`) the turn is answered in the server process instead, with the same code, and the pool is rebuilt
for the next one. LLM conversations never come here: their turns wait on the network, not the CPU.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from advisor.conversation.session import HISTORY_KEPT, Conversation, new_conversation
from ui.server.metrics import prepare_worker
from ui.server.process import settle_process

if TYPE_CHECKING:
    from advisor.conversation.dialog.machine import DialogState
    from advisor.conversation.turn import Turn

log = logging.getLogger(__name__)

TURN_TIMEOUT_S = 60.0  # a deterministic turn takes milliseconds; past this the server answers it itself
MAX_WORKERS = 4


def default_workers(cpus: int | None = None) -> int:
    """Worker processes for a machine with `cpus` cores: one core stays with the Gradio process, up to
    MAX_WORKERS; none on a single core (a worker would only compete with the server)."""
    cpus = cpus if cpus is not None else (os.cpu_count() or 1)
    return 0 if cpus < 2 else min(MAX_WORKERS, cpus - 1)


def _warm_worker(server_pid: int) -> None:
    """Initializer of each worker: exit with the server `server_pid` (`_exit_with_parent`), then load what every
    turn uses and set the garbage collector as the server process does (`ui.server.process.settle_process`)."""
    _exit_with_parent(server_pid)
    prepare_worker()  # count this worker's turns into the server's /metrics
    settle_process()


def _exit_with_parent(parent: int, poll_s: float = 1.0) -> None:
    """A worker whose server `parent` is gone (killed, or stopped by a signal that skips Python's exit hooks) ends
    within `poll_s` instead of lingering: a daemon thread watches the parent process id. The id comes from the
    server, not from `os.getppid()` here: a worker still starting when its server died has already been
    re-parented, and would otherwise watch its new parent forever."""
    import time

    if os.getppid() != parent:
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="exit-with-server", daemon=True).start()


def _ready() -> int:
    return os.getpid()


def run_turn(state: Any, lang: str, fixed_lang: str | None, text: str) -> tuple[Any, str, list[Any]]:
    """One deterministic turn (in a worker): a conversation rebuilt from the slot state answers `text`; returns
    its new state and language and everything it yielded (steps, then the Turn)."""
    conv = Conversation(driver="deterministic", lang=fixed_lang)
    conv.lang = lang
    conv.state = state
    items = list(conv.stream(text))
    return conv.state, conv.lang, items


class TurnPool:
    """A lazily started pool of `workers` processes (spawned: the server has threads, which fork would copy)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                import multiprocessing

                self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=_warm_worker, initargs=(os.getpid(),))
            return self._executor

    def start(self) -> list[int]:
        """Start every worker now (each imports and warms up, ~1–2 s) rather than during the first turns; returns
        their process ids."""
        pool = self._pool()
        try:
            ran = {f.result(timeout=120) for f in [pool.submit(_ready) for _ in range(self.workers)]}
        except BrokenProcessPool:
            self._replace(pool)
            raise
        # every submit started a process (they start on demand), though one may have answered several
        return sorted(getattr(pool, "_processes", None) or ran)

    def run(self, state: Any, lang: str, fixed_lang: str | None, text: str) -> tuple[Any, str, list[Any]]:
        """`run_turn` in a worker. Raises when the pool cannot answer (the caller then answers itself); a broken
        pool, or one whose worker is stuck past TURN_TIMEOUT_S, is replaced for the next call."""
        pool = self._pool()
        try:
            return pool.submit(run_turn, state, lang, fixed_lang, text).result(timeout=TURN_TIMEOUT_S)
        except (BrokenProcessPool, TimeoutError):
            self._replace(pool)
            raise

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is broken:
                self._executor = None
        for process in list(getattr(broken, "_processes", {}).values()):  # a stuck worker would never exit
            process.terminate()
        broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        with self._lock:
            pool, self._executor = self._executor, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


class RemoteConversation:
    """A deterministic conversation whose turns run in a `TurnPool`; the state and history stay here."""

    def __init__(self, pool: TurnPool, local: Conversation) -> None:
        self.pool = pool
        self.local = local  # the in-process Conversation: state, language, history, and the fallback

    driver = "deterministic"

    @property
    def lang(self) -> str:
        return self.local.lang

    @property
    def state(self) -> DialogState:
        return self.local.state

    @property
    def history(self) -> list[tuple[str, Turn]]:
        return self.local.history

    def respond(self, text: str) -> Any:
        turn = None
        for turn in self.stream(text):  # noqa: B007 (the last update is the turn)
            pass
        return turn

    def stream(self, text: str) -> Iterator[Any]:
        """Yield the turn's steps, then its Turn, as `Conversation.stream` does (and never raise for user input)."""
        conv = self.local
        text = "" if text is None else str(text)
        try:
            state, lang, items = self.pool.run(conv.state, conv.lang, conv.fixed_lang, text)
        except Exception as exc:  # noqa: BLE001 - the user still gets an answer, from this process
            log.warning("turn pool unavailable (%s: %s); answering in the server process", type(exc).__name__, exc)
            yield from conv.stream(text)
            return
        conv.state, conv.lang = state, lang
        conv.history.append((text, items[-1]))

        del conv.history[:-HISTORY_KEPT]  # as Conversation.stream does: bounded memory per session
        yield from items


def remote_factory(pool: TurnPool) -> Any:
    """A conversation factory for the web controller: deterministic conversations run in `pool`, LLM ones (a model
    is configured) stay in process."""
    def make() -> Any:
        conv = new_conversation(lang=None)
        return RemoteConversation(pool, conv) if conv.driver == "deterministic" else conv

    return make
