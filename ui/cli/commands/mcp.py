"""`gpu-advisor mcp`: serve the advisor's tools, catalogs and prompts over the Model Context Protocol.

    gpu-advisor mcp                                  stdio (for desktop assistants and IDEs; see README)
    gpu-advisor mcp --http --port 8765               streamable HTTP at http://127.0.0.1:8765/mcp (stateless)
    GPU_ADVISOR_MCP_TOKEN=... gpu-advisor mcp --http --host 0.0.0.0 --port 8765

Beyond loopback a bearer token (GPU_ADVISOR_MCP_TOKEN, at least 16 characters) is required; when set it is
enforced on any address. Tools, resources and prompts: ui/api/mcp_server.py.
"""

from __future__ import annotations

import argparse

from knowledge.errors import InputError
from ui.cli.commands.server_args import DEFAULT_HOST, add_host_port, usage_epilog

HELP = "serve the advisor over the Model Context Protocol (stdio, or --http)"
DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    usage_epilog(parser, __doc__)
    parser.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    add_host_port(parser, DEFAULT_PORT, when=" with --http")


def run(args: argparse.Namespace) -> int:
    try:
        # start-up: the MCP SDK loads once the arguments are read (`mcp --help`, a refused option)
        from ui.api import mcp_server
    except ImportError as exc:
        raise InputError(f"the MCP server needs the `mcp` package ({exc.name} is missing)", field="mcp",
                         accepted="pip install 'gpu-advisor[mcp]'") from None
    if not args.http:
        if args.host != DEFAULT_HOST or args.port != DEFAULT_PORT:
            raise InputError("--host/--port apply to --http only", field="http", accepted="--http --port N")
        mcp_server.serve_stdio()
        return 0
    if not 1 <= args.port <= 65535:
        raise InputError(f"--port {args.port} is out of range", field="port", accepted="1 … 65535")
    token = mcp_server.http_token(args.host)
    # start-up: only --http serves over uvicorn
    from ui.cli.commands.api import serve_uvicorn

    serve_uvicorn(mcp_server.http_app(args.host, token), args.host, args.port,
                  f"GPU Advisor MCP (streamable HTTP, stateless): http://{args.host}:{args.port}{mcp_server.MCP_PATH}"
                  + (" — bearer token required" if token else ""))
    return 0
