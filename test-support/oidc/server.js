// A real OpenID provider for tests: panva/oidc-provider on a free loopback port.
//
// Configuration comes from the OIDC_TEST_CONFIG environment variable (JSON):
//   { "clients": [ { client_id, client_secret, redirect_uris, post_logout_redirect_uris } ],
//     "users": { "<login>": { "email": "...", "name": "...", "groups": ["..."] } } }
// The login and consent interactions need no form: the user named by the authorization
// request's `login_hint` is signed in (a hint naming no configured user gets an error page),
// and every requested scope is granted. PKCE is required for every client, as a strict provider
// would. On start it prints one JSON line to stdout: {"issuer": "http://127.0.0.1:<port>"}.
import http from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_TEST_CONFIG || '{}');
const users = config.users || {};
const clients = (config.clients || []).map((client) => ({
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...client,
}));

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients,
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
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true },
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
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
            groups: user.groups ?? [],
          };
        },
      };
    },
  });
  provider.proxy = false;

  const callback = provider.callback();
  server.on('request', async (req, res) => {
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

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
