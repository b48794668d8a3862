#!/bin/sh
# A minimal, cheap MCP stdio server that takes SECONDS to answer tools/list:
# for timing many servers at once (cli/tests/cli_fleet.rs, docs/PERFORMANCE.md)
# without measuring an interpreter's start-up. POSIX sh plus sleep(1).
#
#   slow_server.sh SECONDS [TOOL_NAME]
#
# It answers server/discover with JSON-RPC error -32601 (so the client falls
# back to initialize), initialize with protocol 2025-06-18, and tools/list,
# after sleeping SECONDS, with one tool (TOOL_NAME, default `echo`). Request
# ids are read from the line (the client writes `{"jsonrpc":"2.0","id":N,...`).
# It exits on the end of its stdin.
delay=${1:-1}
tool=${2:-echo}
while IFS= read -r line; do
    id=${line#*\"id\":}
    id=${id%%[!0-9]*}
    case $line in
    *'"method":"server/discover"'*)
        printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
    *'"method":"initialize"'*)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
        sleep "$delay"
        printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"%s","description":"slow","inputSchema":{"type":"object"}}]}}\n' "$id" "$tool" ;;
    esac
done
