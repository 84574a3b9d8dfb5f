// Benchmark peer: the provision server written with the official MCP TypeScript SDK
// (@modelcontextprotocol/server 2.4.0, the SDK's v2 line).
//
// One tool, `provision {name}`, that needs the user: it asks "Which region should NAME live
// in?" (`{region}`) and answers "Provisioned 'NAME' in REGION.". The multi-round (MRTR)
// target scripts/bench.sh drives with `loadgen --mode mrtr`, like our `provisioner` example,
// bench/peers/rmcp-echo and bench/peers/python.
//
// One write-once handler serves both eras, as the SDK's "input_required" guide writes them:
//
// * 2026-07-28: the first round returns `inputRequired(...)` with a sealed `requestState`
//   (the SDK's `createRequestStateCodec`: HMAC-SHA256, a per-process key, 600 s ttl, checked
//   by the `requestState.verify` hook before the handler runs), and the client retries with
//   `inputResponses`;
// * 2025-11-25: the SDK's legacy shim (on by default) turns that same return into an
//   `elicitation/create` request to the client during the call and re-enters the handler
//   with the answer.
//
// Usage (scripts/bench.sh installs Node 22 and the SDK into node_modules with `npm ci`):
//
//     node bench/peers/typescript/provision_server.mjs stdio
//     node bench/peers/typescript/provision_server.mjs http HOST:PORT    # http://HOST:PORT/mcp

import { randomBytes } from 'node:crypto';

import { acceptedContent, createRequestStateCodec, inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

import { run } from './serve.mjs';

// Built once: the factory below runs per HTTP request (2026-07-28) or per session / stdio
// connection (2025-11-25), and should stay cheap. The key is per process, like the other
// peers' (every request of a run reaches the same process).
const stateCodec = createRequestStateCodec({ key: new Uint8Array(randomBytes(32)), ttlSeconds: 600 });
const provisionArgs = z.object({ name: z.string().describe("The database's name.") });
const region = z.object({ region: z.string().describe('Cloud region, e.g. eu-west-1.') });
const REGION_KEY = 'region';

function buildServer() {
    const server = new McpServer({ name: 'ts-provision', version: '1.0.0' }, { requestState: { verify: stateCodec.verify } });
    server.registerTool(
        'provision',
        { description: 'Provision a database. Asks which region to put it in.', inputSchema: provisionArgs },
        async ({ name }, ctx) => {
            const state = ctx.mcpReq.requestState();
            if (state === undefined) {
                // First round: ask, and seal what the retry needs to trust.
                return inputRequired({
                    inputRequests: {
                        [REGION_KEY]: inputRequired.elicit({ message: `Which region should ${name} live in?`, requestedSchema: region })
                    },
                    requestState: await stateCodec.mint({ name })
                });
            }
            // Retry: the hook has checked the seal and the ttl; the state must name this call's database.
            if (state.name !== name) {
                return { isError: true, content: [{ type: 'text', text: 'requestState belongs to another call.' }] };
            }
            const answer = acceptedContent(ctx.mcpReq.inputResponses, REGION_KEY, region);
            if (answer === undefined) {
                const declined = inputResponse(ctx.mcpReq.inputResponses, REGION_KEY).kind === 'elicit';
                const text = declined ? 'Provisioning cancelled.' : 'Missing the region answer.';
                return { isError: true, content: [{ type: 'text', text }] };
            }
            return { content: [{ type: 'text', text: `Provisioned '${state.name}' in ${answer.region}.` }] };
        }
    );
    return server;
}

run(buildServer, process.argv.slice(2), 'provision_server.mjs');
