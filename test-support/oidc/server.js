// A real OpenID provider for tests: panva/oidc-provider on a free loopback port.
//
// Configuration comes from the OIDC_TEST_CONFIG environment variable (JSON):
//   { "clients": [ { client_id, client_secret, redirect_uris, post_logout_redirect_uris } ],
//     "users": { "<login>": { "email": "...", "name": "...", "groups": ["..."] } } }
// The login and consent interactions need no form: the user named by the authorization
// request's `login_hint` is signed in (a hint naming no configured user gets an error page),
// and every requested scope is granted. A user given a `password` (plain text: a demo user of
// `make run`) signs in only through a sign-in form (username and password, POSTed back to the
// interaction URL; a login_hint only fills in the username), as a person in a browser would;
// while any user has a password, a request without a usable hint gets that form too. PKCE is required for every client, as a strict provider
// would. On start it prints one JSON line to stdout: {"issuer": "http://127.0.0.1:<port>"}.
//
// Optional `issuer` and `listen` ("host:port") serve a fixed issuer, which may have a path
// (http://dex:5556/dex): requests below the path are served, the rest get 404. The container
// test's Dex stand-in (docker/test/dex) runs this file that way. Without them the provider
// listens on a free loopback port and is its own issuer.
//
// Client credentials (API clients): a client with `grant_types: ["client_credentials"]` (and
// `response_types: [], redirect_uris: []`) gets a JWT access token (RS256, typ at+jwt, 10 min) for
// one of the optional `resource_servers` (a list of audiences, e.g. "urn:authproxy:search"): the
// one named by the token request's `resource` parameter, else the first.
//
// Refresh tokens: every client may use the refresh_token grant (its `grant_types` may say
// otherwise); a code exchange gets a refresh token only when the authorization asked for the
// `offline_access` scope (oidc-provider's default `issueRefreshToken`, as Dex and Okta do), rotated
// at each use (a reused one is refused). `access_token_ttl` (seconds, default 3600) is the access
// tokens' lifetime. Test-only hooks: `POST /__test/set-groups` `{"login", "groups": [...]}`
// changes a user's groups (the next token shows them), `POST /__test/revoke-refresh-tokens`
// revokes every refresh token issued, and `GET /__test/refresh-grants` answers
// `{"ok": n, "failed": m, "pending": p, "issued": i, "userinfo": u}`: refresh grants by outcome,
// refresh grants answered by the provider but held back (see slow-refresh), refresh tokens issued
// at code exchanges, userinfo requests (sign-ins' and refreshes'). `POST /__test/refresh-behaviour` `{"delay_ms": n, "id_token": bool,
// "userinfo": bool, "userinfo_delay_ms": n}` changes how refreshes are answered from then on:
// each refresh-grant answer is held back `delay_ms` after the provider made it (the token already
// rotated), without its ID token when `id_token` is false; userinfo answers 500 when `userinfo`
// is false, and `userinfo_delay_ms` late.
//
// Signing key: an RSA key made at start (kid `test-rsa`), published at /jwks. The provider also
// advertises HS256 for ID tokens, as Keycloak does, so relying parties are tested against a
// provider that lists a symmetric algorithm.
//
// Test-only hook for forged tokens: `POST /__test/forge-next-id-token` with
// `{"kind": "<kind>"}` makes the NEXT token response carry, in place of the genuine ID token (or,
// in a response without one, the JWT access token), a forgery built from it (same claims, nonce
// included, unless the kind changes them):
//   resign             the genuine claims, signed again with the provider's key (a control)
//   wrong_aud          `aud` is another audience             (signed with the provider's key)
//   wrong_iss          `iss` is another issuer               (signed with the provider's key)
//   expired            `exp` an hour ago                     (signed with the provider's key)
//   other_client       `aud` and `azp` name another client   (signed with the provider's key)
//   other_azp          `aud` is the client, `azp` another one (signed with the provider's key)
//   extra_audience     `aud` is the client and another one, `azp` the other one
//   alg_none           `alg: none`, no signature
//   hs256_public_key   HS256 with the provider's public key (PEM) as the HMAC secret
//   hs256_client_secret HS256 with the client's own secret (valid per OIDC Core, refused by policy)
//   foreign_key        RS256 by a key the provider never published, under the provider's kid
//   unknown_kid        RS256 by a key the provider never published, under a kid it never used
//   tampered           the genuine header and signature over claims with another `sub`
//   not_yet_valid      `nbf` an hour ahead                   (signed with the provider's key)
import crypto from 'node:crypto';
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_TEST_CONFIG || '{}');
const users = config.users || {};
const resourceServers = config.resource_servers || [];
const clients = (config.clients || []).map((client) => ({
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...client,
}));

const KID = 'test-rsa';
const signingKey = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const foreignKey = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateJwk = { ...signingKey.privateKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' };
let nextForgery = null;
// Refresh tokens issued (for the revocation hook) and refresh-grant answers by outcome.
const issuedRefreshTokens = [];
const refreshGrants = { ok: 0, failed: 0, pending: 0, issued: 0, userinfo: 0 };
const refreshBehaviour = { delay_ms: 0, id_token: true, userinfo: true, userinfo_delay_ms: 0 };

const b64url = (data) => Buffer.from(data).toString('base64url');

function jws(header, payload, sign) {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${sign(Buffer.from(input))}`;
}

const rs256 = (key) => (input) => crypto.sign('sha256', input, key).toString('base64url');
const hs256 = (secret) => (input) => crypto.createHmac('sha256', secret).update(input).digest('base64url');

function forge(genuine, kind, clientId) {
  const [, body] = genuine.split('.');
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
  const now = Math.floor(Date.now() / 1000);
  const rsHeader = { alg: 'RS256', typ: 'JWT', kid: KID };
  const signed = (payload) => jws(rsHeader, payload, rs256(signingKey.privateKey));
  const client = clients.find((c) => c.client_id === clientId);
  switch (kind) {
    case 'resign': return signed(claims);
    case 'wrong_aud': return signed({ ...claims, aud: 'someone-else' });
    case 'wrong_iss': return signed({ ...claims, iss: 'http://evil.example' });
    case 'expired': return signed({ ...claims, iat: now - 7200, exp: now - 3600 });
    case 'other_client': return signed({ ...claims, aud: 'another-client', azp: 'another-client' });
    case 'other_azp': return signed({ ...claims, aud: clientId, azp: 'another-client' });
    case 'extra_audience': return signed({ ...claims, aud: [clientId, 'another-client'], azp: 'another-client' });
    case 'alg_none': return jws({ alg: 'none', typ: 'JWT' }, claims, () => '');
    case 'hs256_public_key': {
      const pem = signingKey.publicKey.export({ type: 'spki', format: 'pem' });
      return jws({ alg: 'HS256', typ: 'JWT', kid: KID }, claims, hs256(pem));
    }
    case 'hs256_client_secret':
      return jws({ alg: 'HS256', typ: 'JWT' }, claims, hs256(client?.client_secret ?? ''));
    case 'foreign_key': return jws(rsHeader, claims, rs256(foreignKey.privateKey));
    case 'unknown_kid': return jws({ ...rsHeader, kid: 'never-published' }, claims, rs256(foreignKey.privateKey));
    case 'tampered': {
      const [header, , signature] = genuine.split('.');
      return `${header}.${b64url(JSON.stringify({ ...claims, sub: 'admin' }))}.${signature}`;
    }
    case 'not_yet_valid': return signed({ ...claims, nbf: now + 3600 });
    default: throw new Error(`unknown forgery ${kind}`);
  }
}

async function readJson(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text || '{}');
}

const server = http.createServer();
const [listenHost, listenPort] = config.listen ? config.listen.split(':') : ['127.0.0.1', '0'];
server.listen(Number(listenPort), listenHost, () => {
  const issuer = config.issuer ?? `http://127.0.0.1:${server.address().port}`;
  const prefix = new URL(issuer).pathname.replace(/\/$/, '');
  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [privateJwk] },
    enabledJWA: { idTokenSigningAlgValues: ['RS256', 'HS256'] },
    cookies: { keys: ['test-only-cookie-key-not-secret'] },
    pkce: { required: () => true },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups'],
    },
    scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
    // Put the claims in the ID token too, as many providers (Dex, Keycloak) do.
    conformIdTokenClaims: false,
    // Refresh tokens only for an authorization that asked for offline_access (the default
    // issueRefreshToken, as Dex and Okta do), rotated at each use: a spent one is refused
    // (invalid_grant) and its grant revoked, so a relying party that spends one twice is caught.
    rotateRefreshToken: true,
    ttl: {
      AccessToken: config.access_token_ttl ?? 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
      Interaction: 3600,
      ClientCredentials: 600,
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        async defaultResource(ctx, client, oneOf) {
          if (oneOf) return oneOf;
          return ctx.oidc.params?.grant_type === 'client_credentials' ? resourceServers[0] : undefined;
        },
        async useGrantedResource() { return false; },
        async getResourceServerInfo(ctx, indicator) {
          if (!resourceServers.includes(indicator)) throw new errors.InvalidTarget();
          return {
            scope: 'search',
            audience: indicator,
            accessTokenTTL: 600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    interactions: { url: (ctx, interaction) => `${prefix}/interaction/${interaction.uid}` },
    async findAccount(ctx, accountId) {
      const user = users[accountId];
      if (!user) return undefined;
      return {
        accountId,
        async claims() {
          return {
            sub: accountId,
            email: user.email ?? `${accountId}@example.com`,
            email_verified: user.email_verified ?? true,
            name: user.name ?? accountId,
            preferred_username: accountId,
            // No `groups` claim at all for a user in none, as Keycloak and Okta do.
            ...(user.groups?.length ? { groups: user.groups } : {}),
          };
        },
      };
    },
  });
  provider.proxy = false;
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/token') {
      const grantType = ctx.oidc?.params?.grant_type;
      if (grantType === 'refresh_token') {
        refreshGrants[ctx.status === 200 ? 'ok' : 'failed'] += 1;
        if (ctx.status === 200 && !refreshBehaviour.id_token) {
          const { id_token: _, ...rest } = ctx.body;
          ctx.body = rest;
        }
        if (refreshBehaviour.delay_ms > 0) {
          refreshGrants.pending += 1;
          await new Promise((resolve) => { setTimeout(resolve, refreshBehaviour.delay_ms); });
          refreshGrants.pending -= 1;
        }
      }
      if (ctx.status === 200 && ctx.body?.refresh_token) {
        issuedRefreshTokens.push(ctx.body.refresh_token);
        if (grantType === 'authorization_code') refreshGrants.issued += 1;
      }
    }
    if (ctx.path === '/me') refreshGrants.userinfo += 1;
    if (ctx.path === '/me' && refreshBehaviour.userinfo_delay_ms > 0) {
      await new Promise((resolve) => { setTimeout(resolve, refreshBehaviour.userinfo_delay_ms); });
    }
    if (ctx.path === '/me' && !refreshBehaviour.userinfo) {
      ctx.status = 500;
      ctx.body = { error: 'server_error' };
    }
    if (nextForgery && ctx.path === '/token' && ctx.status === 200) {
      const kind = nextForgery;
      const clientId = ctx.oidc?.client?.clientId;
      if (ctx.body?.id_token) {
        nextForgery = null;
        ctx.body = { ...ctx.body, id_token: forge(ctx.body.id_token, kind, clientId) };
      } else if (ctx.body?.access_token?.split('.').length === 3) {
        nextForgery = null;
        ctx.body = { ...ctx.body, access_token: forge(ctx.body.access_token, kind, clientId) };
      }
    }
  });

  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (prefix) {
      if (!req.url.startsWith(`${prefix}/`)) {
        res.statusCode = 404;
        res.end('not found');
        return;
      }
      req.originalUrl = req.url;
      req.url = req.url.slice(prefix.length);
    }
    if (req.url === '/__test/forge-next-id-token' && req.method === 'POST') {
      try {
        const { kind } = await readJson(req);
        forge('e30.e30.', kind, ''); // refuse an unknown kind now, not at the token request
        nextForgery = kind;
        res.statusCode = 204;
        res.end();
      } catch (error) {
        res.statusCode = 400;
        res.end(error.message);
      }
      return;
    }
    if (req.url === '/__test/set-groups' && req.method === 'POST') {
      const { login, groups } = await readJson(req);
      if (!users[login]) {
        res.statusCode = 404;
        res.end(`no user ${login}`);
        return;
      }
      users[login].groups = groups;
      res.statusCode = 204;
      res.end();
      return;
    }
    if (req.url === '/__test/revoke-refresh-tokens' && req.method === 'POST') {
      for (const value of issuedRefreshTokens.splice(0)) {
        const token = await provider.RefreshToken.find(value);
        if (token) await token.destroy();
      }
      res.statusCode = 204;
      res.end();
      return;
    }
    if (req.url === '/__test/refresh-behaviour' && req.method === 'POST') {
      Object.assign(refreshBehaviour, await readJson(req));
      res.statusCode = 204;
      res.end();
      return;
    }
    if (req.url === '/__test/refresh-grants' && req.method === 'GET') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(refreshGrants));
      return;
    }
    // offline_access without prompt=consent, as Dex, Okta and Keycloak take it: oidc-provider
    // follows OIDC Core 11 strictly and drops the scope unless the prompt includes consent, so
    // such a request gets prompt=consent (granted without a form, as every consent here).
    if (req.method === 'GET' && (req.url === '/auth' || req.url.startsWith('/auth?'))) {
      const url = new URL(req.url, 'http://provider');
      const scopes = (url.searchParams.get('scope') ?? '').split(' ');
      if (scopes.includes('offline_access') && !url.searchParams.has('prompt')) {
        url.searchParams.set('prompt', 'consent');
        req.url = `${url.pathname}${url.search}`;
        // oidc-provider finds its mount path as what originalUrl has before url: keep the two
        // in step, or an issuer with a path (the container test's http://dex:5556/dex) loses it.
        if (prefix) req.originalUrl = `${prefix}${req.url}`;
      }
    }
    if (req.url.startsWith('/interaction/')) {
      try {
        await finishInteraction(provider, req, res);
      } catch (error) {
        res.statusCode = 500;
        res.end(`interaction failed: ${error.message}`);
      }
      return;
    }
    callback(req, res);
  });
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

async function finishInteraction(provider, req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const login = params.login_hint;
    const withPasswords = Object.values(users).some((user) => typeof user.password === 'string');
    if (withPasswords && (!login || !users[login] || typeof users[login].password === 'string')) {
      await passwordLogin(provider, req, res, login);
      return;
    }
    if (!login || !users[login]) {
      res.statusCode = 400;
      res.end(`no test user named by login_hint=${login ?? ''}`);
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    return;
  }
  // consent: grant what was asked
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
  if (prompt.details.missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes)) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const digest = (text) => crypto.createHash('sha256').update(String(text)).digest();
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// The sign-in form for users with a password: GET shows it, POST (username, password) checks it.
async function passwordLogin(provider, req, res, hint) {
  let username = typeof hint === 'string' ? hint : '';
  let problem = '';
  if (req.method === 'POST') {
    let body = '';
    for await (const chunk of req) {
      body += chunk;
      if (body.length > 8192) break;
    }
    const form = new URLSearchParams(body);
    username = form.get('username') ?? '';
    const user = Object.hasOwn(users, username) ? users[username] : undefined;
    // Compare digests in constant time; a user without a password never signs in here.
    const expected = typeof user?.password === 'string' ? user.password : crypto.randomUUID();
    if (user && crypto.timingSafeEqual(digest(form.get('password') ?? ''), digest(expected))) {
      await provider.interactionFinished(req, res, { login: { accountId: username } }, { mergeWithLastSubmission: false });
      return;
    }
    problem = 'Unknown user or wrong password.';
    res.statusCode = 401;
  }
  const action = escapeHtml(req.originalUrl ?? req.url);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Sign in</title></head><body>
<h1>Sign in (local OpenID provider)</h1>
${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="${action}">
<label>Username <input name="username" autocomplete="username" value="${escapeHtml(username)}" autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form></body></html>`);
}

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
