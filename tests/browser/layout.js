// Measurements for tests/browser/test_web_layout.py, evaluated in the page (Playwright page.evaluate).
({
  // The newest answer's first line: its box, the viewport, the chat's scroll area and its floating label.
  firstLine: () => {
    const chat = document.querySelector('#chat');
    const rows = [...chat.querySelectorAll('.message-row')];
    let i = rows.length - 1;
    while (i >= 0 && !rows[i].classList.contains('user-row')) i--;
    const row = rows[i + 1];
    if (!row) return null;
    const body = [...row.querySelectorAll('.message-content')].find(m => !m.closest('.thought-group'));
    if (!body) return null;
    const first = body.querySelector('p, li, h1, h2, h3, table, div') || body;
    const range = document.createRange();
    range.selectNodeContents(first);
    const line = [...range.getClientRects()].find(r => r.width > 0 && r.height > 0) || first.getBoundingClientRect();
    const log = chat.querySelector('.bubble-wrap').getBoundingClientRect();
    const label = chat.querySelector('label');
    return {top: line.top, bottom: line.bottom, text: body.innerText.slice(0, 60), vh: innerHeight,
            logTop: log.top, logBottom: log.bottom, labelBottom: label ? label.getBoundingClientRect().bottom : null};
  },
  // Table cells (chat and side panel) narrower than four characters whose text runs over more than one line.
  narrowWrapped: () => {
    const canvas = document.createElement('canvas').getContext('2d');
    const bad = [];
    let seen = 0;
    for (const cell of document.querySelectorAll('#chat td, #chat th, #options-table td, #options-table th')) {
      const text = cell.innerText.trim();
      const box = cell.getBoundingClientRect();
      if (!text || box.width === 0 || box.height === 0) continue;
      seen++;
      const st = getComputedStyle(cell);
      canvas.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
      const ch = canvas.measureText(/[\u3400-\u9fff]/.test(text) ? '中' : '0').width;
      const width = box.width - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
      const range = document.createRange();
      range.selectNodeContents(cell);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1 && width < 4 * ch) bad.push({text: text.slice(0, 30), width: Math.round(width), ch, lines: tops.size});
    }
    return {seen, bad};
  },
})
