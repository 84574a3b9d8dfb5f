// A real OAuth 2.1 authorization server for scripts/oauth-e2e.sh: node-oidc-provider on
// http://127.0.0.1:$AS_PORT, issuing JWT access tokens (RFC 9068) for resource indicators
// (RFC 8707) with scopes db:read and db:write.
//
// Environment:
//   AS_PORT       the loopback port to listen on
//   AS_KEY_FILE   where to write the private signing JWK generated at start (the test
//                 forges tokens with it); a new key with a new kid on every start
//
// Clients:
//   ops-a, ops-b  confidential, client_credentials (client_secret_basic, secret "<id>-secret")
//   cli           public, authorization code + PKCE S256, redirect http://127.0.0.1/callback
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

const provider = new Provider(issuer, {
  jwks: { keys: [jwk] },
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
  ],
  async findAccount(_ctx, sub) {
    return { accountId: sub, async claims() { return { sub }; } };
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo(_ctx, resourceIndicator) {
        if (!resourceIndicator.startsWith('http://127.0.0.1:')) throw new errors.InvalidTarget();
        return { scope: RESOURCE_SCOPES, audience: resourceIndicator, accessTokenTTL: 300, accessTokenFormat: 'jwt' };
      },
    },
  },
});

// Logs the user named by login_hint in, then grants everything the client asked for.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const accountId = params.login_hint;
    if (!accountId) throw new Error('the test names its user in login_hint');
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
