// ARG page (docs/ui.md "ARG"): episodes with filters; an episode's ten steps
// (seed 003 §2) with the decision each recorded, the traversal drawn on the
// ontology, the bundle's text, the action and its status, and a replay diff;
// the offline loop's candidates, versions (with content diffs), publish and
// rollback. The registry is the operator's: other viewers are told so.
import { api, qs, h, errorBox, table, tree, bars } from '../app.js';

const OUTCOMES = ['', 'ANSWER', 'ACTION', 'CLARIFY', 'ABSTAIN', 'REFUSE', 'REFOCUS'];
const tagOf = o => ({ ANSWER: 'ok', ACTION: 'ok', REFUSE: 'bad', ABSTAIN: 'warn', CLARIFY: 'warn', REFOCUS: 'warn' }[o] || '');

export async function render(main, [what, id]) {
  if (what === 'episode' && id) return episode(main, id);
  if (what === 'offline') return offline(main);
  if (what === 'version' && id) return version(main, id);
  const outcome = h('select', { id: 'f-outcome' }, OUTCOMES.map(o => h('option', { value: o }, o || 'any outcome')));
  const label = h('input', { type: 'text', id: 'f-label', placeholder: 'label', size: 18 });
  const since = h('input', { type: 'text', id: 'f-since', placeholder: 'since (ISO time)', size: 18 });
  const caller = h('input', { type: 'text', id: 'f-caller', placeholder: 'caller or flag', size: 14 });
  const list = h('div', { id: 'episodes' });
  const chart = h('div.card', { id: 'outcome-chart' });
  const load = async () => {
    const r = await api('arg/episodes?' + qs({ outcome: outcome.value, label: label.value, since: since.value, limit: 200 }));
    if (r.error) { list.replaceChildren(errorBox(r.error)); chart.hidden = true; return; }
    const needle = caller.value.trim().toLowerCase();
    const rows = (r.result || []).filter(e => e.kind !== 'feedback').filter(e => !needle ||
      JSON.stringify(e.caller || {}).toLowerCase().includes(needle) || (e.flags || []).join(' ').toLowerCase().includes(needle));
    const counts = {};
    const perDay = {};
    for (const e of rows) {
      counts[e.outcome] = (counts[e.outcome] || 0) + 1;
      const day = (e.at || '').slice(0, 10);
      perDay[day] = (perDay[day] || 0) + 1;
    }
    chart.replaceChildren(h('h3', {}, 'Outcomes'), bars(Object.entries(counts).map(([k, v]) => ({ label: k, value: v }))),
      h('h3', {}, 'Requests per day'), bars(Object.entries(perDay).sort().map(([k, v]) => ({ label: k, value: v }))));
    list.replaceChildren(rows.length ? table([
      { key: 'at', label: 'recorded' },
      { key: 'outcome', render: e => h('span.tag.' + tagOf(e.outcome), {}, e.outcome) },
      { key: 'label' },
      { key: 'prompt', render: e => (e.prompt || '').slice(0, 90) },
      { key: 'caller', render: e => e.caller ? `${e.caller.user || ''} (${e.caller.role || ''})` : '' , sort: e => JSON.stringify(e.caller || {}) },
      { key: 'flags', render: e => (e.flags || []).map(f => h('span.tag', {}, f)) },
      { key: 'version', label: 'v' },
    ], rows, { onrow: e => { location.hash = '#/arg/episode/' + encodeURIComponent(e.id); } }) : h('p.muted', {}, 'No episode matches.'));
  };
  [outcome].forEach(x => x.addEventListener('change', load));
  [label, since, caller].forEach(x => x.addEventListener('keydown', e => { if (e.key === 'Enter') load(); }));
  main.append(h('h2', {}, 'ARG episodes ', h('a.el', { href: '#/arg/offline', style: 'font-size:13px;font-weight:400' }, 'offline loop →')),
    h('div.row', {}, outcome, label, since, caller, h('button', { onclick: load }, 'Filter')), h('div.cols', {}, chart, list));
  await load();
}

function step(n, title, body, open) {
  return h('details', { open: open || null, 'data-step': n }, h('summary', {}, `${n}. ${title}`), h('div', {}, body));
}

async function episode(main, id) {
  const r = await api('arg/episode?' + qs({ id }));
  if (r.error) { main.append(errorBox(r.error)); return; }
  const a = r.result.attributes || {};
  const d = a.decision || {};
  const w = d.weaver || {}, c = d.candidates || {}, b = d.bind || {}, t = d.traversal || {};
  const cand = (list) => table([{ key: 'label' }, { key: 'score' }], (list || []).map(x => ({ label: x.label, score: x.score })));
  // the bundle's text, read as the viewer
  const bundle = h('div', {}, h('p.muted', {}, 'reading the bundle…'));
  const nodes = (d.bundle || []).map(x => x.node).filter(Boolean);
  if (nodes.length) {
    api('kip', { command: 'FIND(?n.name, ?n.attributes.chunk) WHERE { ?n {type: "ArgNode"} FILTER(IN(?n.name, :names)) }', parameters: { names: nodes } })
      .then(x => {
        const text = {};
        if (!x.error && Array.isArray(x.result)) (x.result[0] || []).forEach((n, i) => text[n] = (x.result[1] || [])[i]);
        bundle.replaceChildren(table([{ key: 'node' }, { key: 'label' }, { key: 'source' }, { key: 'text', render: u => text[u.node] || h('span.muted', {}, 'not visible') }], d.bundle));
      });
  } else bundle.replaceChildren(h('p.muted', {}, 'No bundle (the outcome decided before one was built).'));
  const traversal = h('div', { id: 'traversal', style: 'height:260px' });
  const replayOut = h('div', { id: 'replay-result' });
  const replay = async () => {
    replayOut.replaceChildren(h('p.muted', {}, 'Replaying…'));
    const x = await api('arg/replay', { id });
    if (x.error) { replayOut.replaceChildren(errorBox(x.error)); return; }
    const rr = x.result;
    replayOut.replaceChildren(h('div.card', {}, h('p', {}, rr.reproduced ? h('span.tag.ok', {}, 'reproduced') : h('span.tag.bad', {}, `${rr.differences.length} decision(s) differ`),
      ` recorded ${rr.recorded_outcome}, replayed ${rr.outcome}`),
      rr.differences.length ? table([{ key: 'path' }, { key: 'recorded', render: x => h('code.diff-del', {}, JSON.stringify(x.recorded)) },
        { key: 'replayed', render: x => h('code.diff-add', {}, JSON.stringify(x.replayed)) }], rr.differences) : null));
  };
  const req = a.request || {};
  main.append(h('h2', {}, 'Episode ', h('code', {}, id), ' ', h('span.tag.' + tagOf(a.outcome), {}, a.outcome)),
    h('div.card', {}, h('p', {}, h('strong', {}, 'Request: '), req.prompt || h('span.muted', {}, '(not stored)')),
      h('p.muted', {}, `caller ${JSON.stringify(a.caller || {})} · ontology v${a.ontology_version} · recorded ${a.recorded_at}`),
      h('div.row', {}, h('button', { id: 'replay', onclick: replay }, 'Replay'), h('span.muted', {}, 'runs the stored request again, acting on nothing, and compares every decision')), replayOut),
    h('div.steps.card', { id: 'steps' },
      step(1, 'Policy pre-check', h('div', {}, h('p', {}, 'state ', h('span.tag', {}, (d.policy || {}).state || '?')), tree(d.policy || {}, 2), a.claims ? tree({ claims: a.claims }, 1) : null), true),
      step(2, 'Initial classification: candidates', h('div.cols', {}, h('div', {}, h('h3', {}, 'raw'), cand(c.raw)), h('div', {}, h('h3', {}, 'after the policy\'s eligibility'), cand(c.filtered),
        (c.corrections || []).length ? tree({ corrections: c.corrections }, 1) : null))),
      step(3, 'Context Weaver', h('div', {}, h('p', {}, `primary ${w.primary_label ?? '—'} · rival ${w.rival ?? '—'} · confidence ${w.confidence ?? '—'} · margin ${w.margin ?? '—'} · retrieval ${w.retrieval_type ?? '—'}`),
        h('p', {}, 'flags ', (w.flags || []).length ? w.flags.map(f => h('span.tag.warn', {}, f)) : h('span.muted', {}, 'none')), tree(w, 1))),
      step(4, 'Landing point and binding', h('div', {}, h('p', {}, `action ${(b.action || {}).name ?? '—'} · status ${(b.action || {}).status ?? '—'} · missing ${((b.action || {}).missing || []).join(', ') || 'nothing'}`), tree(b, 1))),
      step(5, 'Neighbours', h('div', {}, h('p', {}, `${(t.targets || []).length} target node(s)`), tree(t.targets || [], 1))),
      step(6, 'Fast path', h('p', {}, t.fast_path ? 'taken: the landing node answers' : 'not taken')),
      step(7, 'Traversal', h('div', {}, h('p', {}, `stop: ${t.stop_reason ?? '—'}, path of ${(t.path || []).length} step(s)`), traversal, tree(t, 1))),
      step(8, 'Action', h('div', {}, h('p', {}, `${(a.action || d.action || {}).name ?? 'none'} · execution ${(a.action || {}).status ?? '—'}`), tree({ decided: d.action || null, executed: a.action || null }, 2))),
      step(9, 'Info: bundle and status', h('div', {}, h('p', {}, `info status ${(d.info || {}).info_outcome_status ?? '—'} · c_info ${(d.info || {}).c_info ?? '—'}`), bundle, a.info ? tree({ registry: a.info }, 1) : null)),
      step(10, 'Memory write (episodic registry)', h('div', {}, h('p', {}, `retention ${a.retention_class ?? '—'} · label signature ${a.label_signature ?? '—'}`),
        tree({ post_check: a.post_check, flags: a.flags, errors: a.errors, decided_at: d.decided_at, outcome: d.outcome }, 1)))));
  drawTraversal(traversal, d, w, b, t);
}

// the traversal on the ontology: labels of the decision, the landing nodes,
// the path's edges and the bundle's nodes
function drawTraversal(box, d, w, b, t) {
  if (typeof window.cytoscape !== 'function') { box.replaceChildren(h('p.muted', {}, 'The drawing library is not installed.')); box.style.height = 'auto'; return; }
  const els = [], seen = new Set();
  const node = (id, kind) => { if (!id || seen.has(id)) return; seen.add(id); els.push({ data: { id, label: id, kind } }); };
  (w.L_final || []).forEach(l => node(l, 'label'));
  const landing = new Set(b.landing || []);
  (t.targets || []).forEach(n => { node(n, landing.has(n) ? 'landing' : 'node'); const l = n.split('#')[0]; node(l, 'label'); els.push({ data: { id: 'in:' + n, source: l, target: n } }); });
  (t.path || []).forEach((p, i) => { const from = p.from || p[0], to = p.to || p[1]; if (from && to) { node(from, 'node'); node(to, 'node'); els.push({ data: { id: 'p' + i, source: from, target: to, path: 1 } }); } });
  (d.bundle || []).forEach(u => { if (seen.has(u.node)) els.find(e => e.data.id === u.node).data.bundle = 1; });
  window.cytoscape({ container: box, elements: els, layout: { name: 'breadthfirst', directed: true, spacingFactor: 0.9 },
    style: [
      { selector: 'node', style: { label: 'data(label)', 'font-size': 8, width: 10, height: 10, 'background-color': '#c3c9d5' } },
      { selector: 'node[kind = "label"]', style: { 'background-color': '#2f5fd0', width: 16, height: 16, 'font-size': 10 } },
      { selector: 'node[kind = "landing"]', style: { 'background-color': '#b05a00' } },
      { selector: 'node[bundle = 1]', style: { 'border-width': 2, 'border-color': '#1e7b34' } },
      { selector: 'edge', style: { width: 1, 'line-color': '#dde1e8' } },
      { selector: 'edge[path = 1]', style: { width: 2, 'line-color': '#b05a00', 'target-arrow-shape': 'triangle', 'target-arrow-color': '#b05a00', 'curve-style': 'bezier' } },
    ] });
}

async function offline(main) {
  const r = await api('arg/offline');
  if (r.error) { main.append(errorBox(r.error)); return; }
  const { candidates, versions, metrics } = r.result;
  const out = h('div', { id: 'offline-result' });
  const act = async (path, body) => {
    const x = await api(path, body);
    out.replaceChildren(x.error ? errorBox(x.error) : h('div.card', {}, tree(x.result, 1)));
  };
  main.append(h('h2', {}, 'ARG offline loop'),
    h('div.row', {}, h('button.plain', { id: 'publish-dry', onclick: () => act('arg/publish', { dry_run: true }) }, 'Publish approved (dry run)'),
      h('button', { id: 'publish', onclick: () => confirm('Publish the approved candidates as a new version?') && act('arg/publish', {}) }, 'Publish approved')), out,
    h('div.card', {}, h('h3', {}, 'Candidates'), candidates.error ? errorBox(candidates.error) : candidates.length ? table([
      { key: 'name' }, { key: 'status' }, { key: 'type' }, { key: 'key' },
      { key: 'scores', render: c => c.scores ? `priority ${c.scores.priority ?? '—'}` : '' },
      { key: 'evidence', render: c => (c.evidence || []).length, sort: c => (c.evidence || []).length },
      { key: 'validation', render: c => ((c.validation || {}).reasons || []).join('; ') },
      { key: 'review', render: c => c.status !== 'published' && c.status !== 'rejected' ? (c.status === 'approved' ? ['reject'] : ['approve', 'reject']).map(d =>
        h('button.plain', { onclick: () => { const why = prompt(`Why ${d} ${c.name}?`); if (why) act('arg/review', { candidate: c.name, decision: d, reason: why }); } }, d))
        : (c.review ? `${c.review.decision} by ${c.review.by || '?'}: ${c.review.reason}` : '') },
    ], candidates) : h('p.muted', {}, 'No candidate staged (kip arg offline run stages them).')),
    h('div.card', {}, h('h3', {}, 'Versions'), versions.error ? errorBox(versions.error) : table([
      { key: 'version', render: v => h('a.el', { href: '#/arg/version/' + v.version }, 'v' + v.version) },
      { key: 'published_at' }, { key: 'summary' }, { key: 'content_hash' },
      { key: 'rollback', render: v => h('button.plain', { onclick: (e) => { e.stopPropagation(); confirm(`Publish version ${v.version}'s content again?`) && act('arg/rollback', { version: v.version }); } }, 'roll back to') },
    ], versions)),
    h('div.card', {}, h('h3', {}, 'Metrics'), metrics.error ? errorBox(metrics.error) : tree(metrics, 2)));
}

async function version(main, n) {
  const r = await api('arg/version?' + qs({ version: n }));
  if (r.error) { main.append(errorBox(r.error)); return; }
  const { version: v, previous, diff } = r.result;
  main.append(h('h2', {}, `Version ${v.version}`), h('div.card', {}, tree(v, 1)),
    h('div.card', {}, h('h3', {}, previous ? `Changes from v${previous}` : 'The first version'),
      diff ? h('div', {}, table([{ key: 'type' }, { key: 'name' }, { key: 'change', render: x => h('code.diff-add', {}, JSON.stringify(x.change)) }],
        (diff.elements || []).map(([type, name, change]) => ({ type, name, change }))),
        (diff.links || []).length ? tree({ links: diff.links }, 1) : null) : null));
}
