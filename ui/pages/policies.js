// Policies page (docs/ui.md "Policies"): the policies this nexus runs, their
// versions and hooks, what they refused, warned about or changed (the
// decision log, kip.policy_log), and their hot-reload status.
import { api, h, errorBox, table, bars } from '../app.js';

export async function render(main) {
  const r = await api('policies');
  if (r.error) { main.append(errorBox(r.error)); return; }
  const p = r.result;
  main.append(h('h2', {}, 'Policies'),
    ...(p.governed ? [] : [h('p.error', {}, 'This inspector runs without policies (--no-policies): the core\'s guards still hold.')]),
    h('div.card', { id: 'policies' }, table([{ key: 'name' }, { key: 'version' }, { key: 'priority' },
      { key: 'hooks', render: x => [x.hooks.pre_check ? h('span.tag', {}, 'pre-check') : null, x.hooks.post_check ? h('span.tag', {}, 'post-check') : null] },
      { key: 'description', render: x => x.description || '' }, { key: 'path' }], p.policies || [])),
    h('div.card', { id: 'decisions' }, h('h3', {}, 'Decisions'),
      h('p.muted', {}, `this inspector's own requests since ${p.counts?.since ?? '?'}, by state`),
      bars(Object.entries(p.counts || {}).filter(([k]) => k !== 'since').map(([label, value]) => ({ label, value, color: label === 'BLOCK' ? '#b3261e' : undefined }))),
      h('h3', {}, 'What the policies refused, warned about or changed (every process, newest first)'),
      !p.decisions_visible ? h('p.muted', {}, 'The decision log names callers: it is the operator\'s (kip ui --operator).')
        : (p.decisions || []).length ? table([{ key: 'at' }, { key: 'stage' },
          { key: 'state', render: d => h('span.tag.' + (d.state === 'BLOCK' ? 'bad' : d.state === 'ALLOW' ? 'ok' : 'warn'), {}, d.state) },
          { key: 'kind' }, { key: 'policies', render: d => (d.policies || []).join(', ') },
          { key: 'caller', render: d => d.caller ? [d.caller.user || d.caller.actor || '', d.caller.roles ? ` (${d.caller.roles.join(', ')})` : '', d.caller.channel ? ` via ${d.caller.channel}` : ''].join('') : '' },
          { key: 'reasons', render: d => [...(d.reasons || []), ...(d.warnings || []).map(w => '⚠ ' + w)].join('; ') }], p.decisions)
        : h('p.muted', {}, 'Nothing refused, warned about or changed yet (docs/policies.md "Decision log").')),
    h('div.card', {}, h('h3', {}, 'Hot reload'), h('p', {}, p.checked_at ? `files last checked ${new Date(p.checked_at * 1000).toISOString()}, every ${p.reload_interval} s` : 'not checked yet'),
      (p.reload_errors || []).length ? table([{ key: 'name' }, { key: 'error' }], p.reload_errors) : h('p.muted', {}, 'Every policy loaded.')));
}
