#!/usr/bin/env node
// Node peer for scripts/bench-table.sh: JSON.parse + canonicalize (5.1.0) + crypto.
//
// Usage: node bench-peer-node.mjs [--modules=DIR] PAYLOAD.json BUDGET_SECONDS
//
// Computes the full pipeline (tool, field and server digests) the
// straightforward way, times it for about BUDGET_SECONDS and prints one JSON
// line: {"server", "tools": [[name, digest], ...], "median_s", "min_s", "runs"}.
// DIR is a node_modules directory holding `canonicalize` (default: resolve normally).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
let modules = null;
const rest = [];
for (const a of args) {
  if (a.startsWith('--modules=')) modules = a.slice('--modules='.length);
  else rest.push(a);
}
const [path, budgetText] = rest;
const budget = Number(budgetText);
const spec = modules
  ? pathToFileURL(join(modules, 'canonicalize', 'lib', 'canonicalize.js')).href
  : 'canonicalize';
const canonicalize = (await import(spec)).default;

const sha = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

function toolsOf(doc) {
  const page = (p) => {
    const obj = p && typeof p === 'object' && 'result' in p ? p.result : p;
    return obj && Array.isArray(obj.tools) ? obj.tools : [];
  };
  if (Array.isArray(doc)) {
    const first = doc[0];
    const paged = first && typeof first === 'object' && !Array.isArray(first) &&
      !('name' in first) && ('tools' in first || 'result' in first);
    return paged ? doc.flatMap(page) : doc;
  }
  return page(doc);
}

function pipeline(text) {
  const doc = JSON.parse(text);
  const server = {};
  const out = [];
  for (const tool of toolsOf(doc)) {
    const contract = {
      name: tool.name,
      description: tool.description === undefined ? null : tool.description,
      inputSchema: tool.inputSchema === undefined ? null : tool.inputSchema,
    };
    for (const key of ['outputSchema', 'annotations']) {
      if (tool[key] !== undefined && tool[key] !== null) contract[key] = tool[key];
    }
    const digest = 'sha256:' + sha(canonicalize(contract));
    for (const value of Object.values(contract)) sha(canonicalize(value));
    server[tool.name] = digest;
    out.push([tool.name, digest]);
  }
  return ['sha256:' + sha(canonicalize(server)), out];
}

const text = readFileSync(path, 'utf8');
const [server, tools] = pipeline(text);
const samples = [];
const start = performance.now();
while (samples.length < 3 || (performance.now() - start) / 1000 < budget) {
  const t = performance.now();
  pipeline(text);
  samples.push((performance.now() - t) / 1000);
}
samples.sort((a, b) => a - b);
console.log(JSON.stringify({
  server,
  tools,
  median_s: samples[Math.floor(samples.length / 2)],
  min_s: samples[0],
  runs: samples.length,
}));
