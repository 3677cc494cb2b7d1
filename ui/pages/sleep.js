// Sleep page (docs/ui.md "Sleep"): cycles with per-phase timings and counts,
// the flags they raised (grouped, then paged), the metrics before and after,
// and what the next cycle would do (a dry run, the operator's).
import { api, qs, h, errorBox, table, tree, bars, info } from '../app.js';

export async function render(main, [name]) {
  if (name) return cycle(main, name);
  const r = await api('sleep/cycles?limit=100');
  if (r.error) { main.append(errorBox(r.error)); return; }
  const rows = r.result || [];
  const out = h('div', { id: 'dry-run' });
  const dry = async () => {
    out.replaceChildren(h('p.muted', {}, 'Planning…'));
    const x = await api('sleep/dry-run', {});
    if (x.error) { out.replaceChildren(errorBox(x.error)); return; }
    const p = x.result;
    out.replaceChildren(h('div.card', {}, h('h3', {}, `The next cycle would make ${p.planned_count} change(s) and flag ${p.flagged} item(s)`),
      table([{ key: 'phase' }, { key: 'why' }, { key: 'command', render: c => h('code', {}, (c.command || '').slice(0, 160)) }], p.planned || [])));
  };
  main.append(h('h2', {}, 'Sleep cycles'),
    h('div.row', {}, h('button.plain', { id: 'sleep-dry-run', onclick: dry, disabled: !info.operator || null }, 'What would the next cycle do? (dry run)'),
      info.operator ? null : h('span.muted', {}, 'the dry run is the operator\'s (kip ui --operator)')), out,
    h('div.card', { id: 'tasks' }, h('h3', {}, 'SleepTasks pending or failed'), (r.tasks || []).length
      ? table([{ key: 'name', render: t => t.name }, { key: 'status', render: t => h('span.tag.' + (t.attributes.status === 'failed' ? 'bad' : 'warn'), {}, t.attributes.status) },
        { key: 'action', render: t => t.attributes.requested_action }, { key: 'target', render: t => `${t.attributes.target_type || ''} ${t.attributes.target_name || ''}` },
        { key: 'reason', render: t => t.attributes.reason || t.attributes.result || '' }], r.tasks)
      : h('p.muted', {}, 'None: every task an agent handed over was carried out.')),
    rows.length ? h('div.cols', {}, h('div', {},
      h('div.card', {}, h('h3', {}, 'Memory size after each cycle (Domain members)'), bars(rows.slice(0, 20).reverse().filter(c => c.size !== undefined).map(c => ({ label: (c.now || '').slice(0, 16), value: c.size })))),
      h('div.card', {}, h('h3', {}, 'Writes per cycle'), bars(rows.slice(0, 20).reverse().map(c => ({ label: (c.now || '').slice(0, 16), value: c.writes || 0 }))))),
      h('div.card', { id: 'cycles' }, table([
        { key: 'name', render: c => h('a.el', { href: '#/sleep/' + encodeURIComponent(c.name) }, c.now) },
        { key: 'status' }, { key: 'trigger' }, { key: 'writes' }, { key: 'flagged' }, { key: 'errors' },
      ], rows)))
      : h('p.muted', {}, 'No cycle has run on this nexus (kip sleep runs one).'));
}

async function cycle(main, name) {
  const r = await api('sleep/cycle?' + qs({ name, pages: 3 }));
  if (r.error) { main.append(errorBox(r.error)); return; }
  const a = r.result.attributes || {};
  const phases = a.phases || [];
  const before = a.metrics_before || {}, after = a.metrics_after || {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const pages = r.flagged_pages || [];
  const changes = [...(a.changes || []), ...(r.change_pages || [])];
  main.append(h('h2', {}, 'Sleep cycle ', h('code', {}, a.now), ' ', h('span.tag', {}, a.status)),
    h('p.muted', {}, `trigger ${a.trigger} · ${a.writes} write(s) · ${a.flagged_count ?? 0} flagged · ${a.errors ?? 0} error(s)` +
      (a.work_left ? ' · work left for the next cycle' : '') + (a.unchanged_since ? ` · memory unchanged since ${a.unchanged_since}` : '') +
      (a.incremental ? ` · incremental: ${a.incremental.changed} element(s) changed since ${a.incremental.since}, ` +
        `${a.incremental.focus} concept(s) judged (${a.incremental.swept} swept); the rest stands as the last cycle found it` : '')),
    h('div.cols', {},
      h('div.card', { id: 'phases' }, h('h3', {}, 'Phases'), bars(phases.map(p => ({ label: p.phase, value: Math.round((p.seconds || 0) * 1000) }))),
        h('p.muted', {}, 'milliseconds of CPU per phase'),
        table([{ key: 'phase' }, { key: 'title' }, { key: 'seconds', render: p => (p.seconds || 0).toFixed(3) }, { key: 'counts', render: p => tree(p.counts || {}, 0) }], phases)),
      h('div', {},
        h('div.card', { id: 'changes' }, h('h3', {}, `Changes made (${a.changes_count ?? changes.length})`), changes.length
          ? table([{ key: 'phase' }, { key: 'why' }, { key: 'before', label: 'before', render: x => x.before ? h('code.diff-del', {}, x.before) : h('span.muted', {}, '—') },
            { key: 'values', label: 'values written', render: x => h('code.diff-add', {}, x.values || '') }], changes)
          : h('p.muted', {}, 'This cycle changed nothing.'),
          (a.change_pages || 0) > 3 ? h('p.muted', {}, `${a.change_pages} pages of changes in the record; the first 3 are shown`) : null),
        h('div.card', { id: 'metrics' }, h('h3', {}, 'Metrics before → after'), table([{ key: 'metric' },
          { key: 'before', render: x => h('code', {}, JSON.stringify(x.before)) },
          { key: 'after', render: x => h('code' + (JSON.stringify(x.before) !== JSON.stringify(x.after) ? '.diff-add' : ''), {}, JSON.stringify(x.after)) }],
          keys.map(k => ({ metric: k, before: before[k], after: after[k] })))),
        h('div.card', { id: 'flags' }, h('h3', {}, 'Flagged, by kind'), table([{ key: 'count' }, { key: 'phase' }, { key: 'reason' }, { key: 'examples', render: g => (g.examples || g.names || []).join(', ') }],
          (a.flag_groups || []).map(g => ({ ...g }))),
          h('h3', {}, 'Items'), table([{ key: 'phase' }, { key: 'name' }, { key: 'reason' }], [...(a.flagged || []), ...pages]),
          a.flag_pages > 3 ? h('p.muted', {}, `${a.flag_pages} pages in the record; the first 3 are shown`) : null))));
}
