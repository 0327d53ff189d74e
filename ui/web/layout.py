"""The web page's components: the header and language toggle, the chat column, and the result column beside it
(memory chart, options table, findings, export buttons, memory-vs-context and price-vs-throughput plots, the
turn's JSON). Built inside `gr.Blocks` by `ui.web.app.build_app`; the events are wired by `ui.web.events`.

Gradio is imported only inside the functions that build the page (importing this module stays cheap); its
component classes type the `Page`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from knowledge.messages import t
from ui.web import render as R

if TYPE_CHECKING:
    import gradio as gr
    from gradio.blocks import Block
    from gradio.data_classes import JsonData
    from gradio.helpers import Examples  # what gr.Examples (a function) returns
from ui.web.page import CHAT_HEIGHT

# Outputs of the /chat endpoint (the State is not part of the API) and of the panel refresh that follows it.
CHAT_KEYS = ("chatbot", "state", "mode", "export_md", "export_json", "raw")
PANEL_KEYS = ("memory", "table", "findings", "context", "cost")
MEMORY_COLUMNS = ["option", "part", "GiB", "order"]
CONTEXT_COLUMNS = ["context", "series", "GiB"]
COST_COLUMNS = ["option", "price", "currency", "tokens_per_s"]

def axis_title(axis: str, lang: str) -> str:
    """A plot axis's title ("gib", "context", "series") in `lang`, from the message catalogs ("web.axis.AXIS")."""
    return t(f"web.axis.{axis}", lang)


def color_map() -> dict[str, str]:
    """The memory chart's colour of each part, under its English and Chinese label."""
    colors = {"weights": "#4e79a7", "kv_cache": "#f28e2b", "activations": "#59a14f", "gradients": "#b07aa1",
              "optimizer_states": "#e15759", "overhead": "#9c755f", "free": "#d9d9d9"}
    return {R.PART_LABELS[p][lang]: c for p, c in colors.items() for lang in R.LANGS}


def skip_json_revalidation(component: gr.JSON) -> gr.JSON:
    """Make this `gr.JSON` send our turn's JSON without Gradio re-validating every value of it: `gr.JSON.postprocess`
    builds a pydantic `JsonData` whose recursive `JsonValue` check costs ~1.9 ms for a 40 KB turn (py-spy, under
    load), and the value is ours, already JSON-shaped. The orjson round trip (dates and paths to strings) is kept;
    the browser and the API see the same component and data. (An instance override, not a subclass: Gradio's
    component metaclass writes a `.pyi` stub beside the module that defines a subclass.)"""
    import orjson
    from gradio.data_classes import JsonData  # optional dependency: gradio only with the web extra

    general = component.postprocess

    def postprocess(value: dict[Any, Any] | list[Any] | str | None) -> JsonData | None:
        if not isinstance(value, dict):
            return general(value)
        text = orjson.dumps(value, default=str, option=orjson.OPT_PASSTHROUGH_DATETIME)  # dates as Gradio writes them
        return JsonData.model_construct(root=orjson.loads(text))

    component.__dict__["postprocess"] = postprocess  # this instance only
    return component


class Page(msgspec.Struct):
    """The page's components, by name."""

    session: gr.State
    header: gr.Markdown
    lang: gr.Radio
    mode_md: gr.Markdown
    chatbot: gr.Chatbot
    box: gr.Textbox
    send: gr.Button
    pending: gr.Textbox
    examples: Examples
    new: gr.Button
    memory: gr.HTML
    table: gr.Dataframe
    findings: gr.Markdown
    export_md: gr.DownloadButton
    export_json: gr.DownloadButton
    export_html: gr.DownloadButton
    export_pdf: gr.DownloadButton
    ctx_tab: gr.Tab
    context: gr.LinePlot
    cost_tab: gr.Tab
    cost: gr.HTML
    raw_acc: gr.Accordion
    raw: gr.JSON

    @property
    def chat_outputs(self) -> list[Block]:
        """What `/chat` updates, in `CHAT_KEYS` order."""
        return [self.chatbot, self.session, self.mode_md, self.export_md, self.export_json, self.raw]

    @property
    def panel_outputs(self) -> list[Block]:
        """What the refresh after a turn updates: `PANEL_KEYS`, then the print-ready HTML and PDF exports."""
        return [self.memory, self.table, self.findings, self.context, self.cost, self.export_html, self.export_pdf]

    @property
    def relabel_outputs(self) -> list[Block]:
        """What the language toggle relabels, in `ui.web.events.PageEvents.relabel`'s order."""
        return [self.mode_md, self.memory, self.table, self.findings, self.context, self.cost, self.export_md,
                self.export_json, self.export_html, self.export_pdf, self.header, self.chatbot, self.box, self.send,
                self.new, self.examples.dataset, self.ctx_tab, self.cost_tab, self.raw_acc]


def build_page(mode_badge: str, session_ttl_s: float) -> Page:
    """The page's components in their rows and columns (call inside `gr.Blocks`), labelled in English."""
    import gradio as gr  # optional dependency: gradio only with the web extra

    L = R.label
    session = gr.State(None, time_to_live=session_ttl_s)
    with gr.Row(equal_height=True, elem_id="header-row"):
        header = gr.Markdown(f"## {L('title')}\n{L('subtitle')}", elem_id="header")
        lang = gr.Radio([("English", "en"), ("中文", "zh")], value="en", label="Language · 界面语言", scale=0,
                        min_width=220, elem_id="ui-lang")
    mode_md = gr.Markdown(mode_badge, elem_id="mode-badge")
    with gr.Row(elem_id="main-row"):
        with gr.Column(scale=4, min_width=380):
            chat = _chat_column()
        with gr.Column(scale=5, min_width=360, elem_id="result-col"):
            result = _result_column()
    return Page(session=session, header=header, lang=lang, mode_md=mode_md, **chat, **result)


def _chat_column() -> dict[str, Any]:
    import gradio as gr  # optional dependency: gradio only with the web extra

    L = R.label
    chatbot = gr.Chatbot(label=L("chat"), height=CHAT_HEIGHT, elem_id="chat", sanitize_html=True,
                         render_markdown=True, allow_tags=False, latex_delimiters=[],
                         feedback_options=None, buttons=["copy"], autoscroll=False)
    with gr.Row():
        box = gr.Textbox(show_label=False, placeholder=L("placeholder"), lines=1, max_lines=6,
                         scale=8, autofocus=True, elem_id="ask", label=L("input"))
        send = gr.Button(L("send"), variant="primary", scale=1, min_width=80, elem_id="send")
        # beside the input, so it is in view wherever the input is (not below the examples)
        new = gr.Button(L("new"), variant="secondary", scale=1, min_width=80, elem_id="new-conversation")
    pending = gr.Textbox(visible=False, label="message")
    examples = gr.Examples(R.EXAMPLES, inputs=[box], label=L("examples"), examples_per_page=10)
    return {"chatbot": chatbot, "box": box, "send": send, "pending": pending, "examples": examples, "new": new}


def _result_column() -> dict[str, Any]:
    import gradio as gr  # optional dependency: gradio only with the web extra

    L = R.label
    parts: dict[str, Any] = {
        # drawn here (ui/web/memory_chart.py): its legend names only this turn's parts and wraps on a phone
        "memory": gr.HTML("", label=L("memory_chart"), elem_id="memory-chart", visible=False, js_on_load=None,
                          container=True, padding=True),
        "table": gr.Dataframe(R.options_table([], "en"), label=L("options"), interactive=False, wrap=True,
                              elem_id="options-table", max_height=360),  # widths: ui/web_page.CSS
        "findings": gr.Markdown(L("no_result"), label=L("findings"), elem_id="findings",
                                container=True, show_label=True),
    }
    for pair in (("md", "json"), ("html", "pdf")):
        with gr.Row():
            for kind in pair:
                parts[f"export_{kind}"] = gr.DownloadButton(L(f"export_{kind}"), value=None, size="sm",
                                                            elem_id=f"export-{kind}")
    with gr.Tabs():
        with gr.Tab(L("context_plot"), id="ctx") as parts["ctx_tab"]:
            parts["context"] = gr.LinePlot(None, x="context", y="GiB", color="series", label=L("context_plot"),
                                           x_title=axis_title("context", "en"), y_title=axis_title("gib", "en"),
                                           color_title=axis_title("series", "en"), elem_id="context-plot")
        with gr.Tab(L("cost_plot"), id="cost") as parts["cost_tab"]:
            # drawn here (ui/web/cost_chart.py): labelled points, the legend inside, few compact ticks
            parts["cost"] = gr.HTML("", label=L("cost_plot"), elem_id="cost-plot", visible=False,
                                    js_on_load=None, container=True, padding=True)
    with gr.Accordion(L("raw"), open=False) as parts["raw_acc"]:
        parts["raw"] = skip_json_revalidation(gr.JSON(label="turn", elem_id="raw-json"))
    return parts
