"""The Slack bot's Bolt listeners: redeliveries acknowledged once (`delivery_key`), mentions answered in their
thread, direct messages, the slash command (acknowledged at once, answered through its `response_url`) and the
"open in the web app" button.

Bolt passes its request, context and handler arguments untyped (`Any` below); the event and command payloads are
Slack's JSON objects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ui.slack import render
from ui.slack.bot import SlackBot
from ui.slack.replies import Reply, clean_incoming, message, text_reply
from ui.slack.settings import SlackSettings
from ui.slack.threads import ThreadKey

if TYPE_CHECKING:  # slack-bolt and slack_sdk are imported lazily, inside the functions that need them
    from slack_bolt import App
    from slack_sdk import WebClient

log = logging.getLogger("gpu_advisor.slack")


def delivery_key(body: Any, headers: Mapping[str, Any]) -> str | None:
    """What identifies one delivery, for deduplication: an Events API callback's `event_id` (Slack's retries
    share it); for a slash command or an interactive payload, which Slack does not retry, the request signature,
    which a replayed copy shares (a replay within the 5-minute window would otherwise be answered again).
    None: nothing to deduplicate (Socket Mode requests carry no signature; their events carry an event_id)."""
    if isinstance(body, dict) and body.get("event_id"):
        return f"event:{body['event_id']}"
    signature = (headers.get("x-slack-signature") or [None])[0] if headers else None
    return f"signature:{signature}" if signature else None



def add_listeners(app: App, bot: SlackBot, settings: SlackSettings) -> None:
    """Attach the dedupe middleware, the message listeners and the slash command to `app`."""
    from slack_bolt import BoltResponse  # optional dependency: slack_bolt only with the slack extra

    @app.middleware
    def deduplicate(req: Any, resp: Any, next: Callable[[], Any]) -> Any:
        """Answer each event once: a redelivery (X-Slack-Retry-Num) of an event already seen is acknowledged only."""
        key = delivery_key(req.body, req.headers)
        if key and not bot.seen_events.add(key):
            retry = (req.headers.get("x-slack-retry-num") or ["?"])[0]
            log.info("duplicate delivery of %s (retry %s) acknowledged and skipped", key[:40], retry)
            return BoltResponse(status=200, body="")
        return next()

    _add_message_listeners(app, bot)
    app.command(settings.command)(_command_listener(bot, settings))

    @app.action("open_web_app")
    def on_open_web(ack: Callable[..., None]) -> None:
        ack()  # the button is a plain link; Slack still reports the click, which needs an acknowledgement


def _team_of(body: Mapping[str, Any], event: Mapping[str, Any]) -> str:
    return str(body.get("team_id") or event.get("team") or "T?")


def _from_a_bot(event: Mapping[str, Any], context: Any) -> bool:
    return bool(event.get("bot_id") or event.get("subtype") == "bot_message"
                or (event.get("user") and event.get("user") == context.get("bot_user_id")))


def _add_message_listeners(app: App, bot: SlackBot) -> None:
    """Mentions (answered in their thread; in a DM, in the DM's conversation) and direct messages."""

    def first_time(team: str, event: Mapping[str, Any]) -> bool:
        return bot.seen_messages.add((team, event.get("channel"), event.get("ts")))

    def enqueue(client: WebClient, channel: str, thread_ts: str | None, key: ThreadKey, text: str) -> None:
        if not bot.submit(lambda: bot.reply_in_channel(client, channel, thread_ts, key, text)):
            bot.post(client, channel, thread_ts, text_reply(message("busy", render.detect_lang(text))))

    @app.event("app_mention")
    def on_mention(event: dict[str, Any], body: dict[str, Any], client: WebClient, context: Any) -> None:
        if _from_a_bot(event, context) or event.get("subtype") not in (None, "thread_broadcast", "file_share"):
            return
        team, channel = _team_of(body, event), str(event.get("channel", ""))
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
        if event.get("channel_type") != "im" or _from_a_bot(event, context):
            return
        if event.get("subtype") not in (None, "file_share", "thread_broadcast"):
            return  # edits, deletions, joins …
        team, channel = _team_of(body, event), str(event.get("channel", ""))
        if not channel or not first_time(team, event):
            return
        thread_ts = event.get("thread_ts")
        key = (team, channel, thread_ts or "dm")
        enqueue(client, channel, thread_ts, key, clean_incoming(event.get("text", "")))


def _command_listener(bot: SlackBot, settings: SlackSettings) -> Callable[..., None]:
    """The slash command: acknowledged at once (ephemeral), answered through its `response_url`, details after."""

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

    return on_command
