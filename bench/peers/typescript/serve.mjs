// The command line the TypeScript benchmark peers share: `stdio`, or `http HOST:PORT`
// (Streamable HTTP at http://HOST:PORT/mcp), both serving one server factory.
//
// stdio: the SDK's `serveStdio`; the connection's first message picks the era (an
// `initialize` pins a 2025-11-25 instance, a request with the 2026-07-28 `_meta` a modern one).
//
// http: the SDK's documented pattern for serving both eras on one endpoint, as its
// `examples/legacy-routing` does: `isLegacyRequest` routes 2026-07-28 requests to a strict
// `createMcpHandler` (a fresh instance per request, its default `auto` response shape: JSON
// unless the handler streams) and 2025-11-25 traffic to stateful sessions on
// `WebStandardStreamableHTTPServerTransport` with its defaults (SSE responses). Stateful,
// not the handler's default stateless legacy leg, because a 2025-11-25 elicitation is a
// request from the server during the call whose answer is POSTed back to the same session,
// and because the Python and rmcp peers keep sessions too. Mounted on plain `node:http`
// through `toNodeHandler`, behind the localhost Host/Origin guards, the way the SDK's
// "Serve over HTTP" guide mounts it.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

/** Serve `factory` (`(era) => McpServer`) as `argv` says. */
export function run(factory, argv, program) {
    if (argv.length === 1 && argv[0] === 'stdio') {
        serveStdio(ctx => factory(ctx.era));
    } else if (argv.length === 2 && argv[0] === 'http') {
        const { host, port } = splitHostPort(argv[1], program);
        serveHttp(factory, host, port);
    } else {
        usage(program);
    }
}

function usage(program) {
    console.error(`usage: node ${program} stdio | node ${program} http HOST:PORT`);
    process.exit(2);
}

function splitHostPort(address, program) {
    const at = address.lastIndexOf(':');
    const host = address.slice(0, at).replace(/^\[|\]$/g, '');
    const port = address.slice(at + 1);
    if (at <= 0 || !host || !/^\d+$/.test(port)) {
        console.error(`expected HOST:PORT, got ${JSON.stringify(address)}`);
        usage(program);
    }
    return { host, port: Number(port) };
}

function serveHttp(factory, host, port) {
    const modern = createMcpHandler(ctx => factory(ctx.era), { legacy: 'reject' });
    const sessions = new Map();

    // The 2025-11-25 leg: one transport and server instance per session.
    async function legacy(request, parsedBody) {
        const sid = request.headers.get('mcp-session-id');
        const existing = sid ? sessions.get(sid) : undefined;
        if (existing) {
            return existing.handleRequest(request, { parsedBody });
        }
        if (sid) {
            return jsonRpcError(404, -32001, 'Session not found');
        }
        if (request.method !== 'POST') {
            return jsonRpcError(400, -32000, 'Bad Request: Session ID required');
        }
        // The transport itself answers anything but an `initialize` here with 400.
        const transport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: id => {
                sessions.set(id, transport);
            }
        });
        transport.onclose = () => {
            if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await factory('legacy').connect(transport);
        return transport.handleRequest(request, { parsedBody });
    }

    const app = {
        fetch: async request => {
            // Parse a POST body once and hand it to the routing predicate and to either leg
            // (the `parsedBody` the SDK offers for this), instead of each parsing it again.
            let parsedBody;
            if (request.method === 'POST') {
                try {
                    parsedBody = JSON.parse(await request.text());
                } catch {
                    return jsonRpcError(400, -32700, 'Parse error');
                }
            }
            if (await isLegacyRequest(request, parsedBody)) {
                return legacy(request, parsedBody);
            }
            return modern.fetch(request, { parsedBody });
        }
    };
    const nodeHandler = toNodeHandler(app);
    const validateHost = localhostHostValidation();
    const validateOrigin = localhostOriginValidation();
    // `node:http` sets TCP_NODELAY on accepted sockets by default (`noDelay: true`), as the
    // other servers measured do.
    const server = createServer((req, res) => {
        if (!validateHost(req, res) || !validateOrigin(req, res)) return;
        if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') {
            res.writeHead(404).end();
            return;
        }
        void nodeHandler(req, res);
    });
    server.listen(port, host);
}

function jsonRpcError(status, code, message) {
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
        status,
        headers: { 'content-type': 'application/json' }
    });
}
