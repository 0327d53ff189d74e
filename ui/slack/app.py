"""The Slack bot: mentions (answered in the thread), direct messages and the `/gpu` slash command.

`build_slack_app(settings)` returns a slack-bolt `App`; `ui/cli/commands/slack.py` runs it in Socket Mode or behind
HTTP (`ui/server/combined.py`, events at `/slack/events`, with or without the web app in the same process).

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
5. Everything the user sees is escaped for Slack (`ui/slack/render.py`); bad input gets a clear reply.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from advisor.store.keeper import Keeper
from knowledge.errors import AdvisorError, InputError
from ui.slack.bot import HISTORY_KEPT, NOT_ABOUT_CONTENT, SlackBot
from ui.slack.listeners import add_listeners, delivery_key
from ui.slack.replies import HELP_WORDS, RESET, Reply, clean_incoming, help_reply, message, text_reply
from ui.slack.settings import SlackSettings, check_settings, ensure_rate_limit_retries, make_web_client
from ui.slack.store import StoredClaims, StoredThreads
from ui.slack.threads import ConversationStore, ThreadKey, ThreadState, TTLCache

if TYPE_CHECKING:  # slack-bolt and slack_sdk are imported lazily, inside the functions that need them
    from slack_bolt import App
    from slack_sdk import WebClient

    from advisor.store.sql import SqlStore

__all__ = [
    "HELP_WORDS", "HISTORY_KEPT", "NOT_ABOUT_CONTENT", "RESET", "ConversationStore", "Reply", "SlackBot",
    "SlackSettings", "TTLCache", "ThreadKey", "ThreadState", "build_slack_app", "check_settings", "clean_incoming",
    "delivery_key", "ensure_rate_limit_retries", "help_reply", "make_web_client", "message", "text_reply",
]



def build_slack_app(settings: SlackSettings | None = None, *, mode: str = "http",
                    client: WebClient | None = None,
                    conversation_factory: Callable[..., Any] | None = None,
                    conversation_loader: Callable[[dict[str, Any]], Any] | None = None,
                    store: ConversationStore | None = None,
                    database: SqlStore | None = None,
                    clock: Callable[[], float] = time.monotonic) -> App:
    """The slack-bolt App with the bot's listeners (`ui.slack.listeners`). The SlackBot is reachable as
    `app.advisor_bot`.

    `mode` "http" verifies request signatures with SLACK_SIGNING_SECRET; "socket" (Socket Mode) has no signatures.
    `client` replaces the WebClient built from the settings (tests pass one pointed at a mock). Bolt calls
    `auth.test` once here to validate the token and learn the bot's user id. With `database` (an
    `advisor.store` store) threads and delivery dedupe live there (`ui/slack/store.py`), else in this process.
    """
    settings = settings or SlackSettings.from_env()
    if client is None:
        check_settings(settings, mode)
        client = make_web_client(settings.bot_token or "", settings.api_url)
    else:
        ensure_rate_limit_retries(client)
        if mode == "http" and not settings.signing_secret:
            raise InputError("SLACK_SIGNING_SECRET is not set (needed in HTTP mode)", field="SLACK_SIGNING_SECRET")
    app = _bolt_app(settings, client, mode)
    if database is not None and store is None:
        store = StoredThreads(Keeper(database, source="slack"))  # type: ignore[assignment]
    bot = SlackBot(settings, conversation_factory=conversation_factory, conversation_loader=conversation_loader,
                   store=store, clock=clock)
    if database is not None:
        bot.seen_events = StoredClaims(database, settings.dedupe_ttl_s, bot.seen_events)  # type: ignore[assignment]
        bot.seen_messages = StoredClaims(database, settings.dedupe_ttl_s, bot.seen_messages)  # type: ignore[assignment]
    app.advisor_bot = bot  # type: ignore[attr-defined]
    add_listeners(app, bot, settings)
    return app


def _bolt_app(settings: SlackSettings, client: WebClient, mode: str) -> App:
    """Bolt's App over `client` (signatures verified in HTTP mode); its `auth.test` failing is one clear error."""
    from slack_bolt import App  # optional dependency: slack_bolt only with the slack extra
    from slack_bolt.error import BoltError  # optional dependency: slack_bolt only with the slack extra

    try:
        return App(client=client, signing_secret=settings.signing_secret or "",
                   request_verification_enabled=(mode == "http"), process_before_response=False,
                   name="gpu-advisor", logger=logging.getLogger("gpu_advisor.slack.bolt"))
    except BoltError as exc:
        raise AdvisorError(f"Slack refused SLACK_BOT_TOKEN: {exc}", field="SLACK_BOT_TOKEN") from None
    except OSError as exc:
        raise AdvisorError(f"cannot reach the Slack Web API ({settings.api_url or 'https://slack.com/api/'}): "
                           f"{exc}", field="SLACK_API_URL") from None
