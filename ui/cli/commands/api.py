"""`gpu-advisor api`: the versioned JSON API (/api/v1/...) on its own, without the browser chat.

    gpu-advisor api --port 8000
    curl -s localhost:8000/api/v1/estimate -H 'content-type: application/json' -d '{"model": "llama-3.1-70b"}'

The web chat (`gpu-advisor web`) serves the same API at the same paths. Environment:
  GPU_ADVISOR_WEB_AUTH = USER:PASSWORD   require HTTP Basic with this login (as the web chat does)
  GPU_ADVISOR_API_TOKEN                  also accept `Authorization: Bearer <token>`
OpenAPI: /api/v1/openapi.json. Endpoints and error contract: ui/api/http.py.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from knowledge.errors import InputError
from ui.cli.commands.server_args import add_host_port, usage_epilog

HELP = "serve the JSON API (/api/v1) without the browser chat"
DEFAULT_PORT = 8000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    usage_epilog(parser, __doc__)
    add_host_port(parser, DEFAULT_PORT)


def serve_uvicorn(app: Any, host: str, port: int, banner: str) -> None:
    """Run `app` under uvicorn until interrupted; a port that cannot be bound is one InputError line."""
    import logging

    # optional dependency: uvicorn comes with the web extra
    import uvicorn


    if not 1 <= port <= 65535:
        raise InputError(f"--port {port} is out of range", field="port", accepted="1 … 65535")
    # optional dependency: uvicorn's settings, with the web extra
    from ui.server.http import uvicorn_config

    server = uvicorn.Server(uvicorn_config(app, host, port, log_level="warning", lifespan="auto"))
    print(banner, file=sys.stderr, flush=True)
    logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)  # the bind failure is reported below, once
    try:
        server.run()
    except SystemExit:
        raise InputError(f"cannot serve on {host}:{port} (address in use or not available)", field="port",
                         accepted="a free port (see --port)") from None
    if not server.started:
        raise InputError(f"cannot serve on {host}:{port} (address in use or not available)", field="port",
                         accepted="a free port (see --port)")


def run(args: argparse.Namespace) -> int:
    import logging
    import os

    # start-up: the API's app loads once the arguments are read (`api --help`, a refused option)
    from ui.api.http import ENV_TOKEN, build_api

    # start-up: the API's app loads once the arguments are read (`api --help`, a refused option)
    from ui.web.app import ENV_AUTH, parse_auth

    auth = parse_auth(os.environ.get(ENV_AUTH))
    token = os.environ.get(ENV_TOKEN, "").strip() or None
    if args.host not in ("127.0.0.1", "localhost", "::1") and not (auth or token):
        logging.getLogger(__name__).warning("serving the API on %s without authentication; set %s or %s",
                                            args.host, ENV_AUTH, ENV_TOKEN)
    # start-up: the API's app loads once the arguments are read (`api --help`, a refused option)
    from ui.api import conversations as api_conversations

    # start-up: the API's app loads once the arguments are read (`api --help`, a refused option)
    from ui.server import logs, metrics

    metrics.prepare()
    conversations = api_conversations.backend()  # the store (or memory) `ask` keeps conversations in
    metrics.watch_sessions("api", conversations.__len__)  # conversations `ask` holds in this process
    logs.configure()  # JSON lines with the conversation id
    app = metrics.OpsEndpoints(build_api(auth, token=token), api=True)  # /healthz, /readyz, /metrics
    serve_uvicorn(app, args.host, args.port,
                  f"GPU Advisor API: http://{args.host}:{args.port}/api/v1/ (OpenAPI: /api/v1/openapi.json)"
                  + (", login required" if auth or token else ""))
    return 0
