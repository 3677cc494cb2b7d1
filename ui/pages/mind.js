// Mind page (docs/ui.md "Mind"; seed 004): knowledge by tier and status, an
// item's gate report (which evidence fills which role, what is missing), its
// evidence and its event timeline.
import { api, qs, h, errorBox, table, tree, bars, info } from '../app.js';

export async function render(main, [name]) {
  if (name) return item(main, name);
  const tier = h('input', { type: 'text', id: 'f-tier', placeholder: 'tier', size: 12 });
  const status = h('input', { type: 'text', id: 'f-status', placeholder: 'status', size: 12 });
  const list = h('div', { id: 'knowledge' });
  const chart = h('div.card');
  const load = async () => {
    const r = await api('mind/items?' + qs({ tier: tier.value, status: status.value, limit: 1000 }));
    if (r.error) { list.replaceChildren(errorBox(r.error)); return; }
    const rows = r.result || [];
    const by = {};
    for (const k of rows) { const key = `${k.tier} · ${k.status}`; by[key] = (by[key] || 0) + 1; }
    chart.replaceChildren(h('h3', {}, 'By tier and status'), bars(Object.entries(by).sort().map(([label, value]) => ({ label, value }))));
    list.replaceChildren(rows.length ? table([
      { key: 'name', render: k => h('a.el', { href: '#/mind/' + encodeURIComponent(k.name) }, k.name) },
      { key: 'tier' }, { key: 'status' }, { key: 'statement', render: k => (k.statement || '').slice(0, 100) },
    ], rows) : h('p.muted', {}, 'No knowledge item (kip mind distill makes one).'));
  };
  [tier, status].forEach(x => x.addEventListener('keydown', e => { if (e.key === 'Enter') load(); }));
  const gates = h('div.card', { id: 'gate-rates' });
  api('mind/gates').then(g => {
    if (g.error) { gates.replaceChildren(errorBox(g.error)); return; }
    gates.replaceChildren(h('h3', {}, 'Gates met now (candidates and promoted items, by tier)'),
      bars((g.result || []).map(t => ({ label: `${t.tier} (${t.ready}/${t.items})`, value: t.items ? Math.round(100 * t.ready / t.items) : 0 }))),
      h('p.muted', {}, 'percent of items whose next gate is met'));
  });
  const task = h('input', { type: 'search', id: 'context-q', placeholder: 'a task, e.g. "review a claim"', size: 40 });
  const ctxOut = h('div', { id: 'context-result' });
  const context = async () => {
    const r = await api('mind/context?' + qs({ q: task.value }));
    ctxOut.replaceChildren(r.error ? errorBox(r.error) : tree(r.result, 2));
  };
  task.addEventListener('keydown', e => { if (e.key === 'Enter') context(); });
  main.append(h('h2', {}, 'Mind model'), h('div.row', {}, tier, status, h('button', { onclick: load }, 'Filter')),
    h('div.cols', {}, h('div', {}, chart, gates), list),
    h('div.card', {}, h('h3', {}, 'The context an agent would get'), h('div.row', {}, task, h('button', { id: 'context-go', onclick: context }, 'Assemble')), ctxOut));
  await load();
}

async function item(main, name) {
  const r = await api('mind/item?' + qs({ name }));
  if (r.error) { main.append(errorBox(r.error)); return; }
  const { item: k, evidence, gate, events } = r.result;
  const a = k.attributes || {};
  const roles = Object.entries(evidence || {}).flatMap(([role, list]) => (list || []).map(e => ({ role, name: e.name, source_ref: e.source_ref })));
  main.append(h('h2', {}, 'Knowledge ', h('code', {}, k.name), ' ', h('span.tag', {}, a.tier), h('span.tag', {}, a.status)),
    h('div.card', {}, h('p', {}, a.statement || ''), tree(a, 0)),
    h('div.cols.even', {},
      h('div.card', { id: 'gate' }, h('h3', {}, 'Gate report'), gate && !gate.error
        ? h('div', {}, h('p', {}, gate.ready ? h('span.tag.ok', {}, 'ready') : h('span.tag.bad', {}, 'not met'),
            ` ${gate.status} → ${gate.target ?? '—'} (tier ${gate.tier})`),
          table([{ key: 'role' }, { key: 'required' }, { key: 'counted', label: 'counted' },
            { key: 'missing', render: x => x.missing ? h('span.tag.bad', {}, 'missing ' + x.missing) : h('span.tag.ok', {}, 'filled') },
            { key: 'filled_by', label: 'filled by', render: x => x.filled_by.join(', ') }],
            ['supporting', 'verification', 'teaching', 'counterexample'].map(role => ({ role,
              required: role === 'counterexample' ? (gate.gate?.counterexamples_block ? 'none may stand' : '—') : (gate.gate?.[role] ?? 0),
              counted: gate.counts?.[role] ?? 0, missing: gate.missing?.[role] ?? 0,
              filled_by: roles.filter(r => r.role === role).map(r => r.name) }))),
          h('p', {}, 'reviewer ', gate.reviewer_required ? (gate.reviewer_present ? h('span.tag.ok', {}, 'present') : h('span.tag.bad', {}, 'required, not present')) : 'not required',
            gate.blocked_by_counterexamples ? h('span.tag.bad', {}, 'blocked by a counterexample') : null),
          h('p.muted', {}, 'One piece of evidence fills one role (counterexample, teaching, verification, supporting, in that order).'),
          tree(gate, 0))
        : errorBox(gate && gate.error)),
      h('div', {},
        h('div.card', { id: 'evidence' }, h('h3', {}, 'Evidence by role'), roles.length ? table([{ key: 'role' }, { key: 'name' }, { key: 'source_ref' }], roles) : h('p.muted', {}, 'No evidence linked.')),
        info.operator ? promoteForm(name) : null,
        h('div.card', { id: 'timeline' }, h('h3', {}, 'Timeline'), table([{ key: 'at' }, { key: 'type' }, { key: 'from' }, { key: 'to' }, { key: 'actor' }, { key: 'reason' }], events || [])))));
}

// promote through the gate, citing evidence per role (names, comma-separated)
function promoteForm(name) {
  const field = (id, label) => h('input', { type: 'text', id, placeholder: label + ': evidence names, comma-separated', size: 48 });
  const ver = field('promote-verification', 'verification'), teach = field('promote-teaching', 'teaching'), sup = field('promote-supporting', 'supporting');
  const reason = h('input', { type: 'text', id: 'promote-reason', placeholder: 'reason', size: 48 });
  const out = h('div', { id: 'promote-result' });
  const split = v => v.split(',').map(x => x.trim()).filter(Boolean);
  const go = async () => {
    const r = await api('mind/promote', { name, verification: split(ver.value), teaching: split(teach.value), supporting: split(sup.value), reason: reason.value || undefined });
    out.replaceChildren(r.error ? errorBox(r.error) : h('p', {}, h('span.tag.ok', {}, `${r.result.from} → ${r.result.to}`), ' the gate is met; reload to see the new status'));
  };
  return h('div.card', { id: 'promote' }, h('h3', {}, 'Promote through the gate'),
    h('p.muted', {}, 'As the viewer: the mind model needs a human role of its gates (e.g. kip ui --operator --role reviewer).'),
    ver, teach, sup, reason, h('div.row', { style: 'margin-top:.4em' }, h('button', { id: 'promote-go', onclick: go }, 'Promote')), out);
}
