"""The page's own CSS and browser-side script for the web chat (no Gradio import here).

* `CSS`: readable tables at any width — chat tables scroll sideways inside their bubble instead of squeezing
  their columns to one character each, cells keep a minimum width of four
  characters (Chinese ones included: 5em less 12 px of padding) and break only between words; the side-panel
  table likewise; below 700 px the two columns stack (Gradio's rows wrap) and the chat gets the full width.
  `scroll-padding-top` keeps a scrolled-to line clear of the chat's floating "Conversation" label.
* `SCROLL_TO_ANSWER_JS`: run after each turn; scrolls the chat (and, on a phone, the page) so that the top of
  the newest answer — not its end — is what the user sees. Gradio's own autoscroll (to the bottom) is off.
"""

from __future__ import annotations

# The chat's height: 600 px, less on a short screen so that the input box below it is on screen at load (the box
# has autofocus, and a focused box out of view makes the browser scroll the page past the header).
CHAT_HEIGHT = "min(600px, calc(100vh - 260px))"

# Offset of a scrolled-to line below the top of the chat's scroll area: the floating label is ~30 px tall.
LABEL_CLEARANCE_PX = 40

CSS = f"""
#mode-badge {{font-size: 0.9em; padding: 0.2em 0.6em; border-radius: 6px; background: var(--block-background-fill);}}
#result-col .block {{margin-bottom: 0.3em;}}
#findings {{max-height: 420px; overflow-y: auto;}}
#chat .bubble-wrap {{scroll-padding-top: {LABEL_CLEARANCE_PX}px;}}
html {{scroll-padding-top: 8px;}}
#chat .message-content table, #chat .prose table {{display: block; max-width: 100%; overflow-x: auto;
  width: max-content; border-collapse: collapse;}}
#chat .prose th, #chat .prose td {{min-width: 5em; padding: 4px 6px !important; word-break: normal; overflow-wrap: normal;
  hyphens: none; vertical-align: top;}}
#chat .prose th {{white-space: nowrap;}}
#options-table table {{table-layout: auto;}}
#options-table th, #options-table td {{min-width: 5em; padding: 4px 6px !important; word-break: normal !important;
  overflow-wrap: normal !important;}}
#options-table th span, #options-table td span {{word-break: normal !important; overflow-wrap: normal !important;}}
@media (max-width: 700px) {{
  #main-row {{flex-direction: column;}}
  #main-row > div {{min-width: 100% !important; width: 100%;}}
  #header h2 {{font-size: 1.2em;}}
  #header-row {{flex-direction: column; align-items: stretch;}}
  #header-row > div {{min-width: 100% !important;}}
}}
"""

SCROLL_TO_ANSWER_JS = """
() => {
  const clearance = LABEL_CLEARANCE;
  const go = () => {
    const chat = document.querySelector('#chat');
    if (!chat) return false;
    const rows = Array.from(chat.querySelectorAll('.message-row'));
    let i = rows.length - 1;
    while (i >= 0 && !rows[i].classList.contains('user-row')) i--;
    const target = (i >= 0 && rows[i + 1]) ? rows[i + 1] : rows[rows.length - 1];
    if (!target) return false;
    const log = chat.querySelector('.bubble-wrap');
    if (log) log.scrollTop += target.getBoundingClientRect().top - log.getBoundingClientRect().top - clearance;
    const top = target.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight - 4 * clearance) window.scrollBy(0, top - clearance);
    return true;
  };
  requestAnimationFrame(() => { go(); setTimeout(go, 120); });
}
""".replace("LABEL_CLEARANCE", str(LABEL_CLEARANCE_PX))
