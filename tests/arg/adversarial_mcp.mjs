#!/usr/bin/env node
// The MCP leg of the ARG adversarial suite (tests/e2e_arg_adversarial.py):
// every case runs through the official MCP TypeScript SDK client against
// `kip mcp --db DB` started with the case's authenticated identity as the
// server's configuration (--role / --tenant / --user: who configured the
// client is who asks), calling arg_request, execute_kip or
// execute_kip_readonly. Prints one JSON line per case: {id, result} where
// result is the KIP/ARG response the tool returned (or {transport_error}).
//
// Usage: node adversarial_mcp.mjs BUILD_DIR DB CASES.json
import fs from 'node:fs';
import path from 'node:path';

const BUILD = path.resolve(process.argv[2]);
const DB = process.argv[3];
const cases = JSON.parse(fs.readFileSync(process.argv[4], 'utf8'));
const SDK = path.join(BUILD, 'npm', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
if (!fs.existsSync(SDK)) {
  console.error(`the MCP SDK is not installed in ${BUILD}/npm (scripts/setup-deps ${BUILD})`);
  process.exit(77);
}
const { Client } = await import(path.join(SDK, 'client', 'index.js'));
const { StdioClientTransport } = await import(path.join(SDK, 'client', 'stdio.js'));

function identityArgs(auth) {
  const a = [];
  for (const r of auth.roles || []) a.push('--role', r);
  if (auth.tenant) a.push('--tenant', auth.tenant);
  if (auth.user) a.push('--user', auth.user);
  return a;
}

for (const c of cases) {
  const transport = new StdioClientTransport({ command: path.join(BUILD, 'kip'),
    args: ['mcp', '--db', DB, ...identityArgs(c.auth || {})], stderr: 'pipe' });
  const client = new Client({ name: 'kip-arg-adversarial', version: '1.0.0' });
  let out;
  try {
    await client.connect(transport);
    const started = Date.now();
    let r;
    if (c.kind === 'arg') {
      r = await client.callTool({ name: 'arg_request', arguments: { prompt: c.prompt, context: c.context || {} } },
        undefined, { timeout: 20000 });
    } else {
      r = await client.callTool({ name: c.readonly ? 'execute_kip_readonly' : 'execute_kip',
        arguments: { command: c.command, parameters: c.parameters || {} } }, undefined, { timeout: 20000 });
    }
    out = { id: c.id, result: JSON.parse(r.content[0].text), ms: Date.now() - started };
  } catch (e) {
    out = { id: c.id, result: { transport_error: String(e) } };
  }
  console.log(JSON.stringify(out));
  await client.close();
}
