// Dex's stand-in in the container test: panva/oidc-provider serving the issuer, clients and users
// that docker/test/dex (reading Dex's own configuration) passes in DEX_STANDIN_CONFIG. The issuer
// may have a path (http://dex:5556/dex): requests below it are served, the rest are 404. As in
// test-support/oidc/server.js, the login_hint names the user to sign in (no form) and every
// requested scope is granted; PKCE is required.
import http from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.DEX_STANDIN_CONFIG);
const users = config.users || {};
const issuer = new URL(config.issuer);
const prefix = issuer.pathname.replace(/\/$/, '');
const [host, port] = config.listen.split(':');

const provider = new Provider(config.issuer, {
  clients: config.clients.map((client) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...client,
  })),
  cookies: { keys: ['container-test-only-cookie-key'] },
  pkce: { required: () => true },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'preferred_username'],
    groups: ['groups'],
  },
  scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
  interactions: { url: (ctx, interaction) => `${prefix}/interaction/${interaction.uid}` },
  async findAccount(ctx, accountId) {
    const user = users[accountId];
    if (!user) return undefined;
    return {
      accountId,
      async claims() {
        return {
          sub: accountId,
          email: user.email,
          email_verified: true,
          name: user.name,
          preferred_username: accountId,
          groups: user.groups,
        };
      },
    };
  },
});
provider.proxy = false;
const callback = provider.callback();

const server = http.createServer(async (req, res) => {
  if (!req.url.startsWith(`${prefix}/`)) {
    res.statusCode = 404;
    res.end('not found');
    return;
  }
  req.originalUrl = req.url;
  req.url = req.url.slice(prefix.length);
  if (req.url.startsWith('/interaction/')) {
    try {
      await finishInteraction(req, res);
    } catch (error) {
      res.statusCode = 500;
      res.end(`interaction failed: ${error.message}`);
    }
    return;
  }
  callback(req, res);
});

async function finishInteraction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    const login = params.login_hint;
    if (!login || !users[login]) {
      res.statusCode = 400;
      res.end(`no user named by login_hint=${login ?? ''}`);
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

server.listen(Number(port), host, () => console.log(JSON.stringify({ issuer: config.issuer, listen: config.listen })));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
