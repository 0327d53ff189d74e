"""The page's own CSS and browser-side script for the web chat (no Gradio import here).

* `CSS`: readable tables at any width — chat tables scroll sideways inside their bubble instead of squeezing
  their columns to one character each, cells keep a minimum width of four
  characters (Chinese ones included: 5em less 12 px of padding) and break only between words (headings too, so a
  four-column answer table fits a desktop chat column); the side-panel table likewise; the answer bubble spans the
  chat (no avatars); below 700 px the two columns stack (Gradio's rows wrap), the chat gets the full width and the answer most of
  it (narrow page margins and bubble insets).
  `scroll-padding-top` keeps a scrolled-to line clear of the chat's floating "Conversation" label.
* `SCROLL_TO_ANSWER_JS`: run after each turn; scrolls the chat (and, on a phone, the page) so that the user's
  own question stays in view with the top of the newest answer below it (the answer's start when both do not fit)
  — not the answer's end. Gradio's own autoscroll (to the bottom) is off.
* `LOAD_JS`: run once when the page loads: the interface language from `?lang=`, else the `LANG_COOKIE` cookie,
  else the browser's language (Chinese for zh-*), and the page at its top (a phone's browser would otherwise
  scroll to the focused input box below the empty chart panels).
* `REMEMBER_LANG_JS`: run when the language toggle changes: the cookie and the page's `?lang=` say the new language,
  so a reload or a conversation link keeps it.
* `TRASH_STARTS_NEW_JS`: the chat's trash icon does what "New conversation" does.
"""

from __future__ import annotations

# The chat's height: 600 px, less on a short screen so that the input box (with Send and "New conversation") below it is on screen at load (the box
# has autofocus, and a focused box out of view makes the browser scroll the page past the header).
CHAT_HEIGHT = "min(600px, calc(100vh - 260px))"

# Offset of a scrolled-to line below the top of the chat's scroll area: the floating label is ~30 px tall.
LABEL_CLEARANCE_PX = 40

CSS = f"""
#new-conversation {{white-space: normal; overflow-wrap: normal; word-break: keep-all; line-height: 1.15; font-size: 0.85em;
  padding-left: 4px; padding-right: 4px;}}  /* its two-word label wraps inside the button, not over its edge */
#mode-badge {{font-size: 0.9em; padding: 0.2em 0.6em; border-radius: 6px; background: var(--block-background-fill);}}
#result-col .block {{margin-bottom: 0.3em;}}
#findings {{max-height: 420px; overflow-y: auto;}}
#memory-chart .chart-title {{opacity: 0.8; margin-bottom: 4px;}}
#memory-chart .chart-caption {{font-size: 0.85em; margin: 4px 0 0;}}
#chat .bubble-wrap {{scroll-padding-top: {LABEL_CLEARANCE_PX}px;}}
#chat .message-buttons-right {{display: none;}}  /* no copy button under the user's own question: it sits closer */
html {{scroll-padding-top: 8px;}}
#chat .message-content table, #chat .prose table {{display: block; max-width: 100%; overflow-x: auto;
  width: max-content; border-collapse: collapse;}}
#chat .prose th, #chat .prose td {{min-width: 5em; padding: 4px 6px !important; word-break: normal; overflow-wrap: normal;
  hyphens: none; vertical-align: top;}}
#chat .prose th {{white-space: normal; word-break: keep-all;}}  /* a long heading wraps between words, never inside */
#chat .message-row.bot-row {{margin-left: 8px !important; margin-right: 8px !important;
  max-width: calc(100% - 16px) !important;}}  /* no avatars: the answer and its table get the chat's width */
#options-table table {{table-layout: auto;}}
#options-table th, #options-table td {{min-width: 5em; padding: 4px 6px !important; word-break: normal !important;
  overflow-wrap: normal !important;}}
#options-table th span, #options-table td span {{word-break: normal !important; overflow-wrap: normal !important;}}
@media (max-width: 700px) {{
  #chat {{height: min(400px, calc(100vh - 500px)) !important; min-height: 220px;}}
  #main-row {{flex-direction: column;}}
  #main-row > div {{min-width: 100% !important; width: 100%;}}
  #header h2 {{font-size: 1.2em;}}
  #header-row {{flex-direction: column; align-items: stretch;}}
  #header-row > div {{min-width: 100% !important;}}
  /* a phone's width goes to the answer: bubbles 4 px from the chat's edges (not 20); page margins: PAGE_HEAD */
  #header-row {{padding-left: 20px;}}  /* the title clear of the sidebar's toggle at the top left */
  #chat .message-row {{margin-left: 4px !important; margin-right: 4px !important; max-width: calc(100% - 8px) !important;}}
}}
"""

# Gradio scopes `CSS` inside the app's `.contain`: the page's own side margins (32 px each, a sixth of a phone's
# width) are set in the page head instead, 12 px below 700 px.
PAGE_HEAD = ("<style>@media (max-width: 700px) {.gradio-container > .main.fillable "
             "{padding-left: 12px !important; padding-right: 12px !important;}}</style>")

SCROLL_TO_ANSWER_JS = """
() => {
  const clearance = LABEL_CLEARANCE;
  const go = () => {
    const chat = document.querySelector('#chat');
    if (!chat) return false;
    const rows = Array.from(chat.querySelectorAll('.message-row'));
    let i = rows.length - 1;
    while (i >= 0 && !rows[i].classList.contains('user-row')) i--;
    const answer = (i >= 0 && rows[i + 1]) ? rows[i + 1] : rows[rows.length - 1];
    if (!answer) return false;
    const question = i >= 0 ? rows[i] : null;
    const log = chat.querySelector('.bubble-wrap');
    if (!log) return false;
    // above the answer, as much of the question as the chat's view has room for (all of it when both fit)
    const a = answer.getBoundingClientRect();
    const first = a.bottom - a.top;  // its details are folded: the answer as shown
    const spare = log.clientHeight - clearance - first - 8;
    const qh = question ? question.getBoundingClientRect().height : 0;
    // an answer taller than the view is cut anyway: keep the question's last line (40 px) above it
    const above = question ? Math.max(0, Math.min(qh + 8, spare >= 0 ? spare : 40)) : 0;
    log.scrollTop += a.top - log.getBoundingClientRect().top - clearance - above;
    const target = above > 0 ? question : answer;
    const top = Math.max(target.getBoundingClientRect().top, log.getBoundingClientRect().top);
    if (top < 0 || top > window.innerHeight - 4 * clearance) window.scrollBy(0, top - clearance);
    return true;
  };
  requestAnimationFrame(() => { go(); setTimeout(go, 120); });
}
""".replace("LABEL_CLEARANCE", str(LABEL_CLEARANCE_PX))

LANG_COOKIE = "gpu_advisor_lang"

LOAD_JS = """
() => {
  const url = new URL(location.href);
  const asked = url.searchParams.get('lang');
  const cookie = (document.cookie.match(/(?:^|; )COOKIE=([^;]*)/) || [])[1];
  const browser = (navigator.languages && navigator.languages[0]) || navigator.language || 'en';
  const lang = ['en', 'zh'].includes(asked) ? asked : ['en', 'zh'].includes(cookie) ? cookie
             : (/^zh/i.test(browser) ? 'zh' : 'en');
  const top = () => { if (document.activeElement && innerWidth < 700) document.activeElement.blur();
                      window.scrollTo(0, 0); };
  top(); requestAnimationFrame(top); setTimeout(top, 300); setTimeout(top, 900);
  return lang;
}
""".replace("COOKIE", LANG_COOKIE)

REMEMBER_LANG_JS = """
(lang) => {
  if (!['en', 'zh'].includes(lang)) return;
  document.cookie = 'COOKIE=' + lang + '; path=/; max-age=31536000; SameSite=Lax';
  const url = new URL(location.href);
  if (url.searchParams.get('lang') !== lang) { url.searchParams.set('lang', lang); history.replaceState(null, '', url); }
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
}
""".replace("COOKIE", LANG_COOKIE)

TRASH_STARTS_NEW_JS = """
() => { const b = document.querySelector('#new-conversation'); if (b) b.click(); }
"""
