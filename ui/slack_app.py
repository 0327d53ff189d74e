"""The Slack bot: mentions (answered in the thread), direct messages and the `/gpu` slash command.

`build_slack_app(settings)` returns a slack-bolt `App`; `ui/commands/slack.py` runs it in Socket Mode or behind
HTTP (`ui/combined.py`, events at `/slack/events`, with or without the web app in the same process).

How a message is handled:
1. Bolt verifies the request signature (HTTP mode: HMAC-SHA256 over `v0:{timestamp}:{body}`, timestamps more than
   5 minutes off refused with 401) and acknowledges at once; the answer is worked out afterwards on this module's
   own bounded worker pool, so the 3-second acknowledgement never waits for the advisor, and a full pool gets a
   "busy" reply instead of a growing queue.
2. Slack redelivers events it thinks were lost (`X-Slack-Retry-Num`); each `event_id`, and each message
   (team, channel, ts), is answered at most once (TTL set, 1 hour).
3. The conversation follows the thread: its state (`Conversation.to_dict()`) is kept under
   (team, channel, thread_ts) in an LRU store with a sliding TTL, so a follow-up in the thread refines the same
   workload. A DM outside threads is one conversation; `/gpu` keeps one per user and channel. "start over"/"reset"
   is understood by the conversation itself.
4. Replies go through a `WebClient` whose retry handlers honour `Retry-After` on HTTP 429 (slack_sdk
   `RateLimitErrorRetryHandler`). When the answer takes longer than `placeholder_after_s`, a "working on it"
   message is posted and later edited in place (one message per answer, as Slack's rate-limit guidance suggests).
5. Everything the user sees is escaped for Slack (`ui/slack_render.py`); bad input gets a clear reply.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from knowledge.errors import AdvisorError, InputError
from ui import slack_render as render

if TYPE_CHECKING:  # slack-bolt and slack_sdk are imported lazily, inside the functions that need them
    from slack_bolt import App
    from slack_sdk import WebClient

log = logging.getLogger("gpu_advisor.slack")

ThreadKey = tuple[str, str, str]  # (team, channel, thread) where thread is a ts, "dm" or "cmd:<user>"


# ------------------------------------------------------------------------------------------------ settings

@dataclass(frozen=True)
class SlackSettings:
    """Configuration, normally from the environment (`from_env`). Secrets are never logged or rendered."""

    bot_token: str | None = None  # SLACK_BOT_TOKEN, xoxb-…
    signing_secret: str | None = None  # SLACK_SIGNING_SECRET (HTTP mode)
    app_token: str | None = None  # SLACK_APP_TOKEN, xapp-… (Socket Mode)
    api_url: str | None = None  # SLACK_API_URL: Web API base URL, e.g. a local mock
    web_url: str | None = None  # ADVISOR_WEB_URL: where the web app is deployed (adds a button)
    command: str = "/gpu"
    command_response: str = "in_channel"  # ADVISOR_SLACK_COMMAND_RESPONSE: in_channel | ephemeral
    table_style: str = "table"  # ADVISOR_SLACK_TABLE: table (Block Kit table) | fields (section fields)
    # Slack's own limit on a message's text. Shorter ones go to the conversation, which reads the first 4000
    # characters and says so; longer ones (only a slash command or a forged payload could carry them) are refused.
    max_input_chars: int = 40_000
    store_size: int = 2000  # conversations kept (LRU)
    store_ttl_s: float = 24 * 3600  # idle conversations forgotten after this
    dedupe_ttl_s: float = 3600  # Slack retries within about 5 minutes; keep ids much longer
    placeholder_after_s: float = 1.5
    workers: int = 8
    max_pending: int = 32  # answers being worked on or queued; beyond this the bot says it is busy
    response_hosts: tuple[str, ...] = ("hooks.slack.com", "hooks.slack-gov.com")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SlackSettings:
        env = os.environ if env is None else env

        def get(name: str) -> str | None:
            value = (env.get(name) or "").strip()
            return value or None

        table = (get("ADVISOR_SLACK_TABLE") or "table").lower()
        if table not in ("table", "fields"):
            raise InputError(f"ADVISOR_SLACK_TABLE={table!r} is not valid", field="ADVISOR_SLACK_TABLE",
                             accepted="table, fields")
        response = (get("ADVISOR_SLACK_COMMAND_RESPONSE") or "in_channel").lower()
        if response not in ("in_channel", "ephemeral"):
            raise InputError(f"ADVISOR_SLACK_COMMAND_RESPONSE={response!r} is not valid",
                             field="ADVISOR_SLACK_COMMAND_RESPONSE", accepted="in_channel, ephemeral")
        return cls(bot_token=get("SLACK_BOT_TOKEN"), signing_secret=get("SLACK_SIGNING_SECRET"),
                   app_token=get("SLACK_APP_TOKEN"), api_url=get("SLACK_API_URL"), web_url=get("ADVISOR_WEB_URL"),
                   table_style=table, command_response=response)

    def allowed_response_host(self, url: str) -> bool:
        """Slash-command `response_url`s go only to Slack's hook hosts (or the SLACK_API_URL host, for a mock)."""
        parts = urllib.parse.urlsplit(url or "")
        if parts.scheme not in ("https", "http") or not parts.hostname:
            return False
        hosts = set(self.response_hosts)
        if self.api_url:
            hosts.add(urllib.parse.urlsplit(self.api_url).hostname or "")
        return parts.hostname in hosts and (parts.scheme == "https" or parts.hostname not in self.response_hosts)


# --------------------------------------------------------------------------------------------- the stores

class TTLCache:
    """A bounded, thread-safe mapping: least recently used entries go first; entries expire `ttl_s` after last use.

    `clock` is injectable for tests (seconds, monotonic).
    """

    def __init__(self, max_items: int, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        if max_items < 1 or ttl_s <= 0:
            raise ValueError("max_items must be >= 1 and ttl_s > 0")
        self.max_items, self.ttl_s, self._clock = max_items, ttl_s, clock
        self._data: OrderedDict[Any, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def _purge(self, now: float) -> None:
        while self._data:
            _key, (expires, _) = next(iter(self._data.items()))
            if expires > now and len(self._data) <= self.max_items:
                break
            self._data.popitem(last=False)

    def get(self, key: Any, default: Any = None) -> Any:
        with self._lock:
            now = self._clock()
            self._purge(now)
            if key not in self._data:
                return default
            _, value = self._data.pop(key)
            self._data[key] = (now + self.ttl_s, value)
            return value

    def set(self, key: Any, value: Any) -> None:
        with self._lock:
            now = self._clock()
            self._data.pop(key, None)
            self._data[key] = (now + self.ttl_s, value)
            self._purge(now)

    def add(self, key: Any) -> bool:
        """Remember `key`; True when it was not already there (unexpired). The basis of deduplication."""
        with self._lock:
            now = self._clock()
            self._purge(now)
            if key in self._data:
                return False
            self._data[key] = (now + self.ttl_s, True)
            self._purge(now)
            return True

    def pop(self, key: Any) -> Any:
        with self._lock:
            entry = self._data.pop(key, None)
            return None if entry is None else entry[1]

    def __len__(self) -> int:
        with self._lock:
            self._purge(self._clock())
            return len(self._data)

    def __contains__(self, key: Any) -> bool:
        with self._lock:
            self._purge(self._clock())
            return key in self._data


@dataclass
class ThreadState:
    """What the bot remembers about one thread: the conversation (as `to_dict()`) and the user's questions."""

    state: dict[str, Any] | None = None
    texts: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    dropped: bool = False
    # in the conversation store (ui/slack_store.py): its id and revision, the turn to record, how it went
    conversation_id: str | None = None
    revision: int = 0
    turn: Any = None
    question: str = ""
    error: str | None = None
    saved: bool = True
    corrupt: bool = False


class ConversationStore:
    """Per-thread conversation state: LRU with a sliding TTL; one turn at a time per thread (a lock per thread)."""

    def __init__(self, max_items: int = 2000, ttl_s: float = 24 * 3600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._cache = TTLCache(max_items, ttl_s, clock)
        self._lock = threading.Lock()

    @contextmanager
    def thread(self, key: ThreadKey) -> Iterator[ThreadState]:
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                entry = ThreadState()
                self._cache.set(key, entry)
        with entry.lock:
            yield entry
        if not entry.dropped:
            self._cache.set(key, entry)  # refresh its place in the LRU order and its TTL

    def get(self, key: ThreadKey) -> ThreadState | None:
        return self._cache.get(key)

    def drop(self, key: ThreadKey) -> None:
        with self._lock:
            entry = self._cache.pop(key)
            if entry is not None:
                entry.dropped = True

    def __len__(self) -> int:
        return len(self._cache)


# ----------------------------------------------------------------------------------------- incoming text

_USER_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL_REF = re.compile(r"<#(C[A-Z0-9]+)(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<!([^>|]*)(?:\|([^>]*))?>")
_URL_REF = re.compile(r"<((?:https?|mailto):[^>|\s]*)(?:\|([^>]*))?>")

# The conversation layer itself understands "start over"/"重新开始" and clears its workload; the bot only needs to
# know it too, to forget the thread's question texts (used for the web link). Kept a superset of the dialog's words.
_RESET = re.compile(r"^\s*(?:reset|start over|restart|new question|clear|new|重新开始|重来|重置|清空|新对话|换个问题|"
                    r"新问题|从头再来)\s*[.!。！]*\s*$", re.IGNORECASE)
HELP_WORDS = frozenset({"help", "?", "？", "帮助", "使用说明", "怎么用"})


def clean_incoming(text: str) -> str:
    """Slack's wire text → what the user typed: mentions removed, links and channels as words, entities decoded.

    User mentions (the bot's or anyone's) carry no workload information and are dropped, `<!here>`-style
    broadcasts too; `<url|label>` becomes "label (url)"; `&lt;`, `&gt;`, `&amp;` are decoded (Slack encodes only
    these three).
    """
    text = _USER_MENTION.sub(" ", text or "")
    text = _CHANNEL_REF.sub(lambda m: "#" + (m.group(2) or "channel"), text)
    text = _URL_REF.sub(lambda m: (f"{m.group(2)} ({m.group(1)})" if m.group(2) and m.group(2) != m.group(1)
                                    else m.group(1)), text)
    text = _SPECIAL.sub(lambda m: (m.group(2) or "") if m.group(1).startswith(("subteam", "date")) else " ", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = re.sub(r"[ \t\u00a0]+", " ", text)
    return "\n".join(line.strip() for line in text.split("\n")).strip()


# ----------------------------------------------------------------------------------------------- replies

@dataclass(frozen=True)
class Reply:
    """One message to post: fallback `text`, `blocks`, and simpler `alt_blocks` if Slack refuses the first."""

    text: str
    blocks: list[dict[str, Any]]
    alt_blocks: list[dict[str, Any]] | None = None
    lang: str = "en"
    turn: Any = None  # the Turn, when the advisor answered
    details: tuple[str, list[dict[str, Any]]] | None = None  # the answer's sections: (text, blocks) of a thread reply


_MESSAGES = {
    "help": {
        "en": ("I size GPUs for LLM jobs: which cards, how many, what they cost, with every number computed and "
               "cited.\n\nAsk in a message that mentions me, e.g. *Llama-3.1-70B inference, 32k context, "
               "50 concurrent users, budget 200k USD*. Reply in the same thread (mentioning me) to refine it, e.g. "
               "*what about int4?*; write *reset* to start over. In a direct message just type; the slash "
               "command `{cmd} <question>` works anywhere."),
        "zh": ("我帮你为大模型任务选 GPU：用什么卡、几张、多少钱，每个数字都有计算和出处。\n\n"
               "在消息里 @我 提问，例如 *部署 Qwen2.5-72B，32k 上下文，50 并发，预算 20 万*。"
               "在同一个帖子里继续 @我 可以调整，例如 *改成 8bit 呢？*；发送 *重新开始* 可重置。"
               "私信里直接输入即可；斜杠命令 `{cmd} 你的问题` 在任何频道都能用。"),
    },
    "empty": {
        "en": "Your message has no question in it (only a mention or whitespace).",
        "zh": "你的消息里没有问题（只有 @ 或空白）。",
    },
    "too_long": {
        "en": ("Your message is {n:,} characters long; I read at most {limit:,}. Please send the workload in "
               "a few sentences (model, task, precision, context, users, budget)."),
        "zh": "你的消息有 {n:,} 个字符，我最多读取 {limit:,} 个。请用几句话描述任务（模型、任务、精度、上下文、并发、预算）。",
    },
    "busy": {
        "en": "I'm answering many questions right now; please ask again in a minute.",
        "zh": "我现在正在处理很多问题，请一分钟后再问。",
    },
    "error": {
        "en": "Sorry, something went wrong while working this out. Your conversation is kept; please try again.",
        "zh": "抱歉，计算时出错了。对话内容已保留，请再试一次。",
    },
    "working": {"en": ":hourglass_flowing_sand: Working on it…", "zh": ":hourglass_flowing_sand: 正在计算…"},
    "not_saved": {"en": "Not saved yet: the conversation store is unavailable; it is saved when it is back.",
                  "zh": "尚未保存：对话存储暂时不可用，恢复后会保存。"},
    "corrupt": {"en": "The saved state of this thread could not be read; it starts fresh from this question.",
                "zh": "此帖子保存的状态无法读取，从这个问题重新开始。"},
    "ack": {"en": "Working on: {q}", "zh": "正在计算：{q}"},
}


def message(name: str, lang: str, **kw: Any) -> str:
    return _MESSAGES[name]["zh" if lang == "zh" else "en"].format(**kw)


def text_reply(markdown: str, lang: str = "en") -> Reply:
    text, blocks = render.render_text(markdown)
    return Reply(text=text, blocks=blocks, lang=lang)


def help_reply(command: str, lang: str | None = None, lead: str = "") -> Reply:
    """Help in the user's language, or in both when it is unknown (an empty mention)."""
    langs = [lang] if lang in ("en", "zh") else ["en", "zh"]
    parts = []
    for lg in langs:
        head = message(lead, lg) + "\n\n" if lead else ""
        parts.append(head + message("help", lg, cmd=command))
    return text_reply("\n\n———\n\n".join(parts), lang or "en")


# ---------------------------------------------------------------------------------------------- the bot

def _default_factory(lang: str | None = None) -> Any:
    from advisor.conversation.session import new_conversation

    return new_conversation(lang=lang)


def _default_loader(data: dict[str, Any]) -> Any:
    """`Conversation.from_dict` with the same LLM settings `new_conversation` would use (read per turn)."""
    from advisor.conversation.session import Conversation

    try:
        from advisor.conversation.settings import load_settings
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
                thread.texts = [] if _RESET.match(text) else (thread.texts + [text])[-20:]
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
        web = {"web_url": self.settings.web_url, "query": query, "conversation_id": conversation_id}
        text, blocks = render.render_turn(turn, style=style, **web)
        alt = None
        if style == "table":
            _, alt = render.render_turn(turn, style="fields", **web)
        for note in notes or []:  # the store's notes (state unreadable, answer not saved), after the answer
            for shown in (blocks, alt):
                if shown is not None and len(shown) < render.MAX_BLOCKS:
                    shown.append(render.context(render.escape(note)))
        lang = "zh" if getattr(turn, "lang", "en") == "zh" else "en"
        from ui.slack_details import details_reply

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
        from slack_sdk.errors import SlackApiError

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
        from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
        from slack_sdk.webhook import WebhookClient

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
    if not options or not hasattr(turn, "model_copy"):
        return turn
    try:
        from knowledge.catalog import load_catalog

        catalog = load_catalog()
        named = []
        for opt in options:
            gpu = catalog.find_gpu(opt["gpu"]) if isinstance(opt.get("gpu"), str) and not opt.get("gpu_name") else None
            named.append({**opt, "gpu_name": gpu.name} if gpu is not None else opt)
        return turn.model_copy(update={"options": named})
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


# ------------------------------------------------------------------------------------------ the bolt app

def make_web_client(token: str, api_url: str | None = None, timeout: int = 15) -> WebClient:
    """A WebClient that retries connection errors and honours Retry-After on 429 (twice at most)."""
    from slack_sdk import WebClient

    kwargs: dict[str, Any] = {"token": token, "timeout": timeout}
    if api_url:
        kwargs["base_url"] = api_url if api_url.endswith("/") else api_url + "/"
    client = WebClient(**kwargs)
    ensure_rate_limit_retries(client)
    return client


def ensure_rate_limit_retries(client: WebClient) -> WebClient:
    from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

    if not any(isinstance(h, RateLimitErrorRetryHandler) for h in client.retry_handlers):
        client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=2))
    return client


def check_settings(settings: SlackSettings, mode: str) -> None:
    """Raise InputError naming the missing or malformed variable for `mode` ("http" or "socket")."""
    if not settings.bot_token:
        raise InputError("SLACK_BOT_TOKEN is not set (the bot token, xoxb-…, from the Slack app's "
                         "'OAuth & Permissions' page)", field="SLACK_BOT_TOKEN")
    if not settings.bot_token.startswith("xoxb-"):
        raise InputError("SLACK_BOT_TOKEN must be a bot token starting with 'xoxb-'", field="SLACK_BOT_TOKEN")
    if mode == "http" and not settings.signing_secret:
        raise InputError("SLACK_SIGNING_SECRET is not set (needed in HTTP mode to verify requests; 'Basic "
                         "Information' page of the Slack app)", field="SLACK_SIGNING_SECRET")
    if mode == "socket":
        if not settings.app_token:
            raise InputError("SLACK_APP_TOKEN is not set (an app-level token, xapp-…, with connections:write; "
                             "needed for Socket Mode)", field="SLACK_APP_TOKEN")
        if not settings.app_token.startswith("xapp-"):
            raise InputError("SLACK_APP_TOKEN must be an app-level token starting with 'xapp-'",
                             field="SLACK_APP_TOKEN")
    if mode not in ("http", "socket"):
        raise InputError(f"unknown Slack mode {mode!r}", field="mode", accepted="http, socket")


def delivery_key(body: Any, headers: Mapping[str, Any]) -> str | None:
    """What identifies one delivery, for deduplication: an Events API callback's `event_id` (Slack's retries
    share it); for a slash command or an interactive payload, which Slack does not retry, the request signature,
    which a replayed copy shares (a replay within the 5-minute window would otherwise be answered again).
    None: nothing to deduplicate (Socket Mode requests carry no signature; their events carry an event_id)."""
    if isinstance(body, dict) and body.get("event_id"):
        return f"event:{body['event_id']}"
    signature = (headers.get("x-slack-signature") or [None])[0] if headers else None
    return f"signature:{signature}" if signature else None


def build_slack_app(settings: SlackSettings | None = None, *, mode: str = "http",
                    client: WebClient | None = None,
                    conversation_factory: Callable[..., Any] | None = None,
                    conversation_loader: Callable[[dict[str, Any]], Any] | None = None,
                    store: ConversationStore | None = None,
                    database: Any = None,
                    clock: Callable[[], float] = time.monotonic) -> App:
    """The slack-bolt App with the bot's listeners. The SlackBot is reachable as `app.advisor_bot`.

    `mode` "http" verifies request signatures with SLACK_SIGNING_SECRET; "socket" (Socket Mode) has no signatures.
    `client` replaces the WebClient built from the settings (tests pass one pointed at a mock). Bolt calls
    `auth.test` once here to validate the token and learn the bot's user id. With `database` (an
    `advisor.store` store) threads and delivery dedupe live there (`ui/slack_store.py`), else in this process.
    """
    from slack_bolt import App, BoltResponse
    from slack_bolt.error import BoltError

    settings = settings or SlackSettings.from_env()
    if client is None:
        check_settings(settings, mode)
        client = make_web_client(settings.bot_token or "", settings.api_url)
    else:
        ensure_rate_limit_retries(client)
        if mode == "http" and not settings.signing_secret:
            raise InputError("SLACK_SIGNING_SECRET is not set (needed in HTTP mode)", field="SLACK_SIGNING_SECRET")

    try:
        app = App(client=client, signing_secret=settings.signing_secret or "",
                  request_verification_enabled=(mode == "http"), process_before_response=False,
                  name="gpu-advisor", logger=logging.getLogger("gpu_advisor.slack.bolt"))
    except BoltError as exc:
        raise AdvisorError(f"Slack refused SLACK_BOT_TOKEN: {exc}", field="SLACK_BOT_TOKEN") from None
    except OSError as exc:
        raise AdvisorError(f"cannot reach the Slack Web API ({settings.api_url or 'https://slack.com/api/'}): "
                           f"{exc}", field="SLACK_API_URL") from None

    if database is not None and store is None:
        from advisor.store.keeper import Keeper
        from ui.slack_store import StoredThreads

        store = StoredThreads(Keeper(database, source="slack"))  # type: ignore[assignment]
    bot = SlackBot(settings, conversation_factory=conversation_factory, conversation_loader=conversation_loader,
                   store=store, clock=clock)
    if database is not None:
        from ui.slack_store import StoredClaims

        bot.seen_events = StoredClaims(database, settings.dedupe_ttl_s, bot.seen_events)  # type: ignore[assignment]
        bot.seen_messages = StoredClaims(database, settings.dedupe_ttl_s, bot.seen_messages)  # type: ignore[assignment]
    app.advisor_bot = bot  # type: ignore[attr-defined]

    @app.middleware
    def deduplicate(req: Any, resp: Any, next: Callable[[], Any]) -> Any:
        """Answer each event once: a redelivery (X-Slack-Retry-Num) of an event already seen is acknowledged only."""
        key = delivery_key(req.body, req.headers)
        if key and not bot.seen_events.add(key):
            retry = (req.headers.get("x-slack-retry-num") or ["?"])[0]
            log.info("duplicate delivery of %s (retry %s) acknowledged and skipped", key[:40], retry)
            return BoltResponse(status=200, body="")
        return next()

    def team_of(body: Mapping[str, Any], event: Mapping[str, Any]) -> str:
        return str(body.get("team_id") or event.get("team") or "T?")

    def first_time(team: str, event: Mapping[str, Any]) -> bool:
        return bot.seen_messages.add((team, event.get("channel"), event.get("ts")))

    def enqueue(client: WebClient, channel: str, thread_ts: str | None, key: ThreadKey, text: str) -> None:
        if not bot.submit(lambda: bot.reply_in_channel(client, channel, thread_ts, key, text)):
            bot.post(client, channel, thread_ts, text_reply(message("busy", render.detect_lang(text))))

    def from_a_bot(event: Mapping[str, Any], context: Any) -> bool:
        return bool(event.get("bot_id") or event.get("subtype") == "bot_message"
                    or (event.get("user") and event.get("user") == context.get("bot_user_id")))

    @app.event("app_mention")
    def on_mention(event: dict[str, Any], body: dict[str, Any], client: WebClient, context: Any) -> None:
        if from_a_bot(event, context) or event.get("subtype") not in (None, "thread_broadcast", "file_share"):
            return
        team, channel = team_of(body, event), str(event.get("channel", ""))
        if not channel or not first_time(team, event):
            return
        text = clean_incoming(event.get("text", ""))
        if event.get("channel_type") == "im" or channel.startswith("D"):
            thread_ts = event.get("thread_ts")
            key = (team, channel, thread_ts or "dm")
        else:
            thread_ts = event.get("thread_ts") or event.get("ts")
            key = (team, channel, str(thread_ts))
        enqueue(client, channel, thread_ts, key, text)

    @app.event("message")
    def on_message(event: dict[str, Any], body: dict[str, Any], client: WebClient, context: Any) -> None:
        if event.get("channel_type") != "im" or from_a_bot(event, context):
            return
        if event.get("subtype") not in (None, "file_share", "thread_broadcast"):
            return  # edits, deletions, joins …
        team, channel = team_of(body, event), str(event.get("channel", ""))
        if not channel or not first_time(team, event):
            return
        thread_ts = event.get("thread_ts")
        key = (team, channel, thread_ts or "dm")
        enqueue(client, channel, thread_ts, key, clean_incoming(event.get("text", "")))

    def on_command(ack: Callable[..., None], command: dict[str, Any], client: WebClient) -> None:
        text = clean_incoming(command.get("text", ""))
        team = str(command.get("team_id") or "T?")
        key = (team, str(command.get("channel_id", "")), "cmd:" + str(command.get("user_id", "")))
        early = bot.precheck(text)
        if early is not None:
            ack(text=early.text, blocks=early.blocks, response_type="ephemeral")
            return
        response_url = str(command.get("response_url", ""))

        lang = render.detect_lang(text)
        ack(text=render.escape(message("ack", lang, q=render.truncate(text, 200))), response_type="ephemeral")

        def work() -> None:
            reply = bot.answer(key, text)
            if bot.respond_url(response_url, reply, settings.command_response) and reply.details:
                bot.respond_url(response_url, Reply(text=reply.details[0], blocks=reply.details[1], lang=reply.lang),
                                settings.command_response)  # a response_url has no thread: the details follow

        if not bot.submit(work):
            bot.respond_url(response_url, text_reply(message("busy", lang), lang), "ephemeral")

    app.command(settings.command)(on_command)

    @app.action("open_web_app")
    def on_open_web(ack: Callable[..., None]) -> None:
        ack()  # the button is a plain link; Slack still reports the click, which needs an acknowledgement

    return app
