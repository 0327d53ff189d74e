"""The Slack bot's transport-independent core (`SlackBot`): a (thread key, text) answered by the advisor on a
bounded worker pool, rendered as Block Kit (`ui.slack.render`) and delivered through a WebClient, with simpler
blocks, then plain text, when Slack refuses a message; slash commands answered through their `response_url`."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from advisor.conversation.session import Conversation, new_conversation
from advisor.conversation.turn import Turn
from knowledge.catalog import load_catalog
from knowledge.errors import AdvisorError
from knowledge.structs import replace
from ui.slack import render
from ui.slack.details import details_reply
from ui.slack.replies import HELP_WORDS, RESET, Reply, help_reply, message, text_reply
from ui.slack.settings import SlackSettings
from ui.slack.threads import ConversationStore, ThreadKey, ThreadState, TTLCache

if TYPE_CHECKING:  # slack_sdk is imported lazily, inside the functions that need it
    from slack_sdk import WebClient

log = logging.getLogger("gpu_advisor.slack")


def _default_factory(lang: str | None = None) -> Any:
    return new_conversation(lang=lang)


def _default_loader(data: dict[str, Any]) -> Any:
    """`Conversation.from_dict` with the same LLM settings `new_conversation` would use (read per turn)."""
    try:
        # optional: the answer degrades when advisor.conversation.llm.settings fails to import
        from advisor.conversation.llm.settings import load_settings
    except ImportError:
        return Conversation.from_dict(data)
    return Conversation.from_dict(data, settings=load_settings())


class SlackBot:
    """Transport-independent core: turns a (thread key, text) into a Reply and delivers it through a WebClient."""

    def __init__(self, settings: SlackSettings, *,
                 conversation_factory: Callable[..., Any] | None = None,
                 conversation_loader: Callable[[dict[str, Any]], Any] | None = None,
                 store: ConversationStore | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.new_conversation = conversation_factory or _default_factory
        self.load_conversation = conversation_loader or _default_loader
        self.store = store or ConversationStore(settings.store_size, settings.store_ttl_s, clock)
        self.seen_events = TTLCache(50_000, settings.dedupe_ttl_s, clock)
        self.seen_messages = TTLCache(50_000, settings.dedupe_ttl_s, clock)
        self._pool = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="slack-advisor")
        self._pending = 0
        self._pending_lock = threading.Lock()
        self._idle = threading.Condition(self._pending_lock)

    # ---------------------------------------------------------------- answering
    def precheck(self, text: str) -> Reply | None:
        """A reply that needs no advisor (empty, help, too long), or None when the advisor should answer."""
        lang = render.detect_lang(text)
        if not text:
            return help_reply(self.settings.command, None, lead="empty")
        if len(text) > self.settings.max_input_chars:
            return text_reply(message("too_long", lang, n=len(text), limit=self.settings.max_input_chars), lang)
        low = text.strip().lower().rstrip("!.。！")
        if low in HELP_WORDS:
            return help_reply(self.settings.command, lang)
        return None

    def answer(self, key: ThreadKey, text: str) -> Reply:
        """One turn in the thread `key`. Never raises: errors become replies and the conversation is kept."""
        early = self.precheck(text)
        if early is not None:
            return early
        lang = render.detect_lang(text)
        with self.store.thread(key) as thread:
            try:
                conversation = self._conversation(thread)
                turn = conversation.respond(text)
                thread.state = _compact(conversation.to_dict())
                thread.texts = [] if RESET.match(text) else (thread.texts + [text])[-20:]
                thread.turn, thread.question = turn, text  # recorded by a stored ConversationStore
            except AdvisorError as exc:  # a user error: say what was wrong, keep the conversation as it was
                return text_reply(exc.localized(lang), lang)
            except Exception:  # a bug: log it, tell the user briefly, keep the conversation
                log.exception("advisor failed on a Slack message (thread %s)", key[2])
                return text_reply(message("error", lang), lang)
            query = " ".join(thread.texts)
        notes = [message(n, lang) for n, on in (("corrupt", thread.corrupt), ("not_saved", not thread.saved)) if on]
        return self.render(turn, query, conversation_id=thread.conversation_id, notes=notes)

    def render(self, turn: Any, query: str = "", *, conversation_id: str | None = None,
               notes: list[str] | None = None) -> Reply:
        turn = _with_gpu_names(turn)
        style = self.settings.table_style
        web_url = self.settings.web_url
        text, blocks = render.render_turn(turn, style=style, web_url=web_url, query=query,
                                          conversation_id=conversation_id)
        alt = None
        if style == "table":
            _, alt = render.render_turn(turn, style="fields", web_url=web_url, query=query,
                                        conversation_id=conversation_id)
        for note in notes or []:  # the store's notes (state unreadable, answer not saved), after the answer
            for shown in (blocks, alt):
                if shown is not None and len(shown) < render.MAX_BLOCKS:
                    shown.append(render.context(render.escape(note)))
        lang = "zh" if getattr(turn, "lang", "en") == "zh" else "en"

        return Reply(text=text, blocks=blocks, alt_blocks=alt, lang=lang, turn=turn, details=details_reply(turn))

    def _conversation(self, thread: ThreadState) -> Any:
        if thread.state is not None:
            try:
                return self.load_conversation(thread.state)
            except AdvisorError as exc:
                if exc.field not in ("state", "version"):
                    raise  # e.g. misconfigured LLM settings: the user is told; the stored state is kept
                log.warning("could not restore a conversation (%s); starting a new one", exc)
            except Exception:
                log.warning("could not restore a conversation; starting a new one", exc_info=True)
        return self.new_conversation(lang=None)

    # ---------------------------------------------------------------- work queue
    def submit(self, job: Callable[[], None]) -> bool:
        """Run `job` on the bot's pool; False (and nothing run) when `max_pending` jobs are already waiting."""
        with self._pending_lock:
            if self._pending >= self.settings.max_pending:
                return False
            self._pending += 1

        def run() -> None:
            try:
                job()
            except Exception:
                log.exception("Slack reply job failed")
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

        self._pool.submit(run)
        return True

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until no job is pending (tests, shutdown). True when idle."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ---------------------------------------------------------------- delivery
    def reply_in_channel(self, client: WebClient, channel: str, thread_ts: str | None, key: ThreadKey,
                         text: str) -> None:
        """Answer `text` in `channel` (in the thread `thread_ts` when given); placeholder first if it takes long."""
        early = self.precheck(text)
        if early is not None:
            self.post(client, channel, thread_ts, early)
            return
        lang = render.detect_lang(text)
        lock = threading.Lock()
        placeholder: dict[str, Any] = {"ts": None, "done": False}

        def post_placeholder() -> None:
            with lock:
                if placeholder["done"]:
                    return
                try:
                    resp = client.chat_postMessage(channel=channel, thread_ts=thread_ts,
                                                   text=message("working", lang))
                    placeholder["ts"] = resp.get("ts")
                except Exception as exc:  # noqa: BLE001 (the answer still comes; only the placeholder is lost)
                    log.warning("placeholder not posted: %s", _slack_error(exc))

        timer = threading.Timer(self.settings.placeholder_after_s, post_placeholder)
        timer.daemon = True
        timer.start()
        try:
            reply = self.answer(key, text)
        finally:
            timer.cancel()
            with lock:
                placeholder["done"] = True
        self.post(client, channel, thread_ts, reply, update_ts=placeholder["ts"])

    def post(self, client: WebClient, channel: str, thread_ts: str | None, reply: Reply,
             update_ts: str | None = None) -> str | None:
        """Post (or edit `update_ts` into) the reply, then its details sections as a reply in its thread."""
        ts = self._post_one(client, channel, thread_ts, reply, update_ts)
        if ts and reply.details:
            text, blocks = reply.details
            self._post_one(client, channel, thread_ts or ts, Reply(text=text, blocks=blocks, lang=reply.lang))
        return ts

    def _post_one(self, client: WebClient, channel: str, thread_ts: str | None, reply: Reply,
                  update_ts: str | None = None) -> str | None:
        """Post (or edit `update_ts` into) one message; if Slack refuses the blocks, retry simpler ones, then text."""
        from slack_sdk.errors import SlackApiError  # optional dependency: slack_sdk only with the slack extra

        attempts = [reply.blocks] + ([reply.alt_blocks] if reply.alt_blocks else []) + [None]
        for blocks in attempts:
            kwargs: dict[str, Any] = {"channel": channel, "text": reply.text, "unfurl_links": False,
                                      "unfurl_media": False}
            if blocks is not None:
                kwargs["blocks"] = blocks
            try:
                if update_ts:
                    kwargs.pop("unfurl_links"), kwargs.pop("unfurl_media")
                    resp = client.chat_update(ts=update_ts, **kwargs)
                else:
                    resp = client.chat_postMessage(thread_ts=thread_ts, **kwargs)
                return resp.get("ts")
            except SlackApiError as exc:
                error = _slack_error(exc)
                if error not in NOT_ABOUT_CONTENT and blocks is not None:
                    log.warning("Slack refused the message (%s); retrying simpler", error)
                    continue
                log.error("could not post the answer: %s", error)
                return None
            except Exception as exc:  # noqa: BLE001 (network trouble after the retry handlers gave up)
                log.error("could not post the answer: %s", _slack_error(exc))
                return None
        return None

    def respond_url(self, response_url: str, reply: Reply, response_type: str) -> bool:
        """Send a reply to a slash command's `response_url`, retrying 429s after Retry-After; simpler blocks on 400."""
        if not self.settings.allowed_response_host(response_url):
            log.error("refusing to post to a response_url outside Slack's hook hosts")
            return False
        # optional dependency: slack_sdk only with the slack extra
        from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
        from slack_sdk.webhook import WebhookClient  # optional dependency: slack_sdk only with the slack extra

        hook = WebhookClient(url=response_url, timeout=15,
                             retry_handlers=[ConnectionErrorRetryHandler(), RateLimitErrorRetryHandler(max_retry_count=2)])
        attempts = [reply.blocks] + ([reply.alt_blocks] if reply.alt_blocks else []) + [None]
        for blocks in attempts:
            body: dict[str, Any] = {"text": reply.text, "response_type": response_type, "replace_original": False}
            if blocks is not None:
                body["blocks"] = blocks
            try:
                resp = hook.send_dict(body)
            except Exception as exc:  # noqa: BLE001 (logged: the response URL is Slack's, its errors vary)
                log.error("could not answer the slash command: %s", _slack_error(exc))
                return False
            if resp.status_code == 200:
                return True
            if resp.status_code == 400 and blocks is not None:
                continue
            log.error("slash command answer refused: HTTP %s %s", resp.status_code, (resp.body or "")[:100])
            return False
        return False


def _with_gpu_names(turn: Any) -> Any:
    """The turn with each option's catalog GPU name added (`gpu_name`), for the table; unchanged on any problem."""
    options = getattr(turn, "options", None)
    if not options or not isinstance(turn, Turn):
        return turn
    try:
        catalog = load_catalog()
        named = []
        for opt in options:
            gpu = catalog.find_gpu(opt["gpu"]) if isinstance(opt.get("gpu"), str) and not opt.get("gpu_name") else None
            named.append({**opt, "gpu_name": gpu.name} if gpu is not None else opt)
        return replace(turn, options=named)
    except Exception:  # a name is a nicety; the id is shown instead
        log.debug("GPU names not added", exc_info=True)
        return turn


# Web API errors that simpler blocks would not cure; any other error (invalid_blocks, invalid_attachments,
# internal_error, msg_too_long …) is retried with the fields layout, then as plain text.
NOT_ABOUT_CONTENT = frozenset({
    "channel_not_found", "not_in_channel", "is_archived", "invalid_auth", "not_authed", "account_inactive",
    "token_revoked", "token_expired", "ratelimited", "no_permission", "missing_scope", "restricted_action",
    "message_not_found", "cant_update_message", "team_access_not_granted", "ekm_access_denied",
})

HISTORY_KEPT = 10  # turns of history kept per thread; the slots hold what earlier turns established


def _compact(state: dict[str, Any]) -> dict[str, Any]:
    """Bound the memory one thread can hold: keep only the last HISTORY_KEPT turns of `history`."""
    history = state.get("history") if isinstance(state, dict) else None
    if isinstance(history, list) and len(history) > HISTORY_KEPT:
        state = {**state, "history": history[-HISTORY_KEPT:]}
    return state


def _slack_error(exc: Exception) -> str:
    response = getattr(exc, "response", None)
    if response is not None:
        try:
            return str(response.get("error") or response.status_code)
        except (AttributeError, TypeError, KeyError):  # a response without Slack's shape: name the exception
            pass
    return type(exc).__name__

