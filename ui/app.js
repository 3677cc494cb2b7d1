// kipnexus inspector: the router and what every page shares (docs/ui.md).
// Plain ES modules, no build step; every datum comes from /api/* (kip.ui.api),
// read as the viewer the server authenticated.
const PAGES = {
  graph: () => import('./pages/graph.js'),
  console: () => import('./pages/console.js'),
  arg: () => import('./pages/arg.js'),
  sleep: () => import('./pages/sleep.js'),
  mind: () => import('./pages/mind.js'),
  policies: () => import('./pages/policies.js'),
};

export let info = {};

// GET (no body) or POST (a JSON body) to an endpoint; the decoded answer
export async function api(path, body) {
  const res = await fetch('api/' + path, body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  let data;
  try { data = await res.json(); } catch (e) { data = { error: { code: 'HTTP_' + res.status, message: res.statusText } }; }
  return data;
}

export function qs(params) {
  return Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => encodeURIComponent(k) + '=' + encodeURIComponent(v)).join('&');
}

// h('tag.class', {attr: v, onclick: fn}, ...children)
export function h(sel, attrs, ...children) {
  const [tag, ...cls] = sel.split('.');
  const el = document.createElement(tag || 'div');
  if (cls.length) el.className = cls.join(' ');
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function errorBox(e) {
  if (!e) return null;
  return h('div.card.error', { 'data-error': e.code || '' },
    h('strong', {}, (e.code || 'error') + (e.name ? ' ' + e.name : '')), ': ', e.message || '',
    e.hint ? h('div.muted', {}, e.hint) : null);
}

// a link to an element's page
export function elLink(id, label) {
  return h('a.el', { href: '#/graph/' + encodeURIComponent(id), 'data-id': id }, label || id);
}

// a value as text: elements as links, objects as JSON
export function cell(v) {
  if (v === null || v === undefined) return h('span.muted', {}, 'null');
  if (typeof v === 'object' && !Array.isArray(v) && v.id && (v.name !== undefined || v.predicate)) {
    return v.predicate ? h('span', {}, elLink(v.id, v.predicate), h('span.muted', {}, ` ${v.subject} → ${v.object}`))
      : h('span', {}, h('span.tag', {}, v.type), elLink(v.id, v.name));
  }
  if (typeof v === 'object') return h('code', {}, JSON.stringify(v));
  if (typeof v === 'string' && /^[CP]:\w+$/.test(v)) return elLink(v);
  return String(v);
}

// a table whose columns sort on click. cols: [{key, label, render?}]
export function table(cols, rows, opts = {}) {
  rows = Array.isArray(rows) ? rows : []; // an empty list may arrive as {}
  let sortKey = null, dir = 1;
  const tbody = h('tbody');
  const sortVal = (r, c) => { const v = c.sort ? c.sort(r) : r[c.key]; return v && typeof v === 'object' ? JSON.stringify(v) : v; };
  const fill = () => {
    tbody.replaceChildren(...rows.map((r, i) => h('tr', { onclick: opts.onrow ? () => opts.onrow(r, i) : null, style: opts.onrow ? 'cursor:pointer' : null },
      cols.map(c => h('td', {}, c.render ? c.render(r) : cell(r[c.key]))))));
  };
  const head = h('tr', {}, cols.map(c => h('th', {
    onclick: (ev) => {
      dir = sortKey === c.key ? -dir : 1; sortKey = c.key;
      rows.sort((a, b) => { const x = sortVal(a, c), y = sortVal(b, c); return (x === y ? 0 : (x === undefined || x === null) ? 1 : (y === undefined || y === null) ? -1 : x < y ? -1 : 1) * dir; });
      head.querySelectorAll('th').forEach(th => th.className = '');
      ev.target.className = dir > 0 ? 'sorted-asc' : 'sorted-desc';
      fill();
    },
  }, c.label || c.key)));
  fill();
  return h('table', { 'data-rows': rows.length }, h('thead', {}, head), tbody);
}

// a JSON value as an expandable tree (objects and arrays fold)
export function tree(v, open = 1) {
  if (v === null || typeof v !== 'object') return h('code', {}, JSON.stringify(v));
  const entries = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  if (!entries.length) return h('code', {}, Array.isArray(v) ? '[]' : '{}');
  const d = h('details', open > 0 ? { open: true } : {}, h('summary', {}, Array.isArray(v) ? `[${entries.length}]` : `{${entries.length}}`));
  const list = h('div', { style: 'padding-left:1em' });
  for (const [k, x] of entries) list.append(h('div', {}, h('span.muted', {}, k + ': '), tree(x, open - 1)));
  d.append(list);
  return d;
}

// a bar chart of [{label, value}] as SVG
export function bars(data, { width = 480, barH = 16 } = {}) {
  const max = Math.max(1, ...data.map(d => d.value));
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  const height = data.length * (barH + 4) + 4;
  svg.setAttribute('class', 'chart'); svg.setAttribute('viewBox', `0 0 ${width} ${height}`); // scales down with its card
  svg.style.width = '100%'; svg.style.maxWidth = width + 'px';
  data.forEach((d, i) => {
    const y = i * (barH + 4) + 2;
    const t = document.createElementNS(NS, 'text'); t.setAttribute('x', 0); t.setAttribute('y', y + barH - 4); t.textContent = d.label; svg.append(t);
    const r = document.createElementNS(NS, 'rect'); r.setAttribute('x', 160); r.setAttribute('y', y); r.setAttribute('height', barH);
    r.setAttribute('width', Math.max(1, (width - 220) * d.value / max)); r.setAttribute('fill', d.color || '#2f5fd0'); svg.append(r);
    const n = document.createElementNS(NS, 'text'); n.setAttribute('x', 165 + (width - 220) * d.value / max); n.setAttribute('y', y + barH - 4); n.textContent = d.value; svg.append(n);
  });
  return svg;
}

async function route() {
  const [, page = 'graph', ...rest] = location.hash.replace(/^#/, '').split('/');
  const main = document.getElementById('main');
  document.querySelectorAll('nav a').forEach(a => a.classList.toggle('active', a.dataset.page === page));
  const load = PAGES[page];
  if (!load) { main.replaceChildren(errorBox({ code: '404', message: 'no page ' + page })); return; }
  try {
    const mod = await load();
    main.replaceChildren();
    main.dataset.page = page;
    await mod.render(main, rest.map(decodeURIComponent));
    main.dataset.ready = page;
  } catch (e) {
    main.replaceChildren(errorBox({ code: 'UI', message: String(e && e.stack || e) }));
    console.error(e);
  }
}

async function start() {
  info = await api('info');
  if (info.error) { document.getElementById('main').replaceChildren(errorBox(info.error)); return; }
  const id = info.identity || {};
  document.getElementById('who').textContent = `${info.nexus} · ${id.user || id.actor || 'anonymous'}` +
    (id.roles && id.roles.length ? ` (${id.roles.join(', ')})` : '') + (info.operator ? ' · operator' : '') +
    (info.writes ? ' · writes on' : ' · read-only');
  window.addEventListener('hashchange', route);
  if (!location.hash) location.hash = '#/graph';
  else route();
}
start();
