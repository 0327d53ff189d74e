"""Structured logs for the servers: one JSON object per line, with the conversation id of the turn.

    logs.configure()   # at server start; GPU_ADVISOR_LOG_FORMAT=text keeps the plain format

Each line: `ts` (UTC, ISO 8601, milliseconds), `level`, `logger`, `message`, `conversation_id` (the turn's, from
`advisor.observe.CONVERSATION_ID`, or null outside a turn), `process`, `thread`, and `exc` (the traceback) when
an exception is logged. Fields passed with `extra=` that are JSON-safe are kept.
"""

from __future__ import annotations

import json
import logging
import os
from datetime import UTC, datetime

from advisor.observe import CONVERSATION_ID

FORMAT_ENV = "GPU_ADVISOR_LOG_FORMAT"
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        doc = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "conversation_id": getattr(record, "conversation_id", None) or CONVERSATION_ID.get(),
            "process": record.process,
            "thread": record.threadName,
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in doc and isinstance(value, (str, int, float, bool, type(None))):
                doc[key] = value
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, ensure_ascii=False)


def configure(fmt: str | None = None, level: int = logging.INFO) -> str:
    """Log to standard error in `fmt` ("json", the default for servers, or "text"); returns the format used."""
    fmt = (fmt or os.environ.get(FORMAT_ENV) or "json").strip().lower()
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else
                         logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_gpu_advisor", False)]:
        root.removeHandler(old)
    handler._gpu_advisor = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(min(root.level or level, level) if root.level else level)
    return fmt
