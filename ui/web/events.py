"""The web page's events: Enter/Send shows the user's message at once (outside the queue), then `/chat` (queued;
streaming in LLM mode, one update in deterministic mode) answers and updates the mode, exports and turn JSON, then
a private refresh redraws the chart, table, findings and plots from the session's latest recommendation. The
language toggle relabels the page; `/?q=…` pre-fills the question box.

Gradio reads each handler's annotations at run time (`typing.get_type_hints`) to find its `gr.Request` parameter,
so the handlers' annotations name only what this module imports at run time; `request` is annotated with
`gr.Request` once gradio is imported (`PageEvents.__init__`). The handlers' inputs and outputs are typed `Any`:
Gradio passes the components' values (a State's value is whatever the page stored) and takes its update dicts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ui.web import render as R
from ui.web.chat import ChatController, SessionState, message_lang, prefill_question, session_of
from ui.web.cost_chart import cost_chart_html
from ui.web.layout import CHAT_KEYS, CONTEXT_COLUMNS, Page, axis_title, color_map
from ui.web.memory_chart import memory_chart_html
from ui.web.page import LOAD_JS, REMEMBER_LANG_JS, SCROLL_TO_ANSWER_JS, TRASH_STARTS_NEW_JS

if TYPE_CHECKING:
    import gradio as gr
    from gradio.events import Dependency


def current_chart(rows: list[dict[str, Any]], ui_lang: str) -> Any:
    """The memory chart's update for this turn: its bars with a legend of only their parts (training: weights,
    gradients, optimizer states, activations; serving: the KV cache) in `ui_lang`, and no chart at all when the
    turn has none (a market or legality answer)."""
    import gradio as gr  # optional dependency: gradio only with the web extra

    L = R.label
    chart = memory_chart_html(rows, color_map(), title=L("memory_chart", ui_lang),
                              caption=L("memory_caption", ui_lang), y_title=axis_title("gib", ui_lang))
    return gr.update(value=chart, visible=bool(chart))


class PageEvents:
    """The page's event handlers over one controller; `wire` attaches them to the page's components."""

    def __init__(self, ctl: ChatController) -> None:
        import gradio as gr  # optional dependency: gradio only with the web extra
        import pandas as pd  # no stubs: pyproject.toml lets mypy skip pandas

        self.ctl, self.pd = ctl, pd
        for handler in (PageEvents.chat, PageEvents.chat_once, PageEvents.prefill):
            handler.__annotations__["request"] = gr.Request  # resolved here: this module postpones annotations

    def frame(self, rows: list[dict[str, Any]], columns: list[str]) -> Any:
        """A plot's rows as the DataFrame Gradio's plots take."""
        return self.pd.DataFrame(rows, columns=columns)

    def take(self, text: str, state: Any, ui_lang: str) -> tuple[Any, ...]:
        """Clear the box and show the question at once, with a "working" line, while the turn waits/runs; a question
        in the other language switches the page to it (the answer comes in the question's language, so the panels
        and labels follow it, as a `?q=` link's question does in `prefill`)."""
        import gradio as gr  # optional dependency: gradio only with the web extra

        st = session_of(state)
        text = text if isinstance(text, str) else ""
        lang = message_lang(text, ui_lang) if text.strip() else ui_lang
        shown = [*st.history, R.user_message(text, lang), R.pending_message(lang)]
        return "", text, shown, (gr.update(value=lang) if lang != ui_lang else gr.update())

    def chat(self, message: str, ui_lang: str, state: Any = None, request: Any = None) -> Iterator[tuple[Any, ...]]:
        """`/chat`: the turn's updates, each as the `CHAT_KEYS` outputs."""
        ctl, st = self.ctl, session_of(state)
        identify = getattr(ctl, "identify", None)  # the stored controller's (ui/web/store.py)
        if identify is not None:
            identify(st, request)
        exports = st.exports or (None, None)
        current: dict[str, Any] = {"mode": ctl.mode_text(st, ui_lang, st.last_turn), "raw": st.last_raw,
                                   "export_md": exports[0], "export_json": exports[1]}
        for update in ctl.turn(message, st, ui_lang):
            current.update(update)
            current.setdefault("state", st)
            yield tuple(current[k] for k in CHAT_KEYS)

    def chat_once(self, message: str, ui_lang: str, state: Any = None, request: Any = None) -> tuple[Any, ...]:
        """`chat` without streaming: a deterministic turn takes milliseconds and updates the page once, and a
        plain function saves Gradio a second copy of the outputs (its "generating" event, then "complete")."""
        last: tuple[Any, ...] = ()
        for last in self.chat(message, ui_lang, state, request):  # noqa: B007 (the last update is the answer)
            pass
        return last

    def panel_values(self, st: SessionState, ui_lang: str) -> tuple[Any, ...]:
        """The `Page.panel_outputs` values for the session's latest recommendation: the memory chart and the
        price-vs-throughput chart as updates that hide them when the turn has nothing to draw."""
        import gradio as gr  # optional dependency: gradio only with the web extra

        p = self.ctl.panels(st, ui_lang)
        extra = self.ctl.exports.extra_paths(self.ctl.export_files(st, ui_lang)[0])  # print-ready HTML, PDF
        memory = current_chart(p["memory"], ui_lang)
        cost = cost_chart_html(p["cost"], ui_lang)
        context = gr.update(value=self.frame(p["context"], CONTEXT_COLUMNS), visible=bool(p["context"]))
        return (memory, p["table"], p["findings"], context, gr.update(value=cost, visible=bool(cost)), *extra)

    def refresh(self, ui_lang: str, state: Any) -> tuple[Any, ...]:
        return self.panel_values(session_of(state), ui_lang)

    def reset(self, ui_lang: str) -> tuple[Any, ...]:
        fresh = SessionState()
        return ([], fresh, self.ctl.mode_text(fresh, ui_lang), None, None, None, *self.panel_values(fresh, ui_lang))

    def relabel(self, ui_lang: str, state: Any) -> tuple[Any, ...]:
        """The `Page.relabel_outputs` updates in `ui_lang`."""
        import gradio as gr  # optional dependency: gradio only with the web extra

        ctl, L = self.ctl, R.label
        ui_lang = ui_lang if ui_lang in R.LANGS else "en"
        st = session_of(state)
        mem, tab, fin, ctx, cst, html_path, pdf_path = self.panel_values(st, ui_lang)  # the charts: updates
        md_path, json_path = ctl.export_files(st, ui_lang)
        return (
            ctl.mode_text(st, ui_lang, st.last_turn),
            {**mem, "label": L("memory_chart", ui_lang)},
            gr.update(value=tab, label=L("options", ui_lang)),
            gr.update(value=fin, label=L("findings", ui_lang)),
            {**ctx, "label": L("context_plot", ui_lang), "x_title": axis_title("context", ui_lang),
             "y_title": axis_title("gib", ui_lang), "color_title": axis_title("series", ui_lang)},
            {**cst, "label": L("cost_plot", ui_lang)},
            gr.update(value=md_path, label=L("export_md", ui_lang)),
            gr.update(value=json_path, label=L("export_json", ui_lang)),
            gr.update(value=html_path, label=L("export_html", ui_lang)),
            gr.update(value=pdf_path, label=L("export_pdf", ui_lang)),
            gr.update(value=f"## {L('title', ui_lang)}\n{L('subtitle', ui_lang)}"),
            gr.update(label=L("chat", ui_lang)),
            gr.update(placeholder=L("placeholder", ui_lang), label=L("input", ui_lang)),
            gr.update(value=L("send", ui_lang)),
            gr.update(value=L("new", ui_lang)),
            gr.update(label=L("examples", ui_lang)),
            gr.update(label=L("context_plot", ui_lang)),
            gr.update(label=L("cost_plot", ui_lang)),
            gr.update(label=L("raw", ui_lang)),
        )

    def prefill(self, request: Any) -> tuple[Any, ...]:
        """`/?q=…` (the Slack bot's "open in the web app" link) puts the question in the box, unsent."""
        import gradio as gr  # optional dependency: gradio only with the web extra

        params = getattr(request, "query_params", None) or {}
        q = prefill_question(params)
        if not q:
            return gr.update(), gr.update()
        if params.get("lang") in R.LANGS:  # the page's own language (?lang=, LOAD_JS) wins over the question's
            return gr.update(value=q), gr.update()
        return gr.update(value=q), gr.update(value=message_lang(q, "en"))

    def wire(self, demo: gr.Blocks, page: Page, *, concurrency: int) -> Dependency:
        """Attach the handlers to the page's events; returns the chat event (Enter/Send, then `/chat`, then the
        refresh), which the conversation store's history extends."""
        import gradio as gr  # optional dependency: gradio only with the web extra

        p = page
        streaming = self.ctl.startup_mode()[0] == "llm"  # model turns take seconds: show their steps as they come
        quiet: dict[str, Any] = {"api_visibility": "private", "queue": False}
        shown = gr.on([p.box.submit, p.send.click], self.take, inputs=[p.box, p.session, p.lang],
                      outputs=[p.box, p.pending, p.chatbot, p.lang], show_progress="hidden", **quiet)
        chat_event: Dependency = shown.then(
            None, js=SCROLL_TO_ANSWER_JS, **quiet).then(
            self.chat if streaming else self.chat_once, inputs=[p.pending, p.lang, p.session],
            outputs=p.chat_outputs, api_name="chat", show_progress="hidden", concurrency_limit=concurrency,
            concurrency_id="chat").then(
            None, js=SCROLL_TO_ANSWER_JS, **quiet).then(
            self.refresh, inputs=[p.lang, p.session], outputs=p.panel_outputs, show_progress="hidden", **quiet)
        p.new.click(self.reset, inputs=[p.lang], outputs=p.chat_outputs + p.panel_outputs, show_progress="hidden",
                    **quiet)
        p.lang.change(self.relabel, inputs=[p.lang, p.session], outputs=p.relabel_outputs, show_progress="hidden",
                      **quiet)
        p.lang.change(None, inputs=[p.lang], js=REMEMBER_LANG_JS, **quiet)  # the cookie and ?lang= keep it
        p.chatbot.clear(None, js=TRASH_STARTS_NEW_JS, **quiet)  # the trash icon starts a new conversation
        demo.load(None, inputs=None, outputs=[p.lang], js=LOAD_JS, **quiet).then(
            self.prefill, inputs=None, outputs=[p.box, p.lang], show_progress="hidden", **quiet)
        return chat_event
