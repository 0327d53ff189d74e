"""`gpu-advisor slack [--socket | --http [--host H] [--port N] [--with-web]]`: run the Slack bot.

Environment: SLACK_BOT_TOKEN (xoxb-…), SLACK_SIGNING_SECRET (HTTP mode), SLACK_APP_TOKEN (xapp-…, Socket Mode),
SLACK_API_URL (optional Web API base URL, e.g. a local mock), ADVISOR_WEB_URL (optional link to the web app),
ADVISOR_SLACK_TABLE (table | fields), ADVISOR_SLACK_COMMAND_RESPONSE (in_channel | ephemeral).
Without --socket/--http the mode is Socket Mode when SLACK_APP_TOKEN is set, HTTP otherwise.
"""

from __future__ import annotations

import argparse
import logging

from knowledge.errors import InputError

HELP = "start the Slack bot (Socket Mode or HTTP Events API)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--socket", action="store_true", help="Socket Mode (needs SLACK_APP_TOKEN; no public URL)")
    mode.add_argument("--http", action="store_true",
                      help="HTTP Events API at /slack/events (needs SLACK_SIGNING_SECRET)")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP mode: address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=3000,
                        help="HTTP mode: port (default 3000)")
    parser.add_argument("--with-web", action="store_true",
                        help="HTTP mode: also serve the web chat at / in the same process")


def run(args: argparse.Namespace) -> int:
    # start-up: slack_bolt loads once the arguments are read (`slack --help`, a refused option)
    from ui.slack.app import SlackSettings, build_slack_app, check_settings

    settings = SlackSettings.from_env()
    mode = "socket" if args.socket else "http" if args.http else ("socket" if settings.app_token else "http")
    if not 1 <= args.port <= 65535:
        raise InputError(f"--port {args.port} is out of range", field="--port", accepted="1-65535")
    if args.with_web and mode != "http":
        raise InputError("--with-web needs HTTP mode (--http)", field="--with-web")
    check_settings(settings, mode)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # start-up: the conversation store loads once the arguments are read
    from advisor.store.retention import open_server_store

    database = open_server_store()  # threads and event dedupe (GPU_ADVISOR_DATABASE_URL; default SQLite file)
    app = build_slack_app(settings, mode=mode, database=database)

    if mode == "socket":
        # start-up: only Socket Mode (no --http) loads its handler
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        print("GPU Advisor Slack bot: Socket Mode (Ctrl-C to stop)", flush=True)
        SocketModeHandler(app, settings.app_token).start()  # type: ignore[no-untyped-call]  # slack_bolt leaves start() unannotated
        return 0

    try:
        # start-up: only --http serves the web page beside the bot
        from ui.server.combined import build_server_app, serve

        web_settings = None
        if args.with_web:
            # start-up: only --http serves the web page beside the bot
            from ui.web.app import settings_from

            web_settings = settings_from(host=args.host, port=args.port)
        api = build_server_app(app, with_web=args.with_web, web_settings=web_settings, store=database)
    except ImportError as exc:
        if args.with_web:
            raise InputError(f"--with-web needs the web extra ({exc.name} is missing): "
                             "pip install 'gpu-advisor[web]'", field="--with-web") from None
        # the slack extra alone has no ASGI server: fall back to bolt's built-in development server
        print(f"GPU Advisor Slack bot: HTTP on http://{args.host}:{args.port}/slack/events "
              "(bolt's built-in server; install the web extra for uvicorn)", flush=True)
        app.start(port=args.port, path="/slack/events", http_server_logger_enabled=False)
        return 0
    where = f"http://{args.host}:{args.port}"
    print(f"GPU Advisor Slack bot: HTTP events at {where}/slack/events"
          + (f", web chat at {where}/" if args.with_web else "")
          + (f", conversations stored in {database.url}" if database is not None else ", conversations in memory"),
          flush=True)
    serve(api, host=args.host, port=args.port)
    return 0
