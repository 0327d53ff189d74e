"""`gpu-advisor ask --conversation new|ID`: a CLI turn in a stored conversation (advisor/store), so a script can
hold a conversation across invocations and machines sharing the database, and `history` lists it.

`new` starts one (its id is printed: on stderr with plain output, as `conversation_id` with --json); an id
continues it. An id that is not a stored conversation is one "not found" line, exit 2."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from advisor.store import open_store
from advisor.store.keeper import CorruptState, Keeper, request_key, result_json, slim_history
from advisor.store.records import NewTurn
from advisor.store.sql import new_id
from knowledge.errors import InputError
from knowledge.messages import pair

if TYPE_CHECKING:
    from advisor.conversation.session import Conversation
    from advisor.conversation.turn import Turn


def stored_turn(ident: str, text: str, make: Callable[[], Conversation],
                load: Callable[[dict[str, Any]], Conversation]) -> tuple[Turn, str, bool]:
    """(the Turn, the conversation id, saved) for `text` asked in conversation `ident` ("new" or an id).
    `make()` is a fresh Conversation, `load(dict)` one rebuilt from a stored state."""
    store = open_store()
    if store is None:
        raise InputError("--conversation needs a conversation store (GPU_ADVISOR_DATABASE_URL is 'memory')",
                         field="--conversation", accepted="unset (the SQLite default), sqlite:///…, postgresql://…")
    keeper = Keeper(store, source="cli")
    try:
        record = None if ident == "new" else store.get_conversation(ident)
        if ident != "new" and record is None:
            message, message_zh = pair("ask.conversation_not_found", ident=ident)
            raise InputError(message, field="--conversation", accepted="new, or an id from `gpu-advisor history list`",
                             message_zh=message_zh)
        cid = record.id if record else new_id()
        with keeper.turn_lock(cid) as lease:
            record = store.get_conversation(cid)
            conv, revision = make(), 0
            if record is not None:
                revision = record.revision
                try:
                    state = keeper.read_state(record)
                    conv = load(state) if state is not None else conv
                except (CorruptState, InputError):
                    conv = make()  # an unreadable state: this conversation starts afresh
            started = time.monotonic()
            turn = conv.respond(text)
            slim_history(conv.history)
            done = keeper.commit(lease, revision, conv.to_dict(), NewTurn(
                request_id=request_key(cid, revision, text), question=text, answer=turn.answer,
                result=result_json(turn), driver=conv.driver, duration_s=time.monotonic() - started,
                has_quote=bool(turn.options)), owner="cli", title=text[:120])
        return turn, cid, done is not None
    finally:
        keeper.close()
        store.close()
