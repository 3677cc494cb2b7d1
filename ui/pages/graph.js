// Graph page (docs/ui.md "Graph"): SEARCH in every mode, an element's page
// (attributes, metadata and provenance) and its neighbourhood drawn with
// Cytoscape.js — expand a node on click, filter by predicate and type, 1–3 hops;
// a node with more links than are drawn shows their counts as one summary node.
import { api, qs, h, errorBox, elLink, cell, table, tree } from '../app.js';

// a big neighbourhood's layout: rings by depth (each spread over eight), the root in the middle
const RINGS = { name: 'concentric', concentric: n => n.data('level') ?? 0, levelWidth: () => 1, minNodeSpacing: 4, animate: false };

export async function render(main, [id]) {
  const q = h('input', { type: 'search', id: 'search-q', placeholder: 'SEARCH the memory (words, a name, a question)', size: 48 });
  const mode = h('select', { id: 'search-mode' }, ['keyword', 'semantic', 'hybrid'].map(m => h('option', { value: m }, m)));
  const what = h('select', { id: 'search-what' }, h('option', { value: 'concept' }, 'concepts'), h('option', { value: 'proposition' }, 'links'));
  const results = h('div', { id: 'search-results' });
  const run = async () => {
    if (!q.value.trim()) return;
    results.replaceChildren(h('p.muted', {}, 'Searching…'));
    const r = await api('search?' + qs({ q: q.value, mode: mode.value, what: what.value, limit: 20 }));
    if (r.error) { results.replaceChildren(errorBox(r.error)); return; }
    const rows = r.result || [];
    results.replaceChildren(
      rows.length ? table([
        { key: 'name', label: 'element', render: x => cell(x), sort: x => x.name || x.predicate },
        { key: 'type', label: 'type', sort: x => x.type || '(link)', render: x => x.type || '(link)' },
        { key: '_score', label: 'score', render: x => (x._score ?? x.metadata?._score ?? '').toString().slice(0, 6), sort: x => -(x._score ?? 0) },
      ], rows) : h('p.muted', {}, 'No element matches (or none you may see).'),
      ...(r.warnings || []).map(w => h('p.muted', {}, '⚠ ' + (w.message || JSON.stringify(w)))));
  };
  q.addEventListener('keydown', e => { if (e.key === 'Enter') run(); });
  main.append(h('div.card', {}, h('div.row', {}, q, mode, what, h('button', { id: 'search-go', onclick: run }, 'Search')), results));
  if (id) await elementView(main, id);
  else main.append(h('p.muted', {}, 'Search, then open an element to see its links.'));
}

async function elementView(main, id) {
  const r = await api('element?' + qs({ id }));
  if (r.error) { main.append(errorBox(r.error)); return; }
  const e = r.result;
  const meta = e.metadata || {};
  const title = e.predicate ? h('h2', {}, '(', elLink(e.subject), ` ${e.predicate} `, elLink(e.object), ')')
    : h('h2', {}, h('span.tag', {}, e.type), e.name);
  const facts = h('div.card', { id: 'element' }, title, h('div.muted', {}, e.id),
    h('h3', {}, 'Attributes'), tree(e.attributes || {}, 2),
    h('h3', {}, 'Provenance'), table([{ key: 'k', label: 'metadata' }, { key: 'v', label: 'value' }],
      Object.entries(meta).map(([k, v]) => ({ k, v }))),
    h('p.muted', {}, `version ${meta._version ?? '?'}, last written ${meta._updated_at ?? '?'}`));
  const hops = h('select', { id: 'hops' }, [1, 2, 3].map(n => h('option', { value: n }, n + (n > 1 ? ' hops' : ' hop'))));
  const pred = h('input', { type: 'text', id: 'filter-predicate', placeholder: 'predicate', list: 'predicates', size: 14 });
  const type = h('input', { type: 'text', id: 'filter-type', placeholder: 'neighbour type', list: 'types', size: 14 });
  const per = h('select', { id: 'per-node', title: 'links drawn per node and direction; the rest are counted' },
    [40, 200, 1000].map(n => h('option', { value: n }, n + ' links')));
  const status = h('span.muted', { id: 'graph-status' });
  const box = h('div', { id: 'graph' });
  const side = h('div.card', { id: 'selection' }, h('p.muted', {}, 'Click a node to expand it; its facts show here.'));
  main.append(h('div.cols', {}, h('div', {}, facts, side),
    h('div', {}, h('div.row', {}, hops, per, pred, type, h('button', { id: 'redraw', onclick: () => draw() }, 'Draw'), status), box)));
  // completion of filters from the schema
  api('describe').then(d => {
    if (d.error) return;
    main.append(h('datalist', { id: 'predicates' }, (d.predicates || []).map(p => h('option', { value: p }))),
      h('datalist', { id: 'types' }, (d.concept_types || []).map(t => h('option', { value: t }))));
  });
  let cy = null;
  const seen = new Set();
  const addTo = (elements, g) => {
    for (const n of g.nodes) if (!seen.has(n.id)) {
      seen.add(n.id);
      // a big neighbourhood is drawn as rings: each depth spread over eight of them
      const level = n.depth === 0 ? 1000 : 1000 - n.depth * 10 - (seen.size % 8);
      elements.push({ group: 'nodes', data: { id: n.id, label: n.label, type: n.type, depth: n.depth, level, root: n.depth === 0 && n.id === id ? 1 : 0 } });
    }
    for (const l of g.edges) if (!seen.has(l.id)) {
      seen.add(l.id);
      elements.push({ group: 'edges', data: { id: l.id, source: l.source, target: l.target, label: l.predicate } });
    }
    for (const m of g.more || []) {
      const mid = `more:${m.node}:${m.direction}:${m.predicate}`;
      if (seen.has(mid)) continue;
      seen.add(mid);
      elements.push({ group: 'nodes', data: { id: mid, label: `+${m.count} ${m.predicate}`, summary: 1 } });
      elements.push({ group: 'edges', data: { id: 'e' + mid, source: m.direction === 'out' ? m.node : mid, target: m.direction === 'out' ? mid : m.node, label: m.predicate, summary: 1 } });
    }
    return elements;
  };
  const fetchHood = (nid, n) => api('neighbourhood?' + qs({ id: nid, hops: n, per_node: per.value, predicate: pred.value.trim(), type: type.value.trim() }));
  const show = async (nid) => {
    if (nid.startsWith('more:')) { side.replaceChildren(h('p', {}, 'Summarised links: filter by their predicate to see them.')); return; }
    const x = await api('element?' + qs({ id: nid }));
    side.replaceChildren(x.error ? errorBox(x.error) : h('div', {}, h('h3', {}, cell(x.result)), tree(x.result.attributes || {}, 1),
      h('p', {}, h('a.el', { href: '#/graph/' + encodeURIComponent(nid) }, 'open its page'))));
  };
  async function draw() {
    const t0 = performance.now();
    status.textContent = 'reading…';
    const g = await fetchHood(id, hops.value);
    if (g.error) { status.replaceChildren(errorBox(g.error)); return; }
    seen.clear();
    const els = addTo([], g.result);
    const t1 = performance.now();
    if (typeof window.cytoscape !== 'function') {
      box.replaceChildren(h('p.muted', {}, 'The drawing library is not installed (scripts/setup-deps BUILD_DIR); the links as a list:'),
        table([{ key: 'source' }, { key: 'label', label: 'predicate' }, { key: 'target' }], els.filter(x => x.group === 'edges').map(x => x.data)));
    } else {
      if (cy) cy.destroy();
      const big = els.length > 400;
      cy = window.cytoscape({
        container: box, elements: els, wheelSensitivity: 0.3,
        style: [
          { selector: 'node', style: { label: big ? '' : 'data(label)', 'font-size': 10, width: 14, height: 14, 'background-color': '#7d8aa5' } },
          { selector: 'node[root = 1]', style: { 'background-color': '#2f5fd0', width: 22, height: 22, label: 'data(label)' } },
          { selector: 'node[summary = 1]', style: { shape: 'round-rectangle', 'background-color': '#fff', 'border-width': 1, 'border-style': 'dashed', 'border-color': '#7d8aa5', label: 'data(label)', width: 'label', padding: 4 } },
          { selector: 'node:selected', style: { 'background-color': '#b05a00', label: 'data(label)' } },
          { selector: 'edge', style: { width: 1, 'line-color': '#c3c9d5', 'curve-style': big ? 'haystack' : 'bezier', 'target-arrow-shape': big ? 'none' : 'triangle', 'target-arrow-color': '#c3c9d5', label: big ? '' : 'data(label)', 'font-size': 8, color: '#6b7385' } },
        ],
        layout: big ? RINGS
          : { name: 'cose', animate: false, randomize: false, numIter: 400 },
      });
      if (cy.zoom() > 1.3) { cy.zoom(1.3); cy.center(); } // a few nodes: not blown up
      box.__cy = cy; // for the browser test, which clicks nodes where they are drawn
      cy.on('tap', 'node', async (ev) => {
        const nid = ev.target.id();
        show(nid);
        if (nid.startsWith('more:') || ev.target.data('expanded')) return;
        ev.target.data('expanded', 1);
        const more = await fetchHood(nid, 1);
        if (more.error) return;
        const added = addTo([], more.result);
        if (added.length) {
          cy.add(added);
          cy.layout(RINGS).run();
        }
        box.dataset.nodes = cy.nodes().length;
      });
    }
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); // painted
    const t2 = performance.now();
    const nodes = els.filter(x => x.group === 'nodes').length;
    box.dataset.nodes = nodes;
    box.dataset.renderMs = Math.round(t2 - t1);
    box.dataset.totalMs = Math.round(t2 - t0);
    status.textContent = `${nodes} nodes, ${els.length - nodes} links${g.result.truncated ? ' (capped)' : ''} · read ${Math.round(t1 - t0)} ms, drawn ${Math.round(t2 - t1)} ms`;
  }
  await draw();
}
