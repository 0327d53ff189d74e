"""`gpu-advisor web`: serve the browser chat (Gradio) at http://127.0.0.1:7860 by default.

Flags win over environment variables, which win over the defaults:
  --host        GPU_ADVISOR_WEB_HOST (or GRADIO_SERVER_NAME)   default 127.0.0.1 (0.0.0.0 only behind a TLS proxy)
  --port        GPU_ADVISOR_WEB_PORT (or GRADIO_SERVER_PORT)   default 7860
  --auth        GPU_ADVISOR_WEB_AUTH = USER:PASSWORD           default none (prefer the variable: flags show in `ps`)
  --queue-size  GPU_ADVISOR_WEB_QUEUE_SIZE                     default 100 waiting turns
  --concurrency GPU_ADVISOR_WEB_CONCURRENCY                    default 8 turns at once
  --workers     GPU_ADVISOR_WEB_WORKERS                        default cores − 1 (at most 4) processes answering
                                                               deterministic turns; 0 answers them in the server
                GPU_ADVISOR_WEB_MAX_BODY_BYTES                 default 1000000 (larger requests get HTTP 413)
The LLM is configured by OPENAI_API_KEY / OPENAI_BASE_URL / ADVISOR_MODEL; with no key it runs deterministic.
"""

from __future__ import annotations

import argparse

from ui.cli.commands.server_args import add_host_port, usage_epilog
from ui.web.settings import DEFAULT_PORT

HELP = "start the browser chat (Gradio)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    usage_epilog(parser, __doc__)
    add_host_port(parser, DEFAULT_PORT, unset=True)  # the environment may give them (ui.web.settings)
    parser.add_argument("--auth", default=None, metavar="USER:PASSWORD", help="require this login")
    parser.add_argument("--queue-size", type=int, default=None,
                        help="turns that may wait (default 100)")
    parser.add_argument("--concurrency", type=int, default=None,
                        help="turns answered at once (default 8)")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes for deterministic turns (default: cores - 1, at most 4; 0: none)")


def run(args: argparse.Namespace) -> int:
    # start-up: Gradio loads once the arguments are read (`web --help`, a refused option)
    from ui.web.app import serve, settings_from

    settings = settings_from(host=args.host, port=args.port, auth=args.auth, queue_size=args.queue_size,
                             concurrency=args.concurrency, workers=args.workers)
    serve(settings, block=True)
    return 0
