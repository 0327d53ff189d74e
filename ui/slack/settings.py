"""The Slack bot's settings (from the environment; secrets never logged or rendered), their checks for HTTP and
Socket Mode, and its Web API client (connection errors retried, `Retry-After` honoured on HTTP 429)."""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from knowledge.errors import InputError
from knowledge.structs import Value

if TYPE_CHECKING:  # slack_sdk is imported lazily, inside the functions that need it
    from slack_sdk import WebClient


class SlackSettings(Value):
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


def make_web_client(token: str, api_url: str | None = None, timeout: int = 15) -> WebClient:
    """A WebClient that retries connection errors and honours Retry-After on 429 (twice at most)."""
    from slack_sdk import WebClient  # optional dependency: slack_sdk only with the slack extra

    kwargs: dict[str, Any] = {"token": token, "timeout": timeout}
    if api_url:
        kwargs["base_url"] = api_url if api_url.endswith("/") else api_url + "/"
    client = WebClient(**kwargs)
    ensure_rate_limit_retries(client)
    return client


def ensure_rate_limit_retries(client: WebClient) -> WebClient:
    # optional dependency: slack_sdk only with the slack extra
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

