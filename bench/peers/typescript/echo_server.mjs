// Benchmark peer: the echo server written with the official MCP TypeScript SDK
// (@modelcontextprotocol/server 2.4.0, the SDK's v2 line).
//
// One tool, `echo {text}`, returns its text: the plain-call target scripts/bench.sh drives
// with `loadgen`, like our `echo` server, bench/peers/rmcp-echo and bench/peers/python.
//
// Usage (scripts/bench.sh installs Node 22 and the SDK into node_modules with `npm ci`):
//
//     node bench/peers/typescript/echo_server.mjs stdio
//     node bench/peers/typescript/echo_server.mjs http HOST:PORT    # http://HOST:PORT/mcp

import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

import { run } from './serve.mjs';

// Built once: the factory below runs per HTTP request (2026-07-28) or per session / stdio
// connection (2025-11-25), and should stay cheap.
const echoArgs = z.object({ text: z.string().describe('The text to return.') });

function buildServer() {
    const server = new McpServer({ name: 'ts-echo', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echo the text back unchanged.', inputSchema: echoArgs }, async ({ text }) => ({
        content: [{ type: 'text', text }]
    }));
    return server;
}

run(buildServer, process.argv.slice(2), 'echo_server.mjs');
