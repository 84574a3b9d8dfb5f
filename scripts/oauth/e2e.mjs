// The OAuth end-to-end matrix of scripts/oauth-e2e.sh: HTTP requests to the provisioner
// (a protected resource) with tokens from a real authorization server
// (authorization-server.mjs), and tokens forged with its real signing key.
//
// Environment: MCP_URL (http://127.0.0.1:P/mcp), MCP_OPAQUE_URL (the provisioner that
// introspects opaque tokens), DEMO_BIN (the demo client, run against MCP_URL), AS_ISSUER, AS_KEY_FILE, AS_PID_FILE, AS_PORT, AS_LOG (the
// script restarts the AS with a new key for the rotation case).
// Prints one PASS/FAIL line per case; exits 1 if any failed.

import { readFileSync, writeFileSync, openSync, mkdtempSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, importJWK, decodeJwt } from 'jose';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const MCP_URL = env('MCP_URL');
const ISSUER = env('AS_ISSUER');
const RESOURCE = MCP_URL;
const MCP_OPAQUE_URL = env('MCP_OPAQUE_URL');
const PROTOCOL = '2026-07-28';
const here = new URL('.', import.meta.url).pathname;

let failures = 0;
const transcript = [];
async function check(name, body) {
  try {
    const note = await body();
    console.log(`PASS  ${name}${note ? `: ${note}` : ''}`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL  ${name}: ${e.message}`);
  }
}
function expect(condition, message) {
  if (!condition) throw new Error(message);
}

// --- the authorization server ------------------------------------------------------------

/** A POST of `form` to the AS at `path`, authenticated as `client` (secret "<id>-secret"). */
async function postAs(client, path, form) {
  return fetch(`${ISSUER}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client}:${client}-secret`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form),
  });
}

async function clientCredentials(client, scope, resource = RESOURCE) {
  const res = await postAs(client, '/token', { grant_type: 'client_credentials', scope, resource });
  const body = await res.json();
  expect(res.ok && body.access_token, `token request for ${client} failed: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** What the AS tells the resource server (client mcp-server) about `token` (RFC 7662). */
async function introspect(token) {
  const res = await postAs('mcp-server', '/token/introspection', { token, token_type_hint: 'access_token' });
  if (!res.ok) throw new Error(`introspection: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A JWS compact serialization: three base64url parts. */
const looksLikeJwt = (token) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

/** Authorization code + PKCE (S256) for `user`, login and consent driven headlessly. */
async function authorizationCode(user, scope = 'db:read db:write') {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(16).toString('base64url');
  const redirect = 'http://127.0.0.1/callback';
  let url = `${ISSUER}/auth?${new URLSearchParams({
    client_id: 'cli',
    response_type: 'code',
    redirect_uri: redirect,
    scope,
    resource: RESOURCE,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    login_hint: user,
    prompt: 'consent',
  })}`;
  url = await browse(url, (at) => at.startsWith(redirect));
  const params = new URL(url).searchParams;
  expect(params.get('state') === state, 'state does not round-trip');
  expect(params.get('iss') === ISSUER, `iss ${params.get('iss')} is not the issuer (RFC 9207)`);
  const code = params.get('code');
  expect(code, `no code: ${params.get('error')} ${params.get('error_description')}`);
  const res = await fetch(`${ISSUER}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'cli',
      code,
      redirect_uri: redirect,
      code_verifier: verifier,
      resource: RESOURCE,
    }),
  });
  const body = await res.json();
  expect(res.ok && body.access_token, `code exchange failed: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/**
 * What a browser does with an authorization URL, headlessly: follows the redirects (login
 * and consent by the AS's interaction handler), keeping cookies, until `stop(url)` or a
 * page that is no redirect (whose URL is returned, after it was fetched).
 */
async function browse(start, stop = () => false) {
  const cookies = new Map();
  let url = start;
  for (let hop = 0; hop < 10; hop += 1) {
    if (stop(url)) return url;
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400) {
      const page = await res.text();
      expect(res.ok, `login flow stopped at ${res.status}: ${page.slice(0, 200)}`);
      return url;
    }
    expect(location, `login flow stopped at ${res.status} without a location`);
    url = new URL(location, url).toString();
  }
  throw new Error('too many redirects in the login flow');
}

function signingKey() {
  return JSON.parse(readFileSync(env('AS_KEY_FILE'), 'utf8'));
}

/** A token signed with the AS's real key, claims and header as given. */
async function forge(claims, header = {}) {
  const jwk = signingKey();
  const key = await importJWK(jwk, 'RS256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'db:read db:write', client_id: 'ops-a', ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: jwk.kid, ...header })
    .setIssuer(claims.iss ?? ISSUER)
    .setSubject('ops-a')
    .setAudience(claims.aud ?? RESOURCE)
    .setIssuedAt(claims.iat ?? now)
    .setExpirationTime(claims.exp ?? now + 300)
    .sign(key);
}

async function waitForPort(port, up) {
  for (let i = 0; i < 100; i += 1) {
    const open = await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`).then(
      () => true,
      () => false,
    );
    if (open === up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the authorization server did not go ${up ? 'up' : 'down'}`);
}

/** Stop the AS and start it again on the same port: a new signing key, a new kid. */
async function restartAuthorizationServer() {
  const pidFile = env('AS_PID_FILE');
  process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
  await waitForPort(env('AS_PORT'), false);
  const log = openSync(env('AS_LOG'), 'a');
  const child = spawn(process.execPath, [`${here}authorization-server.mjs`], {
    env: process.env,
    stdio: ['ignore', log, log],
    detached: true,
  });
  child.unref();
  writeFileSync(pidFile, String(child.pid));
  await waitForPort(env('AS_PORT'), true);
}

// --- the provisioner -----------------------------------------------------------------------

const clientCapabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };
let nextId = 1;

/** One JSON-RPC request over Streamable HTTP at 2026-07-28: status, headers and message. */
async function mcp(token, method, params = {}, name = undefined, url = MCP_URL) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL,
    'mcp-method': method,
  };
  if (name !== undefined) headers['mcp-name'] = name;
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL,
        'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
        'io.modelcontextprotocol/clientInfo': { name: 'oauth-e2e', version: '1.0.0' },
      },
      ...params,
    },
  };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  let message;
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
    message = data.map((d) => JSON.parse(d)).find((m) => m.id === body.id);
  } else if (text) {
    message = JSON.parse(text);
  }
  return { status: res.status, challenge: res.headers.get('www-authenticate'), message };
}

const callTool = (token, name, args = {}, extra = {}, url = MCP_URL) =>
  mcp(token, 'tools/call', { name, arguments: args, ...extra }, name, url);
/** The same requests to the provisioner that introspects opaque tokens. */
const opaque = {
  mcp: (token, method, params = {}, name = undefined) => mcp(token, method, params, name, MCP_OPAQUE_URL),
  callTool: (token, name, args = {}, extra = {}) => callTool(token, name, args, extra, MCP_OPAQUE_URL),
};

function expectOk(reply, what) {
  expect(reply.status === 200, `${what}: HTTP ${reply.status} (${reply.challenge ?? 'no challenge'}) ${JSON.stringify(reply.message)}`);
  expect(reply.message?.result, `${what}: no result: ${JSON.stringify(reply.message)}`);
  return reply.message.result;
}

function expectInvalidToken(reply) {
  expect(reply.status === 401, `expected 401, got ${reply.status}`);
  expect(/^Bearer /.test(reply.challenge ?? ''), `no Bearer challenge: ${reply.challenge}`);
  expect(reply.challenge.includes('error="invalid_token"'), `no error="invalid_token": ${reply.challenge}`);
  expect(reply.challenge.includes('resource_metadata="'), `no resource_metadata: ${reply.challenge}`);
  return `401 ${reply.challenge}`;
}

const textOf = (result) => (result.content ?? []).map((c) => c.text).join('');
const regionAnswers = (inputRequests) =>
  Object.fromEntries(Object.keys(inputRequests).map((key) => [key, { action: 'accept', content: { region: 'eu-west-1' } }]));

// --- the matrix ----------------------------------------------------------------------------

const tokens = {};
const metadataUrl = `${new URL(MCP_URL).origin}/.well-known/oauth-protected-resource${new URL(MCP_URL).pathname}`;

await check('valid token (client credentials) accepted', async () => {
  tokens.opsA = await clientCredentials('ops-a', 'db:read db:write');
  const result = expectOk(await mcp(tokens.opsA, 'tools/list'), 'tools/list');
  const names = result.tools.map((t) => t.name).sort();
  expect(names.includes('provision'), `tools/list: ${names}`);
  return `tools/list lists ${names.join(', ')}`;
});

await check('valid token (authorization code + PKCE, alice) accepted', async () => {
  tokens.alice = await authorizationCode('alice');
  const claims = decodeJwt(tokens.alice);
  expect(claims.sub === 'alice' && claims.aud === RESOURCE, `claims: sub ${claims.sub}, aud ${claims.aud}`);
  expectOk(await mcp(tokens.alice, 'tools/list'), 'tools/list');
  return `sub=alice client_id=${claims.client_id} scope="${claims.scope}"`;
});

await check('no token: 401 with resource_metadata', async () => {
  const reply = await mcp(undefined, 'tools/list');
  expect(reply.status === 401, `expected 401, got ${reply.status}`);
  expect(reply.challenge?.includes(`resource_metadata="${metadataUrl}"`), `challenge: ${reply.challenge}`);
  expect(!reply.challenge.includes('error='), `no error for a missing token: ${reply.challenge}`);
  transcript.push(`401 (no token)  WWW-Authenticate: ${reply.challenge}`);
  return reply.challenge;
});

await check('protected resource metadata document', async () => {
  const res = await fetch(metadataUrl);
  expect(res.status === 200, `GET ${metadataUrl}: ${res.status}`);
  expect((res.headers.get('content-type') ?? '').includes('application/json'), `content-type ${res.headers.get('content-type')}`);
  const doc = await res.json();
  expect(doc.resource === RESOURCE, `resource ${doc.resource}`);
  expect(JSON.stringify(doc.authorization_servers) === JSON.stringify([ISSUER]), `authorization_servers ${doc.authorization_servers}`);
  expect(JSON.stringify([...(doc.scopes_supported ?? [])].sort()) === '["db:read","db:write"]', `scopes_supported ${doc.scopes_supported}`);
  expect(JSON.stringify(doc.bearer_methods_supported) === '["header"]', `bearer_methods_supported ${doc.bearer_methods_supported}`);
  transcript.push(`GET ${metadataUrl}\n${JSON.stringify(doc, null, 2)}`);
  return JSON.stringify(doc);
});

await check('expired token refused', async () => {
  const now = Math.floor(Date.now() / 1000);
  const note = expectInvalidToken(await mcp(await forge({ iat: now - 900, exp: now - 600 }), 'tools/list'));
  transcript.push(`401 (expired)  WWW-Authenticate: ${note.slice(4)}`);
  return note;
});

await check('wrong audience (a real token for another resource) refused', async () => {
  const other = `${new URL(MCP_URL).origin}/other-mcp`;
  const token = await clientCredentials('ops-a', 'db:read db:write', other);
  expect(decodeJwt(token).aud === other, `aud ${decodeJwt(token).aud}`);
  return expectInvalidToken(await mcp(token, 'tools/list'));
});

await check('wrong issuer (real key, iss changed) refused', async () =>
  expectInvalidToken(await mcp(await forge({ iss: 'http://127.0.0.1:1' }), 'tools/list')));

await check('bad signature (tampered payload) refused', async () => {
  const [header, payload, signature] = tokens.opsA.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  claims.scope = 'db:read db:write db:admin';
  const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
  return expectInvalidToken(await mcp(tampered, 'tools/list'));
});

await check('alg none refused', async () => {
  const jwk = signingKey();
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: jwk.kid })).toString('base64url');
  const payload = tokens.opsA.split('.')[1];
  return expectInvalidToken(await mcp(`${header}.${payload}.`, 'tools/list'));
});

await check('db:read token calling provision: 403 insufficient_scope', async () => {
  tokens.readOnly = await clientCredentials('ops-b', 'db:read');
  const reply = await callTool(tokens.readOnly, 'provision', { name: 'orders' });
  expect(reply.status === 403, `expected 403, got ${reply.status} ${JSON.stringify(reply.message)}`);
  expect(reply.challenge?.includes('error="insufficient_scope"'), `challenge: ${reply.challenge}`);
  expect(reply.challenge.includes('scope="db:write"'), `challenge: ${reply.challenge}`);
  expect(reply.challenge.includes(`resource_metadata="${metadataUrl}"`), `challenge: ${reply.challenge}`);
  expect(reply.message?.error, `no JSON-RPC error: ${JSON.stringify(reply.message)}`);
  transcript.push(`403 (db:read calling provision)  WWW-Authenticate: ${reply.challenge}\n  body: ${JSON.stringify(reply.message)}`);
  return `${reply.challenge}; JSON-RPC ${reply.message.error.code} ${reply.message.error.message}`;
});

await check('the same db:read token calling a db:read item works', async () => {
  const result = expectOk(await callTool(tokens.readOnly, 'suggest_name', { topic: 'orders' }), 'suggest_name');
  expect(result.resultType === 'input_required' && result.inputRequests, `suggest_name: ${JSON.stringify(result)}`);
  return `suggest_name answered ${result.resultType} (it asks the client's model)`;
});

await check('requestState minted for alice, retried by bob: -32602', async () => {
  const first = expectOk(await callTool(tokens.alice, 'provision', { name: 'orders' }), 'first round');
  expect(first.resultType === 'input_required' && first.requestState, `first round: ${JSON.stringify(first)}`);
  tokens.bob = await authorizationCode('bob');
  const retry = { inputResponses: regionAnswers(first.inputRequests), requestState: first.requestState };
  const stolen = await callTool(tokens.bob, 'provision', { name: 'orders' }, retry);
  expect(stolen.message?.error?.code === -32602, `bob's retry: HTTP ${stolen.status} ${JSON.stringify(stolen.message)}`);
  const own = expectOk(await callTool(tokens.alice, 'provision', { name: 'orders' }, retry), "alice's retry");
  expect(textOf(own) === "Provisioned 'orders' in eu-west-1.", `alice's retry: ${JSON.stringify(own)}`);
  return `bob: HTTP ${stolen.status} ${stolen.message.error.code} ${JSON.stringify(stolen.message.error.message)}; alice: "${textOf(own)}"`;
});

// --- the demo client, authorizing itself (dynamic registration, loopback redirect) -------

/**
 * Runs `demo --url MCP_URL --token-store store` (stdin not a terminal: it answers with
 * defaults). When it prints an authorization URL, `open(url)` is called. Resolves with
 * its exit code, its output and the URLs it printed.
 */
function runDemo(store, open) {
  return new Promise((resolve, reject) => {
    const child = spawn(env('DEMO_BIN'), ['--url', MCP_URL, '--token-store', store], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RUST_LOG: 'warn' },
    });
    let stdout = '';
    let stderr = '';
    const urls = [];
    const opening = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      for (const [, url] of stdout.matchAll(/^ {3}(http:\/\/\S+\/auth\?\S+)$/gm)) {
        if (urls.includes(url)) continue;
        urls.push(url);
        const opened = open(url);
        opened.catch(() => {}); // reported when the demo has exited
        opening.push(opened);
      }
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', async (code, signal) => {
      clearTimeout(timer);
      try {
        await Promise.all(opening);
        resolve({ code, signal, stdout, stderr, urls });
      } catch (e) {
        reject(e);
      }
    });
  });
}

await check('demo --url: authorizes (registration, loopback redirect), then reuses its token store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oauth-e2e-demo-'));
  try {
    const store = join(dir, 'tokens.json');
    const first = await runDemo(store, async (url) => {
      const at = new URL(url);
      expect(at.origin === ISSUER && at.pathname === '/auth', `authorization URL ${url}`);
      expect(at.searchParams.get('resource') === RESOURCE, `resource ${at.searchParams.get('resource')}`);
      expect(at.searchParams.get('code_challenge_method') === 'S256', 'no PKCE S256');
      const redirect = new URL(at.searchParams.get('redirect_uri'));
      expect(redirect.hostname === '127.0.0.1' && redirect.pathname === '/callback', `redirect_uri ${redirect}`);
      // The AS logs in its default user (AS_DEFAULT_USER) and redirects to the demo.
      const landed = new URL(await browse(url));
      expect(landed.origin === redirect.origin, `the login flow ended at ${landed.origin}${landed.pathname}`);
    });
    const output = `${first.stdout}${first.stderr}`;
    expect(first.code === 0, `first run: exit ${first.code ?? first.signal}\n${output}`);
    expect(first.urls.length === 1, `first run: ${first.urls.length} authorization URL(s)`);
    expect(/Provisioned cluster 'analytics'/.test(first.stdout), `first run: no "Provisioned cluster"\n${output}`);
    // No token, code or verifier in anything it printed.
    for (const secret of [/eyJ[A-Za-z0-9_-]{10,}\./, /[?&]code=/, /code_verifier/, /access_token/, /refresh_token/]) {
      expect(!secret.test(output), `the demo's output matches ${secret}`);
    }
    const second = await runDemo(store, async (url) => {
      throw new Error(`the second run asked for authorization again: ${url}`);
    });
    expect(second.code === 0, `second run: exit ${second.code ?? second.signal}\n${second.stdout}${second.stderr}`);
    expect(second.urls.length === 0 && !/open this URL/.test(second.stdout), 'the second run printed an authorization URL');
    expect(/Provisioned cluster 'analytics'/.test(second.stdout), `second run: no "Provisioned cluster"\n${second.stdout}`);
    transcript.push(`demo --url ${MCP_URL} --token-store ${store}  (first run)\n${first.stdout.trimEnd()}`);
    return `first run: 1 authorization URL, exit 0; second run: no URL, exit 0`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// --- opaque tokens, introspected (before the rotation case: restarting the AS forgets them) ---

const opaqueMetadataUrl = `${new URL(MCP_OPAQUE_URL).origin}/.well-known/oauth-protected-resource${new URL(MCP_OPAQUE_URL).pathname}`;

await check('opaque: token (client credentials) accepted by introspection', async () => {
  tokens.opaqueA = await clientCredentials('ops-a', 'db:read db:write', MCP_OPAQUE_URL);
  expect(!looksLikeJwt(tokens.opaqueA), `the token for ${MCP_OPAQUE_URL} is a JWT, not opaque`);
  const answer = await introspect(tokens.opaqueA);
  expect(answer.active === true && answer.aud === MCP_OPAQUE_URL, `introspection: active ${answer.active}, aud ${answer.aud}`);
  const result = expectOk(await opaque.mcp(tokens.opaqueA, 'tools/list'), 'tools/list');
  const names = result.tools.map((t) => t.name).sort();
  expect(names.includes('provision'), `tools/list: ${names}`);
  return `${tokens.opaqueA.length}-char opaque token, introspected as aud=${answer.aud} scope="${answer.scope}"; tools/list lists ${names.length} tools`;
});

await check('opaque: garbage token refused', async () => {
  const reply = await opaque.mcp(randomBytes(32).toString('base64url'), 'tools/list');
  const note = expectInvalidToken(reply);
  expect(reply.challenge.includes(`resource_metadata="${opaqueMetadataUrl}"`), `challenge: ${reply.challenge}`);
  return note;
});

await check('opaque: db:read token calling provision: 403 insufficient_scope', async () => {
  const readOnly = await clientCredentials('ops-b', 'db:read', MCP_OPAQUE_URL);
  expect(!looksLikeJwt(readOnly), 'the db:read token is a JWT, not opaque');
  const reply = await opaque.callTool(readOnly, 'provision', { name: 'orders' });
  expect(reply.status === 403, `expected 403, got ${reply.status} ${JSON.stringify(reply.message)}`);
  expect(reply.challenge?.includes('error="insufficient_scope"'), `challenge: ${reply.challenge}`);
  expect(reply.challenge.includes('scope="db:write"'), `challenge: ${reply.challenge}`);
  expect(reply.challenge.includes(`resource_metadata="${opaqueMetadataUrl}"`), `challenge: ${reply.challenge}`);
  expectOk(await opaque.callTool(readOnly, 'suggest_name', { topic: 'orders' }), 'suggest_name (db:read)');
  return `403 ${reply.challenge}`;
});

await check('opaque: token revoked at the AS before its first use refused', async () => {
  const token = await clientCredentials('ops-a', 'db:read db:write', MCP_OPAQUE_URL);
  const res = await postAs('ops-a', '/token/revocation', { token, token_type_hint: 'access_token' });
  if (res.status !== 200) throw new Error(`revocation: ${res.status} ${await res.text()}`);
  const answer = await introspect(token);
  expect(answer.active === false, `the AS still calls the revoked token active: ${JSON.stringify(answer)}`);
  return expectInvalidToken(await opaque.mcp(token, 'tools/list'));
});

await check('opaque: active token for another resource (aud) refused', async () => {
  const other = `${new URL(MCP_OPAQUE_URL).origin}/other-mcp`;
  const token = await clientCredentials('ops-a', 'db:read db:write', other);
  const answer = await introspect(token);
  expect(answer.active === true && answer.aud === other, `introspection: active ${answer.active}, aud ${answer.aud}`);
  return expectInvalidToken(await opaque.mcp(token, 'tools/list'));
});

// node-oidc-provider does not introspect JWTs (400 unsupported_token_type): the verifier
// refuses the token and logs that it could not introspect it.
await check('opaque: JWT for the first resource refused', async () => {
  expect(looksLikeJwt(tokens.opsA), 'the first resource\'s token is not a JWT');
  expectOk(await mcp(tokens.opsA, 'tools/list'), 'the same token at the JWT provisioner');
  return expectInvalidToken(await opaque.mcp(tokens.opsA, 'tools/list'));
});

await check('JWKS rotation (new kid) picked up without restarting the provisioner', async () => {
  const oldKid = signingKey().kid;
  await restartAuthorizationServer();
  const newKid = signingKey().kid;
  expect(newKid !== oldKid, 'the restarted AS kept its key');
  const token = await clientCredentials('ops-a', 'db:read db:write');
  // The verifier refetches the JWKS on an unknown kid at most once per refresh interval
  // (30 s by default): retry until it has.
  const started = Date.now();
  for (;;) {
    const reply = await mcp(token, 'tools/list');
    if (reply.status === 200) return `kid ${newKid} accepted after ${((Date.now() - started) / 1000).toFixed(1)} s`;
    expect(reply.status === 401, `unexpected ${reply.status}`);
    expect(Date.now() - started < 45_000, 'the new key was not picked up within 45 s');
    await new Promise((r) => setTimeout(r, 1000));
  }
});

console.log('\n--- transcript ---');
for (const entry of transcript) console.log(entry);
console.log(failures === 0 ? '\noauth e2e: all cases passed' : `\noauth e2e: ${failures} case(s) failed`);
process.exit(failures === 0 ? 0 : 1);
