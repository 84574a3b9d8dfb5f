// A real OAuth 2.1 authorization server for scripts/oauth-e2e.sh: node-oidc-provider on
// http://127.0.0.1:$AS_PORT, issuing access tokens for resource indicators (RFC 8707) with
// scopes db:read and db:write: JWTs (RFC 9068), or opaque tokens for the resources on
// $AS_OPAQUE_ORIGIN, which their resource server checks by token introspection (RFC 7662,
// POST /token/introspection). Revocation (RFC 7009) is at POST /token/revocation.
//
// Environment:
//   AS_PORT            the loopback port to listen on
//   AS_KEY_FILE        where to write the private signing JWK generated at start (the test
//                      forges tokens with it); a new key with a new kid on every start
//   AS_OPAQUE_ORIGIN   optional; an origin (http://127.0.0.1:P) whose resources get opaque
//                      access tokens
//   AS_DEFAULT_USER    optional; the user logged in when an authorization request names
//                      none in login_hint (a client such as the demo, whose URL is "opened"
//                      by following redirects); unset, such a request fails
//
// Clients:
//   ops-a, ops-b  confidential, client_credentials (client_secret_basic, secret "<id>-secret")
//   cli           public, authorization code + PKCE S256, redirect http://127.0.0.1/callback
//   mcp-server    confidential (client_secret_basic, secret "mcp-server-secret"), no grants:
//                 the resource server on AS_OPAQUE_ORIGIN introspecting tokens meant for it
//   demo          public native client, authorization code + PKCE + refresh, redirect
//                 http://127.0.0.1/callback on any port (RFC 8252 §7.3 loopback)
//   and any client registered dynamically at POST /reg (RFC 7591, open registration)
// Users: any login_hint (alice, bob) is logged in and consents to what is asked, headlessly,
// by the interaction handler below (GET /interaction/:uid).

import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors } from 'oidc-provider';

const port = Number(process.env.AS_PORT);
const keyFile = process.env.AS_KEY_FILE;
if (!port || !keyFile) {
  console.error('authorization-server: AS_PORT and AS_KEY_FILE are required');
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;

const { privateKey } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
writeFileSync(keyFile, JSON.stringify(jwk), { mode: 0o600 });

const RESOURCE_SCOPES = 'db:read db:write';
const opaqueOrigin = process.env.AS_OPAQUE_ORIGIN;
const INTROSPECTOR = 'mcp-server';

/** Whether `resource` (an absolute URL) is served on AS_OPAQUE_ORIGIN. */
const onOpaqueOrigin = (resource) => Boolean(opaqueOrigin) && URL.canParse(resource) && new URL(resource).origin === opaqueOrigin;

const provider = new Provider(issuer, {
  jwks: { keys: [jwk] },
  // The resource scopes are listed too, so that a dynamically registered client may name
  // them in its registration's `scope`.
  scopes: ['openid', 'offline_access', ...RESOURCE_SCOPES.split(' ')],
  cookies: { keys: [randomUUID()] },
  clients: [
    { client_id: 'ops-a', client_secret: 'ops-a-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] },
    { client_id: 'ops-b', client_secret: 'ops-b-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [] },
    {
      client_id: 'cli',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/callback'],
    },
    {
      client_id: 'demo',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/callback'],
    },
    { client_id: INTROSPECTOR, client_secret: `${INTROSPECTOR}-secret`, grant_types: [], response_types: [], redirect_uris: [] },
  ],
  async findAccount(_ctx, sub) {
    return { accountId: sub, async claims() { return { sub }; } };
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    // Dynamic client registration (RFC 7591), open: the MCP client registers itself.
    registration: { enabled: true },
    introspection: {
      enabled: true,
      // A client learns about its own tokens; the resource server about the tokens meant for
      // a resource on its origin (their aud), whoever they were issued to.
      allowedPolicy(_ctx, client, token) {
        if (token.clientId === client.clientId) return true;
        const audiences = [token.aud].flat().filter(Boolean);
        return client.clientId === INTROSPECTOR && audiences.length > 0 && audiences.every(onOpaqueOrigin);
      },
    },
    revocation: {
      enabled: true,
      // Only the client a token was issued to may revoke it.
      allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo(_ctx, resourceIndicator) {
        if (!resourceIndicator.startsWith('http://127.0.0.1:')) throw new errors.InvalidTarget();
        const accessTokenFormat = onOpaqueOrigin(resourceIndicator) ? 'opaque' : 'jwt';
        return { scope: RESOURCE_SCOPES, audience: resourceIndicator, accessTokenTTL: 300, accessTokenFormat };
      },
    },
  },
});

// Logs the user named by login_hint in, then grants everything the client asked for.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const accountId = params.login_hint ?? process.env.AS_DEFAULT_USER;
    if (!accountId) throw new Error('the test names its user in login_hint (or AS_DEFAULT_USER)');
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  if (prompt.name === 'consent') {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  throw new Error(`unexpected prompt ${prompt.name}`);
}

const callback = provider.callback();
const server = createServer((req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((e) => {
      console.error(`authorization-server: interaction failed: ${e.message}`);
      res.statusCode = 500;
      res.end('interaction failed');
    });
    return;
  }
  callback(req, res);
});
server.listen(port, '127.0.0.1', () => console.error(`authorization-server: ${issuer} (kid ${jwk.kid})`));
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
