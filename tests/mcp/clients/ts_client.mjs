#!/usr/bin/env node
// A real MCP client on the official TypeScript SDK (`Client` +
// `StdioClientTransport`) that runs a plan of steps against one stdio server
// (for contractpin's proxy tests: the server is `contractpin proxy ...` or
// the server itself, and the two outputs are compared).
//
//   node tests/mcp/clients/ts_client.mjs PLAN.json
//
// PLAN: {"command": "...", "args": [...], "clientName": "...",
//        "capabilities": {...}, "env": {...}, "steps": [STEP, ...]}
// STEP: {"op": "list"}                      every page of tools/list
//       {"op": "call", "name": N, "arguments": {...}, "progress": bool}
//       {"op": "resources"} {"op": "read", "uri": U} {"op": "prompts"}
//       {"op": "prompt", "name": N, "arguments": {...}} {"op": "ping"}
//       {"op": "wait_list_changed", "count": K, "timeout_ms": T}   (K-th notification)
//       {"op": "sleep", "ms": T}
// Prints one JSON line: {"steps": [RESULT, ...], "notifications": [METHOD, ...],
// "serverRequests": [METHOD, ...]}; a failed step's RESULT is
// {"error": {"code": C, "message": M}}.  Server requests are answered:
// sampling/createMessage with a fixed text, roots/list with one root,
// elicitation/create with "accept".
// Needs the SDK installed by .ci/install-servers.sh in tests/mcp/node/.
import { readFileSync } from 'node:fs';

const sdk = new URL('../node/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', sdk));
const { StdioClientTransport } = await import(new URL('client/stdio.js', sdk));
const types = await import(new URL('types.js', sdk));

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const notifications = [];
const serverRequests = [];
let listChanged = 0;

const client = new Client(
  { name: plan.clientName ?? 'sdk-test-client-ts', version: '1.0.0' },
  { capabilities: plan.capabilities ?? {} },
);
client.fallbackNotificationHandler = async (n) => { notifications.push(n.method); };
client.setNotificationHandler(types.ToolListChangedNotificationSchema, async (n) => {
  notifications.push(n.method);
  listChanged += 1;
});
client.setNotificationHandler(types.LoggingMessageNotificationSchema, async (n) => {
  notifications.push(n.method);
});
if (plan.capabilities?.sampling) {
  client.setRequestHandler(types.CreateMessageRequestSchema, async (r) => {
    serverRequests.push(r.method);
    return { role: 'assistant', content: { type: 'text', text: 'sampled by the test client' }, model: 'test-model' };
  });
}
if (plan.capabilities?.roots) {
  client.setRequestHandler(types.ListRootsRequestSchema, async (r) => {
    serverRequests.push(r.method);
    return { roots: [{ uri: 'file:///tmp/contractpin-test-root', name: 'test root' }] };
  });
}
if (plan.capabilities?.elicitation) {
  client.setRequestHandler(types.ElicitRequestSchema, async (r) => {
    serverRequests.push(r.method);
    return { action: 'accept', content: { color: 'blue' } };
  });
}

// `env`: the entry's environment block, as a client passes it (the SDK adds
// its default variables, PATH among them).
const transport = new StdioClientTransport({ command: plan.command, args: plan.args ?? [], env: plan.env, stderr: 'inherit' });

function failure(e) {
  return { error: { code: e?.code ?? null, message: String(e?.message ?? e) } };
}

async function listAll() {
  const tools = [];
  let cursor;
  for (let i = 0; i < 100; i++) {
    const r = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...r.tools);
    cursor = r.nextCursor;
    if (cursor === undefined) break;
  }
  return { tools };
}

async function waitListChanged(timeoutMs, count) {
  const until = Date.now() + (timeoutMs ?? 5000);
  while (listChanged < count && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return { listChanged: listChanged >= count };
}

async function step(s) {
  switch (s.op) {
    case 'list': return await listAll();
    case 'call': {
      let progress = 0;
      const opts = s.progress ? { onprogress: () => { progress += 1; } } : undefined;
      const r = await client.callTool({ name: s.name, arguments: s.arguments ?? {} }, undefined, opts);
      return s.progress ? { result: r, progressNotifications: progress > 0 } : r;
    }
    case 'resources': return await client.listResources();
    case 'read': return await client.readResource({ uri: s.uri });
    case 'prompts': return await client.listPrompts();
    case 'prompt': return await client.getPrompt({ name: s.name, arguments: s.arguments ?? {} });
    case 'ping': return await client.ping();
    case 'wait_list_changed': return await waitListChanged(s.timeout_ms, s.count ?? 1);
    case 'sleep': await new Promise((r) => setTimeout(r, s.ms)); return {};
    default: throw new Error(`unknown op ${s.op}`);
  }
}

const results = [];
try {
  await client.connect(transport);
  for (const s of plan.steps) {
    try {
      results.push(await step(s));
    } catch (e) {
      results.push(failure(e));
    }
  }
} catch (e) {
  results.push(failure(e));
} finally {
  await client.close();
}
const instructions = client.getInstructions() ?? null;
process.stdout.write(JSON.stringify({ steps: results, notifications, serverRequests, instructions }) + '\n');
