#!/usr/bin/env node
// A real MCP server on the TypeScript SDK's low-level `Server` that pages
// tools/list.  stdio only.
//
//   node tests/mcp/ts_paged_server.mjs [PAGE_SIZE]      (default 2)
//
// Serves the 5 tools below, PAGE_SIZE per page.  nextCursor is an opaque
// base64 string; an unknown cursor is answered with JSON-RPC error -32602.
// Needs the SDK installed by .ci/install-servers.sh in tests/mcp/node/.
const sdk = new URL('./node/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Server } = await import(new URL('server/index.js', sdk));
const { StdioServerTransport } = await import(new URL('server/stdio.js', sdk));
const { ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode } =
  await import(new URL('types.js', sdk));

const pageSize = Number.parseInt(process.argv[2] ?? '2', 10);
if (!Number.isInteger(pageSize) || pageSize < 1) {
  console.error('usage: ts_paged_server.mjs [PAGE_SIZE>=1]');
  process.exit(2);
}

const TOOLS = [
  {
    name: 'list_files',
    description: 'List the files in a directory.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Directory to list' } },
      required: ['path'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'read_file',
    title: 'Read file',
    description: 'Read a UTF-8 text file and return its contents.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        maxBytes: { type: 'integer', minimum: 1, default: 65536 },
      },
      required: ['path'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'write_file',
    description: 'Write text to a file, replacing it if it exists.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, text: { type: 'string' } },
      required: ['path', 'text'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
  {
    name: 'file_info',
    description: 'Return size and modification time of a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    outputSchema: {
      type: 'object',
      properties: { size: { type: 'integer' }, mtime: { type: 'string', format: 'date-time' } },
      required: ['size', 'mtime'],
    },
  },
  {
    name: 'zeta_ünïcödé',
    description: 'A tool whose name and description are not ASCII: café, 😀, \u2028.',
    inputSchema: { type: 'object', properties: {} },
  },
];

const encodeCursor = (offset) => Buffer.from(JSON.stringify({ offset })).toString('base64');
function decodeCursor(cursor) {
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8'));
    if (Number.isInteger(offset) && offset > 0 && offset < TOOLS.length) return offset;
  } catch {
    // fall through
  }
  throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${cursor}`);
}

const server = new Server(
  { name: 'contractpin-ts-paged', version: '1.0.0' },
  { capabilities: { tools: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const cursor = request.params?.cursor;
  const start = cursor === undefined ? 0 : decodeCursor(cursor);
  const end = Math.min(start + pageSize, TOOLS.length);
  console.error(`tools/list cursor=${JSON.stringify(cursor)} -> [${start}, ${end})`);
  const result = { tools: TOOLS.slice(start, end) };
  if (end < TOOLS.length) result.nextCursor = encodeCursor(end);
  return result;
});

server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: 'text', text: `called ${request.params.name}` }],
}));

await server.connect(new StdioServerTransport());
console.error(`contractpin-ts-paged: ${TOOLS.length} tools, page size ${pageSize}`);
