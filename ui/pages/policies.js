// Policies page (docs/ui.md "Policies"): the policies this nexus runs, their
// versions and hooks, and their hot-reload status.
import { api, h, errorBox, table } from '../app.js';

export async function render(main) {
  const r = await api('policies');
  if (r.error) { main.append(errorBox(r.error)); return; }
  const p = r.result;
  main.append(h('h2', {}, 'Policies'),
    p.governed ? null : h('p.error', {}, 'This inspector runs without policies (--no-policies): the core\'s guards still hold.'),
    h('div.card', { id: 'policies' }, table([{ key: 'name' }, { key: 'version' }, { key: 'priority' },
      { key: 'hooks', render: x => [x.hooks.pre_check ? h('span.tag', {}, 'pre-check') : null, x.hooks.post_check ? h('span.tag', {}, 'post-check') : null] },
      { key: 'description' }, { key: 'path' }], p.policies || [])),
    h('div.card', {}, h('h3', {}, 'Hot reload'), h('p', {}, p.checked_at ? `files last checked ${new Date(p.checked_at * 1000).toISOString()}, every ${p.reload_interval} s` : 'not checked yet'),
      (p.reload_errors || []).length ? table([{ key: 'name' }, { key: 'error' }], p.reload_errors) : h('p.muted', {}, 'Every policy loaded.')));
}
