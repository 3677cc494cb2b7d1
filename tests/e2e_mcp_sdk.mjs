#!/usr/bin/env node
// End-to-end test of `kip mcp` with the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in tests/npm/package.json and installed
// by scripts/setup-deps into BUILD_DIR/npm). The SDK validates every frame it
// reads against its JSONRPCMessageSchema; a frame it cannot parse is a
// transport error, counted as a failure here.
//
// Usage: node e2e_mcp_sdk.mjs BUILD_DIR
// Starts the server exactly as the README's client configuration does
// ("args": ["mcp", "--db", PATH]) and walks the cases of the MCP issue:
// start-up, flat tool schemas and annotations, the syntax card, results,
// KIP errors, readonly violations, values JSON.stringify writes (1e19, lone
// surrogates), a request nested 1 000 levels deep, results over the response
// cap, cancellation through an AbortSignal, byte-stable listings, parameter
// depth, version negotiation, resources and prompts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BUILD = path.resolve(process.argv[2] || 'build');
const KIP = path.join(BUILD, 'kip');
const SDK = path.join(BUILD, 'npm', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
if (!fs.existsSync(SDK)) {
  console.log(`the MCP SDK is not installed in ${BUILD}/npm (scripts/setup-deps ${BUILD}): skipped`);
  process.exit(77);
}
const { Client } = await import(path.join(SDK, 'client', 'index.js'));
const { StdioClientTransport } = await import(path.join(SDK, 'client', 'stdio.js'));
const types = await import(path.join(SDK, 'types.js'));

let passed = 0;
const failures = [];
function check(name, cond, detail) {
  if (cond) passed++;
  else failures.push(`FAIL ${name}: ${JSON.stringify(detail)?.slice(0, 400)}`);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kip-sdk-'));
const db = path.join(tmp, 'memory.db');

async function connect(extra = []) {
  const transport = new StdioClientTransport({ command: KIP, args: ['mcp', '--db', db, ...extra], stderr: 'pipe' });
  const errors = [];
  const client = new Client({ name: 'kip-e2e-sdk', version: '1.0.0' });
  client.onerror = (e) => errors.push(String(e));
  await client.connect(transport);
  return { client, transport, errors };
}

const text = (r) => r.content[0].text;
const kip = (r) => JSON.parse(text(r));

try {
  const { client, transport, errors } = await connect();
  check('connected: the SDK accepted the negotiated protocol version', true);
  check('server info', client.getServerVersion()?.name === 'kipnexus', client.getServerVersion());
  check('instructions', (client.getInstructions() || '').includes('DESCRIBE PRIMER'), client.getInstructions());

  // tools: flat object schemas, annotations, the syntax card in the description
  const { tools } = await client.listTools();
  check('two tools', tools.map((t) => t.name).join() === 'execute_kip,execute_kip_readonly', tools.map((t) => t.name));
  for (const t of tools) {
    const s = t.inputSchema;
    check(`${t.name}: flat object schema`, s.type === 'object' && !s.oneOf && !s.anyOf && !s.allOf, s);
    check(`${t.name}: syntax card`, t.description.length > 1500 && t.description.includes('UPSERT'), t.description.length);
  }
  check('annotations', tools[0].annotations?.destructiveHint === true && tools[1].annotations?.readOnlyHint === true, tools.map((t) => t.annotations));

  // a write, a read, a KIP error, a readonly violation
  const w = await client.callTool({ name: 'execute_kip', arguments: {
    command: 'UPSERT { CONCEPT ?p { {type: "Person", name: :n} SET ATTRIBUTES { person_class: "Human" } } } WITH METADATA { source: "sdk", author: "e2e" }',
    parameters: { n: 'Ada' } } });
  check('write', !w.isError && kip(w).result.blocks === 1, w);
  const r = await client.callTool({ name: 'execute_kip_readonly', arguments: { command: 'FIND(?p.attributes.person_class) WHERE { ?p {type: "Person", name: "Ada"} }' } });
  check('read', !r.isError && JSON.stringify(kip(r)) === '{"result":["Human"]}', r);
  check('payload sent once', r.structuredContent === undefined && r.content.length === 1, r);
  const e = await client.callTool({ name: 'execute_kip_readonly', arguments: { command: 'FIND(?x WHERE' } });
  check('KIP error is isError', e.isError === true && kip(e).error.code === 'KIP_1001', e);
  const ro = await client.callTool({ name: 'execute_kip_readonly', arguments: { command: 'UPSERT { CONCEPT ?p { {type: "Person", name: "Eve"} } }' } });
  check('readonly violation says use execute_kip', ro.isError && kip(ro).error.code === 'KIP_4004' && kip(ro).error.hint.includes('execute_kip'), kip(ro));
  const both = await client.callTool({ name: 'execute_kip', arguments: { command: 'DESCRIBE DOMAINS', commands: ['DESCRIBE DOMAINS'] } });
  check('exactly one of command/commands is enforced', both.isError && text(both).includes('exactly one'), kip(both));
  const typ = await client.callTool({ name: 'execute_kip', arguments: { command: 5 } });
  check('envelope type error gets an envelope hint', typ.isError && kip(typ).error.hint.includes('"command"'), kip(typ));

  // values as JSON.stringify writes them
  const big = await client.callTool({ name: 'execute_kip', arguments: {
    command: 'UPSERT { CONCEPT ?p { {type: "Person", name: "Big"} SET ATTRIBUTES { n: :n, s: :s } } } WITH METADATA { source: "sdk", author: "e2e" }',
    parameters: { n: 1e19, s: '\ud800x' } } });
  check('an integer beyond int64 and a lone surrogate are accepted', !big.isError, kip(big));
  const back = await client.callTool({ name: 'execute_kip_readonly', arguments: { command: 'FIND(?p.attributes) WHERE { ?p {type: "Person", name: "Big"} }' } });
  const attrs = kip(back).result[0];
  check('1e19 reads back as a number, the surrogate as U+FFFD', attrs.n === 1e19 && attrs.s === '\ufffdx', attrs);
  const inf = await client.callTool({ name: 'execute_kip', arguments: { command: 'UPSERT { CONCEPT ?p { {type: "Person", name: "Inf"} SET ATTRIBUTES { v: 1e999 } } }' } });
  check('an infinite literal is refused', inf.isError && kip(inf).error.code === 'KIP_1001', kip(inf));

  // a request nested 1 000 levels deep gets an error; the server lives on
  let deep = 0;
  for (let i = 0; i < 1000; i++) deep = [deep];
  try {
    const d = await client.callTool({ name: 'execute_kip_readonly', arguments: { command: 'DESCRIBE DOMAINS', parameters: { x: deep } } });
    check('deep request answered with an error', d.isError === true, d);
  } catch (err) {
    check('deep request answered with a JSON-RPC error', err instanceof types.McpError, String(err));
  }
  await client.ping();
  check('alive after the deep request', true);
  let v = 0;
  for (let i = 0; i < 63; i++) v = [v];
  const tooDeep = await client.callTool({ name: 'execute_kip', arguments: { command: 'UPSERT { CONCEPT ?p { {type: "Person", name: "Deep"} SET ATTRIBUTES { v: :v } } }', parameters: { v } } });
  check('a parameter nested deeper than capsules allow is refused', tooDeep.isError && kip(tooDeep).error.code === 'KIP_4002', kip(tooDeep));

  // large results: capped with paging advice; the session goes on
  const blocks = [];
  for (let i = 0; i < 2500; i++) blocks.push(`CONCEPT ?c${i} { {type: "Person", name: "P${i}"} SET ATTRIBUTES { note: "${'y'.repeat(120)}" } }`);
  for (let i = 0; i < blocks.length; i += 500) {
    const up = await client.callTool({ name: 'execute_kip', arguments: { command: `UPSERT { ${blocks.slice(i, i + 500).join(' ')} } WITH METADATA { source: "sdk", author: "e2e" }` } });
    check(`bulk write ${i}`, !up.isError, kip(up).error);
  }
  const large = await client.callTool({ name: 'execute_kip_readonly', arguments: { command: 'FIND(?p) WHERE { ?p {type: "Person"} } LIMIT 20000' } });
  check('a result over the cap is KIP_4002 with paging advice', large.isError && kip(large).error.code === 'KIP_4002' && kip(large).error.hint.includes('CURSOR'), text(large).slice(0, 300));
  const page = await client.callTool({ name: 'execute_kip_readonly', arguments: { command: 'FIND(?p.name) WHERE { ?p {type: "Person"} } ORDER BY ?p.name LIMIT 100' } });
  check('paging works', !page.isError && typeof kip(page).next_cursor === 'string', text(page).slice(0, 200));

  // cancellation: an AbortSignal sends notifications/cancelled; the server stops and answers the next call
  const slow = { commands: Array(100).fill('FIND(COUNT(?a)) WHERE { ?a {type: "Person"} ?b {type: "Person"} FILTER(?a.attributes.note < ?b.name) }') };
  const ac = new AbortController();
  const t0 = Date.now();
  const pending = client.callTool({ name: 'execute_kip_readonly', arguments: slow }, undefined, { signal: ac.signal });
  setTimeout(() => ac.abort('test'), 300);
  try {
    await pending;
    check('cancelled call rejects', false, 'resolved');
  } catch {
    check('cancelled call rejects', true);
  }
  await client.ping();
  check('server answers promptly after a cancel', Date.now() - t0 < 10000, Date.now() - t0);

  // resources and prompts
  const res = await client.listResources();
  check('resources', res.resources.map((x) => x.uri).join() === 'kip://syntax,kip://primer', res);
  const syn = await client.readResource({ uri: 'kip://syntax' });
  check('syntax resource', syn.contents[0].text.includes('KIP'), syn.contents[0].mimeType);
  try {
    await client.request({ method: 'resources/read', params: {} }, types.ReadResourceResultSchema);
    check('resources/read without uri fails', false, 'resolved');
  } catch (err) {
    check('resources/read without uri says so', String(err).includes('needs params.uri'), String(err));
  }
  const pr = await client.getPrompt({ name: 'kip_grounding' });
  check('prompt', pr.messages[0].content.text.includes('DESCRIBE PRIMER'), pr);

  check('every frame parsed by the SDK', errors.length === 0, errors);
  await client.close();

  // the tool listing is byte-for-byte stable across starts
  const listings = [];
  for (let i = 0; i < 2; i++) {
    const c = await connect();
    listings.push(JSON.stringify(await c.client.listTools()));
    await c.client.close();
  }
  check('tools/list stable across starts', listings[0] === listings[1], listings.map((l) => l.length));

  // a start-up failure reaches the client
  const bad = new Client({ name: 'kip-e2e-sdk', version: '1.0.0' });
  try {
    await bad.connect(new StdioClientTransport({ command: KIP, args: ['mcp', '--db', '/nonexistent-dir/x/y.db'], stderr: 'pipe' }));
    check('start-up failure is reported', false, 'connected');
  } catch (err) {
    check('start-up failure is reported to the client', String(err).includes('could not start'), String(err));
  }
} catch (err) {
  failures.push(`FAIL unexpected: ${err?.stack || err}`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
for (const f of failures) console.log(f);
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
