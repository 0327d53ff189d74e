"""The web chat's conversations in the store (advisor/store): ids in the URL, turns recorded, a history sidebar,
quotes at permanent links.

- A conversation's id (`new_id`, 128 random bits) is made with its first turn and put in the page URL (`?c=…`);
  loading `/?c=ID` (or the `/open` API endpoint with the id) continues it — after a reload, a restart, on another
  replica or another machine. With `GPU_ADVISOR_WEB_AUTH` set, only its owner (the logged-in user) can open it;
  without a login the unguessable id is the key, and the sidebar lists the conversations of this browser (a random
  id in a cookie, `BROWSER_COOKIE`). Conversations from Slack open for any user who may use the web app.
- `StoredChatController.turn` runs each turn under the conversation's lock (`Keeper.turn_lock`), reloads the state
  when another process moved it on, and records the turn; a turn that loses a race (`Conflict`) is rerun on the
  stored state. The answer is yielded as soon as it is computed, before the write; the last update carries the
  turn JSON with `saved` and, when the database could not be written, the answer with a note that it is not saved.
- Quotes: a turn with a recommendation gets a quote id; `/quote/ID.md` and `/quote/ID.json` (`StoredQuotes`
  middleware) render the stored turn once, freeze the result in the store, and serve the frozen text ever after,
  dated with the time the turn was computed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from advisor.conversation.session import Conversation
from advisor.conversation.turn import load_turn
from advisor.store import Conflict, QuoteRecord, StoreUnavailable
from advisor.store.keeper import CorruptState, Keeper, request_key, result_json, slim_history
from advisor.store.records import ConversationRecord, NewTurn, stored_at
from advisor.store.retention import open_server_store
from advisor.store.sql import new_id, plausible_id
from knowledge.messages import t as message
from ui.quote.stored import freeze_quote
from ui.web import render as R
from ui.web.chat import MAX_SHOWN_MESSAGES, ChatController, SessionState, message_lang, session_of, turn_json

log = logging.getLogger("gpu_advisor.web")

BROWSER_COOKIE = "gpu_advisor_browser"
SIDEBAR_ITEMS = 12
MAX_RERUNS = 3


COOKIE_JS = f"""() => {{
  if (!document.cookie.split('; ').some(c => c.startsWith('{BROWSER_COOKIE}='))) {{
    const a = new Uint8Array(16); crypto.getRandomValues(a);
    const id = Array.from(a, b => b.toString(16).padStart(2, '0')).join('');
    document.cookie = '{BROWSER_COOKIE}=' + id + '; path=/; max-age=31536000; SameSite=Lax';
  }}
}}"""

URL_JS = """(c) => {
  const u = new URL(window.location.href);
  if ((u.searchParams.get('c') || '') !== (c || '')) {
    if (c) { u.searchParams.set('c', c); u.searchParams.delete('q'); } else { u.searchParams.delete('c'); }
    window.history.replaceState(null, '', u.toString());
  }
}"""

NEW_JS = """() => {
  const u = new URL(window.location.href);
  if (u.searchParams.has('c')) { u.searchParams.delete('c'); window.history.replaceState(null, '', u.toString()); }
}"""


def t(key: str, lang: str) -> str:
    """The history panel's phrase `key` (knowledge/messages: "web.store.KEY") in `lang`."""
    return message(f"web.store.{key}", lang)


def owner_of(request: Any, auth: bool) -> str:
    """Whose conversations: "user:NAME" behind a login, else "browser:ID" from the cookie, else "" (nobody's:
    reachable by its id only, listed nowhere)."""
    if request is None:
        return ""
    if auth:
        name = getattr(request, "username", None)
        return f"user:{name}" if name else ""
    cookies = getattr(request, "cookies", None) or {}
    browser = cookies.get(BROWSER_COOKIE, "") if hasattr(cookies, "get") else ""
    return f"browser:{browser}" if isinstance(browser, str) and 16 <= len(browser) <= 64 and browser.isalnum() else ""


def may_open(record: ConversationRecord, owner: str, auth: bool) -> bool:
    return not auth or record.owner == owner or record.source == "slack"


class StoredChatController(ChatController):
    """`ChatController` whose conversations live in the store (see the module doc)."""

    def __init__(self, *args: Any, keeper: Keeper, auth: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.keeper = keeper
        self.auth = auth

    def identify(self, state: SessionState, request: Any) -> None:
        if not state.owner:
            state.owner = owner_of(request, self.auth)

    # --- opening ------------------------------------------------------------------------------------------
    def open(self, cid: Any, owner: str, lang: str = "en") -> SessionState | None:
        """The stored conversation `cid` as a page session, or None when there is none this owner may open
        (the same answer for "no such id" and "someone else's")."""
        if not plausible_id(cid):
            return None
        record = self.keeper.get(cid)
        if record is None or not may_open(record, owner, self.auth):
            return None
        state = SessionState(owner=owner)
        self._restore(state, record, lang)
        return state

    def _restore(self, state: SessionState, record: ConversationRecord, lang: str) -> None:
        """Fill `state` from `record` and its turns: the conversation, the chat as shown, the latest result."""
        state.conversation_id, state.revision = record.id, record.revision
        state.conv = self.factory()
        local = getattr(state.conv, "local", state.conv)
        corrupt = False
        try:
            data = self.keeper.read_state(record)
            if data is not None:
                loaded = Conversation.from_dict(data, settings=getattr(local, "settings", None))
                local.state, local.lang, local.history = loaded.state, loaded.lang, loaded.history
        except (CorruptState, Exception) as exc:  # noqa: BLE001 - this conversation only starts fresh
            log.warning("conversation %s: stored state unreadable (%s); starting it fresh", record.id, exc)
            corrupt = True
        history: list[dict[str, Any]] = []
        state.last_result = state.last_turn = state.last_raw = None
        state.exports, state.quote_id = None, None
        for row in self.keeper.store.turns(record.id, limit=MAX_SHOWN_MESSAGES // 2):
            turn = None
            try:
                turn = load_turn(row.result) if row.result else None
            except ValueError:
                log.warning("conversation %s: turn %d result unreadable; showing its text", record.id, row.seq)
            history.append(R.user_message(row.question, message_lang(row.question, lang)))
            history.append(R.assistant_message(R.answer_markdown(turn) if turn is not None else row.answer))
            if turn is not None:
                state.last_turn, state.last_raw = turn, self._raw(turn, state, True)
                if R.has_result(turn):
                    state.last_result, state.last_question, state.quote_id = turn, row.question, row.quote_id
        if corrupt:
            history.append(R.assistant_message(t("corrupt", lang)))
        state.history = history

    def _raw(self, turn: Any, state: SessionState, saved: bool) -> dict[str, Any]:
        raw = turn_json(turn)
        raw.update({"conversation_id": state.conversation_id, "saved": saved})
        return raw

    # --- one turn -----------------------------------------------------------------------------------------
    def turn(self, message: Any, state: SessionState | None, ui_lang: str = "en") -> Iterator[dict[str, Any]]:
        state = state if isinstance(state, SessionState) else SessionState()
        text = message if isinstance(message, str) else ""
        if R.check_message(text, "en") is not None:
            yield from super().turn(message, state, ui_lang)
            return
        cid = state.conversation_id or new_id()
        fresh = cid != state.conversation_id
        if fresh:
            state.conversation_id, state.revision = cid, 0
        for attempt in range(MAX_RERUNS):
            with self.keeper.turn_lock(cid, new=fresh and attempt == 0) as lease:
                if lease.held:
                    self._sync(state, ui_lang, lease.revision)
                revision, started = state.revision, time.monotonic()
                final: dict[str, Any] | None = None
                for update in super().turn(message, state, ui_lang):
                    if "raw" in update:
                        final = update
                    else:
                        yield update
                if final is None:  # the controller answered with an error message; nothing to record
                    return
                closed = False
                try:  # the answer as soon as it is computed; the write follows, and the last update says "saved"
                    yield {"chatbot": final["chatbot"], "state": state}  # (a non-streaming caller sees the last only)
                except GeneratorExit:  # the page went away: the turn is still recorded, and nothing more is sent
                    closed = True
                turn, record = state.last_turn, self._new_turn(state, cid, revision, text, started)
                local = getattr(state.conv, "local", state.conv)
                slim_history(local.history)  # what the store keeps (and the agent replays) of it
                try:
                    done = self.keeper.commit(lease, revision, local.to_dict(), record, owner=state.owner or "",
                                              title=text[:120])
                except Conflict:
                    log.info("conversation %s: another turn came first (attempt %d); rerunning", cid, attempt + 1)
                    self._reload(state, ui_lang)
                    if closed:
                        log.error("conversation %s: turn not recorded (another turn came first; the page was gone)",
                                  cid)
                        return
                    continue
            saved = done is not None
            state.revision = done.revision if done else revision + 1
            if done and record.has_quote:
                state.quote_id = done.quote_id
            if not saved:
                lang = getattr(turn, "lang", "en")
                state.history[-1] = R.assistant_message(R.answer_markdown(turn) + "\n\n" + t("not_saved", lang))
                final["chatbot"] = list(state.history)
            quote = state.quote_id if saved and record.has_quote else None
            state.last_raw = final["raw"] = {**final["raw"], "conversation_id": cid, "saved": saved, "quote_id": quote}
            if not closed:
                yield final
            return
        log.error("conversation %s: turn not recorded after %d attempts (concurrent turns)", cid, MAX_RERUNS)

    @staticmethod
    def _new_turn(state: SessionState, cid: str, revision: int, text: str, started: float) -> NewTurn:
        """The record of the turn just answered (`state.last_turn`), asked at `revision`, begun at `started`."""
        turn = state.last_turn
        return NewTurn(request_id=request_key(cid, revision, text), question=text,
                       answer=str(getattr(turn, "answer", "")), result=result_json(turn),
                       driver=str(getattr(state.conv, "driver", "deterministic")),
                       duration_s=time.monotonic() - started,
                       error=(turn.answer if getattr(turn, "note", "") == "error" else None),
                       has_quote=R.has_result(turn))

    def _sync(self, state: SessionState, lang: str, stored: int | None) -> None:
        """Reload the session when the stored conversation (at revision `stored`, read with the lease) moved on:
        a turn answered by another replica, or one of this process's written late."""
        try:
            if self.keeper.flush(state.conversation_id):
                stored = self.keeper.store.revision(state.conversation_id or "")
        except StoreUnavailable:
            return
        if stored is not None and stored != state.revision:
            self._reload(state, lang)

    def _reload(self, state: SessionState, lang: str) -> None:
        try:
            record = self.keeper.get(state.conversation_id or "")
        except StoreUnavailable:
            return
        if record is not None:
            self._restore(state, record, lang)

    # --- the sidebar --------------------------------------------------------------------------------------
    def sidebar(self, state: SessionState | None, lang: str) -> str:
        """Markdown: this recommendation's permanent links, the owner's recent conversations and quotes."""
        lang = "zh" if lang == "zh" else "en"
        state = state if isinstance(state, SessionState) else SessionState()
        out: list[str] = [f"### {t('history', lang)}", ""]
        if state.quote_id:
            q = state.quote_id
            out += [f"**{t('this_quote', lang)}**", "", f"[Markdown](quote/{q}.md) · [JSON](quote/{q}.json)", ""]
        if not state.owner:
            return "\n".join(out)
        try:
            convs = self.keeper.store.list_conversations(state.owner, SIDEBAR_ITEMS)
            quotes = self.keeper.store.list_recommendations(state.owner, SIDEBAR_ITEMS)
        except StoreUnavailable:
            return "\n".join(out)
        out += [f"**{t('recent', lang)}**", ""]
        out += [f"- [{_link_text(c.title)}](?c={c.id}) · {stored_at(c.updated_at)}" for c in convs] or [t("none", lang)]
        out += ["", f"**{t('quotes', lang)}**", ""]
        out += [f"- [{_link_text(q.question)}](quote/{q.quote_id}.md) · [JSON](quote/{q.quote_id}.json) · "
                f"{stored_at(q.created_at)}" for q in quotes] or [t("none", lang)]
        return "\n".join(out)


def _link_text(text: str) -> str:
    text = " ".join((text or "…").split())[:60]
    return "".join(ch for ch in text if ch not in "[]()<>*_`\\|#!") or "…"


# -------------------------------------------------------------------------------------------------------------
# Quotes at permanent links


def quote_for(keeper: Keeper, quote_id: str) -> QuoteRecord | None:
    return freeze_quote(keeper.store, quote_id)


class StoredQuotes:
    """ASGI middleware serving `GET /quote/<id>.md|.json` from the store; behind a login only to the quote's
    owner (or, for a Slack conversation's quote, any logged-in user). Unknown, malformed or foreign ids all get
    the same 404."""

    def __init__(self, app: Any, keeper: Keeper, auth: bool = False) -> None:
        self.app, self.keeper, self.auth = app, keeper, auth

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = str(scope.get("path", "")) if scope.get("type") == "http" else ""
        if "/quote/" not in path or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        from starlette.concurrency import run_in_threadpool  # optional dependency: starlette only with the web extra

        name = path.rsplit("/quote/", 1)[1]
        quote_id, _, ext = name.rpartition(".")
        status, ctype, body = 404, "text/plain; charset=utf-8", b"quote not found"
        user = _gradio_user(scope) if self.auth else ""
        if self.auth and not user:
            status, body = 401, b"login required"
        elif ext in ("md", "json") and plausible_id(quote_id):
            try:
                quote = await run_in_threadpool(quote_for, self.keeper, quote_id)
                allowed = quote is not None and (not self.auth or quote.owner == f"user:{user}"
                                                 or await run_in_threadpool(self._from_slack, quote))
                if quote is not None and allowed:
                    status = 200
                    ctype = "text/markdown; charset=utf-8" if ext == "md" else "application/json"
                    body = (quote.markdown if ext == "md" else quote.json).encode()
            except StoreUnavailable:
                status, body = 503, b"the conversation store is unavailable; try again shortly"
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", ctype.encode()), (b"content-length", str(len(body)).encode()),
                                (b"x-content-type-options", b"nosniff"), (b"cache-control", b"private")]})
        await send({"type": "http.response.body", "body": body if scope.get("method") == "GET" else b""})

    def _from_slack(self, quote: QuoteRecord) -> bool:
        record = self.keeper.get(quote.conversation_id)
        return record is not None and record.source == "slack"


def _gradio_user(scope: Mapping[str, Any]) -> str:
    """The logged-in Gradio user of this request (its access-token cookie), or ""."""
    from starlette.requests import Request  # optional dependency: starlette only with the web extra

    apps = [scope.get("app")]
    for route in getattr(scope.get("app"), "routes", []) or []:  # Gradio mounted inside another app
        apps.append(getattr(route, "app", None))
    cookies = Request(dict(scope)).cookies
    for app in apps:
        tokens, cookie_id = getattr(app, "tokens", None), getattr(app, "cookie_id", None)
        if isinstance(tokens, dict) and cookie_id:
            token = cookies.get(f"access-token-{cookie_id}") or cookies.get(f"access-token-unsecure-{cookie_id}")
            if token and token in tokens:
                return str(tokens[token])
    return ""


# -------------------------------------------------------------------------------------------------------------
# Start-up and the page


def open_web_store(env: Mapping[str, str] | None = None) -> Any:
    """The configured store (`advisor.store.open_store`), retention applied; None when set to `memory`. Raises
    StoreError / StoreUnavailable (the CLI prints one line and exits 2) when it cannot be used."""
    return open_server_store(env)


def attach_history(gr: Any, demo: Any, ctl: StoredChatController, *, session: Any, lang: Any, chat_event: Any,
                   new: Any, chat_outputs: list[Any], panel_outputs: list[Any],
                   panel_values: Callable[[SessionState, str], tuple[Any, ...]]) -> None:
    """Add the history sidebar, the `?c=` handling and the `/open` API endpoint to the page being built."""
    with gr.Sidebar(open=False, position="left", elem_id="history-sidebar"):
        history = gr.Markdown(t("none", "en"), elem_id="history")
    conv_box = gr.Textbox(visible=False, label="conversation", elem_id="conversation-id")
    cid_in = gr.Textbox(visible=False, label="conversation_id")
    opener = gr.Button(visible=False)

    def side(state: Any, ui_lang: str) -> tuple[str, str]:
        st = session_of(state)
        return ctl.sidebar(st, ui_lang), st.conversation_id or ""

    def opened(cid: Any, ui_lang: str, request: Any) -> tuple[Any, ...]:
        owner = owner_of(request, ctl.auth)
        ui_lang = ui_lang if ui_lang in R.LANGS else "en"
        try:
            st = ctl.open(cid, owner, ui_lang) if cid else None
        except StoreUnavailable:
            log.warning("conversation store unavailable while opening a conversation")
            st = None
        raw: dict[str, Any] | None
        if st is None:
            st = SessionState(owner=owner)
            if cid:
                st.history = [R.assistant_message(t("not_found", ui_lang))]
            raw = {"error": "not found", "conversation_id": None} if cid else None
        else:
            raw = st.last_raw or {"conversation_id": st.conversation_id, "saved": True}
        md, js = ctl.export_files(st, ui_lang)
        return (list(st.history), st, ctl.mode_text(st, ui_lang, st.last_turn), md, js, raw,
                ctl.sidebar(st, ui_lang), st.conversation_id or "")

    def open_api(cid: str, ui_lang: str, request: Any) -> tuple[Any, ...]:
        return opened(cid, ui_lang, request)

    def on_load(ui_lang: str, request: Any) -> tuple[Any, ...]:
        query = getattr(request, "query_params", None) or {}
        return opened(query.get("c") if hasattr(query, "get") else None, ui_lang, request)

    open_api.__annotations__["request"] = on_load.__annotations__["request"] = gr.Request

    def panels(ui_lang: str, state: Any) -> tuple[Any, ...]:
        return panel_values(session_of(state), ui_lang if ui_lang in R.LANGS else "en")

    outputs = [*chat_outputs, history, conv_box]
    chat_event.then(side, inputs=[session, lang],
                    outputs=[history, conv_box], queue=False, api_visibility="private", show_progress="hidden").then(
        None, inputs=[conv_box], js=URL_JS, api_visibility="private")
    opener.click(open_api, inputs=[cid_in, lang], outputs=outputs, api_name="open", queue=False).then(
        panels, inputs=[lang, session], outputs=panel_outputs, api_visibility="private", queue=False)
    demo.load(None, js=COOKIE_JS, api_visibility="private").then(
        on_load, inputs=[lang], outputs=outputs, api_visibility="private", queue=False, show_progress="hidden").then(
        panels, inputs=[lang, session], outputs=panel_outputs, api_visibility="private", queue=False).then(
        None, inputs=[conv_box], js=URL_JS, api_visibility="private")
    new.click(None, js=NEW_JS, api_visibility="private")
