// Console page (docs/ui.md "Console"): a KIP editor highlighted from the
// grammar's keywords, completing types and predicates from DESCRIBE; results
// as sortable tables with cursor paging, errors with a caret at their line and
// column, the SQL plan beside. Read-only unless the operator turned writes on.
import { api, h, errorBox, table, tree, info } from '../app.js';

let schema = null;

function esc(s) { return s.replace(/[&<>]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' }[c])); }

// the command as highlighted HTML
function highlight(text, keywords) {
  const kw = new Set(keywords.flatMap(k => k.split(' ')));
  const re = /("(?:[^"\\]|\\.)*"?)|(\/\/[^\n]*)|(\?[A-Za-z_][\w]*)|(:[A-Za-z_][\w]*)|(-?\b\d+(?:\.\d+)?\b)|([A-Za-z_$][\w$]*)|([\s\S])/g;
  let out = '', m;
  while ((m = re.exec(text))) {
    if (m[1]) out += `<span class="hl-str">${esc(m[1])}</span>`;
    else if (m[2]) out += `<span class="hl-com">${esc(m[2])}</span>`;
    else if (m[3]) out += `<span class="hl-var">${esc(m[3])}</span>`;
    else if (m[4]) out += `<span class="hl-param">${esc(m[4])}</span>`;
    else if (m[5]) out += `<span class="hl-num">${esc(m[5])}</span>`;
    else if (m[6]) out += kw.has(m[6]) ? `<span class="hl-kw">${esc(m[6])}</span>` : esc(m[6]);
    else out += esc(m[7]);
  }
  return out + '\n';
}

// a FIND's columnar result as rows: [{c0, c1, ...}] and the column names
function rowsOf(result, command) {
  const m = /FIND\s*\(([\s\S]*?)\)\s*WHERE/i.exec(command);
  const names = m ? m[1].split(',').map(s => s.trim()) : [];
  if (!Array.isArray(result)) return null;
  if (names.length > 1 && result.every(Array.isArray)) {
    const n = Math.max(0, ...result.map(c => c.length));
    const rows = [];
    for (let i = 0; i < n; i++) { const r = {}; result.forEach((c, j) => r['c' + j] = c[i]); rows.push(r); }
    return { rows, cols: names.map((nm, j) => ({ key: 'c' + j, label: nm })) };
  }
  return { rows: result.map(v => ({ c0: v })), cols: [{ key: 'c0', label: names[0] || 'result' }] };
}

export async function render(main) {
  if (!schema) schema = await api('describe');
  const keywords = schema.keywords || [];
  const words = [...new Set([...(schema.keywords || []), ...(schema.concept_types || []), ...(schema.predicates || [])])];
  const ta = h('textarea', { id: 'kip-command', spellcheck: 'false', rows: 6, 'aria-label': 'KIP command' });
  ta.value = sessionStorage.getItem('kip-console') || 'FIND(?t.name) WHERE { ?t {type: "$ConceptType"} } ORDER BY ?t.name LIMIT 20';
  const pre = h('pre', { 'aria-hidden': 'true' });
  const suggest = h('div.suggest', { id: 'suggest', hidden: true });
  const editor = h('div.editor', {}, pre, ta, suggest);
  const params = h('input', { type: 'text', id: 'kip-params', placeholder: 'parameters as JSON, e.g. {"name": "Ana"}', size: 50 });
  const out = h('div', { id: 'console-result' });
  const plan = h('div.card', { id: 'console-plan', hidden: true });
  const paint = () => { pre.innerHTML = highlight(ta.value, keywords); pre.scrollTop = ta.scrollTop; };
  ta.addEventListener('input', () => { paint(); complete(); });
  ta.addEventListener('scroll', () => { pre.scrollTop = ta.scrollTop; });
  let choices = [], on = 0;
  function wordBefore() {
    const upto = ta.value.slice(0, ta.selectionStart);
    const m = /[A-Za-z_$][\w$]*$/.exec(upto);
    return m ? m[0] : '';
  }
  function complete() {
    const w = wordBefore();
    if (w.length < 2) { suggest.hidden = true; return; }
    choices = words.filter(x => x.toLowerCase().startsWith(w.toLowerCase()) && x !== w).slice(0, 12);
    if (!choices.length) { suggest.hidden = true; return; }
    on = 0;
    suggest.replaceChildren(...choices.map((c, i) => h('div', { class: i === on ? 'on' : '', onmousedown: (e) => { e.preventDefault(); accept(c); } }, c)));
    suggest.hidden = false;
    suggest.style.left = '1em'; suggest.style.top = (ta.offsetHeight - 4) + 'px';
  }
  function accept(c) {
    const w = wordBefore();
    const at = ta.selectionStart;
    ta.value = ta.value.slice(0, at - w.length) + c + ta.value.slice(at);
    ta.selectionStart = ta.selectionEnd = at - w.length + c.length;
    suggest.hidden = true; paint(); ta.focus();
  }
  ta.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); return; }
    if (suggest.hidden) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      on = (on + (e.key === 'ArrowDown' ? 1 : choices.length - 1)) % choices.length;
      [...suggest.children].forEach((d, i) => d.className = i === on ? 'on' : '');
    } else if (e.key === 'Tab') { e.preventDefault(); accept(choices[on]); }
    else if (e.key === 'Escape') suggest.hidden = true;
  });
  ta.addEventListener('blur', () => setTimeout(() => { suggest.hidden = true; }, 150));

  function parsedParams() {
    if (!params.value.trim()) return {};
    try { return JSON.parse(params.value); } catch (e) { throw new Error('the parameters are not JSON: ' + e.message); }
  }
  async function run(cursor) {
    let p;
    try { p = parsedParams(); } catch (e) { out.replaceChildren(errorBox({ code: 'KIP_1001', message: e.message })); return; }
    let command = ta.value.trim();
    sessionStorage.setItem('kip-console', command);
    if (cursor) command = command.replace(/\s+CURSOR\s+("(?:[^"\\]|\\.)*"|:\w+)\s*$/i, '') + ` CURSOR "${cursor}"`;
    out.replaceChildren(h('p.muted', {}, 'Running…'));
    const t0 = performance.now();
    const r = await api('kip', { command, parameters: p });
    const ms = Math.round(performance.now() - t0);
    if (r.error) {
      const e = r.error;
      const parts = [errorBox(e)];
      if (e.line) {
        const line = command.split('\n')[e.line - 1] || '';
        parts.push(h('div.card', { id: 'caret' }, h('pre', {}, line), h('div.caret', {}, ' '.repeat(Math.max(0, (e.column || 1) - 1)) + '^'),
          h('div.muted', {}, `line ${e.line}, column ${e.column}`)));
        // put the editor's caret there too
        const lines = ta.value.split('\n');
        let at = 0;
        for (let i = 0; i < e.line - 1 && i < lines.length; i++) at += lines[i].length + 1;
        ta.focus(); ta.selectionStart = ta.selectionEnd = at + Math.max(0, (e.column || 1) - 1);
      }
      out.replaceChildren(...parts);
      return;
    }
    const shaped = /^\s*FIND\b/i.test(command) ? rowsOf(r.result, command) : null;
    const body = shaped ? table(shaped.cols, shaped.rows) : tree(r.result, 2);
    const more = r.next_cursor ? h('button.plain', { id: 'next-page', onclick: () => run(r.next_cursor) }, 'Next page') : null;
    out.replaceChildren(h('div.card', {}, h('div.row', {}, h('span.muted', {}, `${shaped ? shaped.rows.length + ' rows · ' : ''}${ms} ms`), more), body,
      ...(r.warnings || []).map(w => h('p.muted', {}, '⚠ ' + (w.message || JSON.stringify(w))))));
  }
  async function explain() {
    let p;
    try { p = parsedParams(); } catch (e) { plan.hidden = false; plan.replaceChildren(errorBox({ code: 'KIP_1001', message: e.message })); return; }
    const r = await api('explain', { command: ta.value.trim(), parameters: p });
    plan.hidden = false;
    plan.replaceChildren(h('h3', {}, 'Plan'), r.error ? errorBox(r.error) : tree(r.result, 3));
  }
  main.append(h('h2', {}, 'Console'),
    h('p.muted', {}, info.writes ? 'Writes are on: KML commands change the memory.' : 'Read-only: KML commands are refused (kip ui --writes turns writes on).'),
    editor, h('div.row', { style: 'margin-top:.6em' }, params, h('button', { id: 'run', onclick: () => run() }, 'Run (Ctrl+Enter)'),
      h('button.plain', { id: 'explain', onclick: explain }, 'Explain')), out, plan);
  paint();
}
