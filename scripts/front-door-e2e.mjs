// The front door end to end in headless Chromium, run by scripts/test.sh after the
// front ends are built: on free loopback ports, a real OpenSearch node (test-support's
// `search-nodes`), a real kube-apiserver (test-support's `kube-cluster`) holding make run's sample
// (`kube-test-server --print-objects`: Ingresses in team-000 … team-004), the OpenID provider the tests use
// (test-support/oidc, users with passwords: its sign-in form), authproxy (forward_auth, OIDC),
// admin-console and ingress-dash (trusted_headers, trusting loopback) and nginx with make run's
// auth_request snippet (scripts/run-local/authproxy-*.conf). Then, as people in a browser:
//   - viewer opens admin-console: nginx sends them to sign-in, the provider's form, back to the
//     console; /api/whoami says viewer; closing an index is refused with 403 and the index stays
//     open, and the Indices view disables Close with the reason; the same session opens
//     ingress-dash without a second sign-in;
//   - operator closes the index: 200, the index is closed, and the audit file has the line;
//   - shop (group shop-team) opens ingress-dash and sees only team-001; asking for team-002 is 403.
// Exit status 0 when every check passed; every process it started is stopped either way.
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// playwright-core as the admin-console browser tests have it installed.
const { chromium } = createRequire(join(REPO, "admin-console/web/package.json"))("playwright-core");
const PASSWORD = "front-door-e2e-password";
const CLIENT_SECRET = "front-door-e2e-client-secret";
const DEADLINE_MS = 30_000;
/** A real OpenSearch node and etcd + kube-apiserver starting side by side on a busy 2-core machine. */
const SERVERS_START_MS = 240_000;

const children = [];
const dir = mkdtempSync(join(tmpdir(), "front-door-e2e-"));
let failures = 0;

async function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

async function waitFor(what, check, child) {
  const deadline = Date.now() + DEADLINE_MS;
  let last = "no answer yet";
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    try {
      if (await check()) return;
      last = "not ready";
    } catch (error) {
      last = String(error?.cause?.code ?? error?.message ?? error);
    }
    if (Date.now() > deadline) throw new Error(`${what} did not come up within ${DEADLINE_MS} ms (last: ${last})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The first line a child prints, as JSON: the servers that bind port 0 say where they listen
// that way, so no port is chosen before it is bound.
function firstJsonLine(what, child, deadlineMs = DEADLINE_MS) {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${what} printed nothing within ${deadlineMs} ms`)), deadlineMs);
    createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      try {
        ok(JSON.parse(line));
      } catch {
        fail(new Error(`${what} printed ${JSON.stringify(line.slice(0, 200))}, not its JSON line`));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`${what} exited with ${code}`));
    });
  });
}

// `stdin: "pipe"` for the harness's servers, which stop when their standard input closes.
function start(name, command, args, env = {}, stdin = "ignore") {
  const child = spawn(command, args, { cwd: REPO, env: { PATH: process.env.PATH, ...env }, stdio: [stdin, "pipe", "pipe"] });
  const output = [];
  child.stdout.on("data", (d) => output.push(d));
  child.stderr.on("data", (d) => output.push(d));
  child.output = () => Buffer.concat(output).toString().slice(-3000);
  child.label = name;
  children.push(child);
  return child;
}

async function check(name, body) {
  try {
    await body();
    console.log(`ok   ${name}`);
  } catch (error) {
    failures += 1;
    console.log(`FAIL ${name}\n     ${String(error.message ?? error).split("\n").join("\n     ")}`);
  }
}

function binary(name) {
  const path = join(REPO, "target/debug", name);
  if (!existsSync(path)) throw new Error(`${path} is missing: cargo build --bins first`);
  return path;
}

/** make run's sample objects as one `List`, Namespaces first, for `kubectl apply`. */
function sampleList() {
  const printed = execFileSync(binary("kube-test-server"), ["--print-objects", "--sample", "40", "--namespaces", "5"], { encoding: "utf8", maxBuffer: 1 << 28 });
  const objects = printed.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
  const first = (object) => (object.kind === "Namespace" ? 0 : 1);
  return { apiVersion: "v1", kind: "List", items: objects.sort((a, b) => first(a) - first(b)) };
}

async function startStack() {
  const ports = {};
  for (const key of ["authproxy", "authproxyInternal", "console", "consoleInternal", "dash", "dashInternal", "frontConsole", "frontDash"]) ports[key] = await freePort();

  // The real servers, side by side: one OpenSearch node (no security plugin: authproxy manages
  // no users here) and a Kubernetes control plane with make run's sample written into it.
  const search = start("search-nodes", binary("search-nodes"), ["opensearch2"], {}, "pipe");
  const kube = start("kube-cluster", binary("kube-cluster"), [], {}, "pipe");
  const [searchLine, cluster] = await Promise.all([
    firstJsonLine("search-nodes opensearch2", search, SERVERS_START_MS),
    firstJsonLine("kube-cluster", kube, SERVERS_START_MS),
  ]);
  const searchUrl = searchLine.clusters[0].url;
  const sample = join(dir, "sample.json");
  writeFileSync(sample, JSON.stringify(sampleList()));
  execFileSync(cluster.kubectl, ["--kubeconfig", cluster.kubeconfig, "apply", "--server-side", "-f", sample], { stdio: ["ignore", "ignore", "pipe"] });

  const user = (groups) => ({ password: PASSWORD, groups });
  const oidc = start("oidc-provider", "node", [join(REPO, "test-support/oidc/server.js")], {
    OIDC_TEST_CONFIG: JSON.stringify({
      clients: [{ client_id: "authproxy", client_secret: CLIENT_SECRET, redirect_uris: [`http://127.0.0.1:${ports.authproxy}/auth/callback`] }],
      users: { viewer: user(["viewers"]), operator: user(["operators"]), shop: user(["shop-team"]) },
    }),
  });
  // The provider binds port 0 and prints its issuer. Its start (loading oidc-provider) took
  // over 30 s once in a cold CI run, right after the browser tests: it gets the servers' time.
  const { issuer } = await firstJsonLine("the OpenID provider", oidc, SERVERS_START_MS);
  await waitFor("the OpenID provider", async () => (await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) })).ok, oidc);

  writeFileSync(join(dir, "authproxy.yaml"), `server: {host: 127.0.0.1, port: ${ports.authproxy}, internal_port: ${ports.authproxyInternal}, mode: forward_auth, front_proxy: nginx, trusted_proxies: [127.0.0.1]}
observability: {log_level: warn}
oidc:
  enabled: true
  issuer_url: ${issuer}
  client_id: authproxy
  client_secret: ${CLIENT_SECRET}
  redirect_url: http://127.0.0.1:${ports.authproxy}/auth/callback
  scopes: [openid, email, profile, groups]
  username_claim: preferred_username
  groups_claim: groups
session: {secret: front-door-e2e-session-secret-0123456789abcdef}
search: {url: ${searchUrl}}
user_management: {enabled: false}   # a node without the security plugin
basic_auth: {enabled: false}
`);
  const authproxy = start("authproxy", binary("authproxy"), ["--config", join(dir, "authproxy.yaml")]);
  await waitFor("authproxy", async () => (await fetch(`http://127.0.0.1:${ports.authproxy}/healthz`)).ok, authproxy);

  const audit = join(dir, "audit.log");
  writeFileSync(join(dir, "admin-console.yaml"), `server:
  host: 127.0.0.1
  port: ${ports.console}
  internal_port: ${ports.consoleInternal}
  static_dir: ${JSON.stringify(join(REPO, "admin-console/web/dist"))}
  trusted_proxies: [127.0.0.1]
observability: {log_level: warn}
access:
  mode: trusted_headers
  default_role: viewer
  roles: [{group: viewers, role: viewer}, {group: operators, role: operator}]
audit: {file: ${JSON.stringify(audit)}}
clusters:
  - {id: local, name: Local, url: ${searchUrl}, metrics_source: internal}
`);
  const console_ = start("admin-console", binary("admin-console"), ["--config", join(dir, "admin-console.yaml")]);
  await waitFor("admin-console", async () => (await fetch(`http://127.0.0.1:${ports.console}/api/live`)).ok, console_);

  writeFileSync(join(dir, "ingress-dash.yaml"), `server:
  host: 127.0.0.1
  port: ${ports.dash}
  internal_port: ${ports.dashInternal}
  static_dir: ${JSON.stringify(join(REPO, "ingress-dash/web/dist"))}
  trusted_proxies: [127.0.0.1]
observability: {log_level: warn}
access:
  mode: trusted_headers
  namespaces_by_group: {viewers: ["*"], operators: ["*"], shop-team: [team-001]}
kubernetes: {kubeconfig: ${JSON.stringify(cluster.kubeconfig)}}
`);
  const dash = start("ingress-dash", binary("ingress-dash"), ["--config", join(dir, "ingress-dash.yaml")]);
  await waitFor("ingress-dash", async () => (await fetch(`http://127.0.0.1:${ports.dash}/api/live`)).ok, dash);

  // make run's snippet, pointed at this authproxy: the check on its internal listener (:9001 in
  // make run), sign-in on its public one (:9000).
  const snippet = (file) => readFileSync(join(REPO, "scripts/run-local", file), "utf8")
    .replaceAll("127.0.0.1:9001", `127.0.0.1:${ports.authproxyInternal}`)
    .replaceAll("127.0.0.1:9000", `127.0.0.1:${ports.authproxy}`);
  writeFileSync(join(dir, "authproxy-locations.conf"), snippet("authproxy-locations.conf"));
  writeFileSync(join(dir, "authproxy-gate.conf"), snippet("authproxy-gate.conf"));
  const server = (port, upstream) => `server { listen 127.0.0.1:${port}; include authproxy-locations.conf;
    location / { include authproxy-gate.conf; proxy_buffering off; proxy_pass http://127.0.0.1:${upstream}; } }`;
  writeFileSync(join(dir, "nginx.conf"), `worker_processes 1; pid nginx.pid; error_log stderr warn;
events { worker_connections 256; }
http { access_log off; client_body_temp_path body; proxy_temp_path proxy; fastcgi_temp_path fastcgi;
  uwsgi_temp_path uwsgi; scgi_temp_path scgi; proxy_buffer_size 8k;
  ${server(ports.frontConsole, ports.console)}
  ${server(ports.frontDash, ports.dash)}
}
`);
  const nginx = start("nginx", "nginx", ["-e", "stderr", "-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"]);
  for (const port of [ports.frontConsole, ports.frontDash]) {
    await waitFor("nginx", async () => (await fetch(`http://127.0.0.1:${port}/`, { redirect: "manual" })).status === 302, nginx);
    // Metrics are the internal listeners' only: the front door has none.
    const metrics = (await fetch(`http://127.0.0.1:${port}/_metrics`, { redirect: "manual" })).status;
    if (metrics !== 404) throw new Error(`the front door on ${port} answered /_metrics with ${metrics}, not 404`);
  }
  return {
    searchUrl,
    audit,
    frontConsole: `http://127.0.0.1:${ports.frontConsole}`,
    frontDash: `http://127.0.0.1:${ports.frontDash}`,
    signIn: `http://127.0.0.1:${ports.authproxy}/auth/start`,
  };
}

async function stopAll() {
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Opens `url` in a fresh context (no cookies) and signs in at the provider's form. */
async function signedIn(browser, stack, url, login) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(url);
  // nginx -> authproxy's sign-in -> the provider's form.
  assert.ok(page.url().startsWith("http://127.0.0.1:") && (await page.locator('input[name="password"]').count()) === 1,
    `expected the provider's sign-in form, got ${page.url()}`);
  await page.fill('input[name="username"]', login);
  await page.fill('input[name="password"]', PASSWORD);
  await Promise.all([page.waitForURL((u) => u.toString().startsWith(url)), page.click('button[type="submit"]')]);
  return { context, page };
}

/** A same-origin call from the page, as the web app makes it. */
async function call(page, method, path) {
  return page.evaluate(async ([method, path]) => {
    const response = await fetch(path, { method, headers: { "X-Requested-By": "admin-console", Accept: "application/json" } });
    return { status: response.status, body: await response.text() };
  }, [method, path]);
}

async function searchCall(stack, method, path) {
  const response = await fetch(`${stack.searchUrl}/${path}`, { method });
  return response.json();
}

async function main() {
  let browser;
  try {
    const stack = await startStack();
    await searchCall(stack, "PUT", "e2e-front-door");
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_BIN ?? "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"],
    });

    let viewer;
    await check("viewer: nginx -> authproxy -> the provider's form -> back at admin-console, /api/whoami says viewer", async () => {
      viewer = await signedIn(browser, stack, `${stack.frontConsole}/`, "viewer");
      await viewer.page.waitForLoadState("networkidle");
      const me = JSON.parse((await call(viewer.page, "GET", "/api/whoami")).body);
      assert.equal(me.user, "viewer");
      assert.deepEqual(me.roles, { local: "viewer" });
    });
    await check("viewer: closing an index is refused with 403 naming the role; the index stays open", async () => {
      const refused = await call(viewer.page, "POST", "/api/clusters/local/proxy/e2e-front-door/_close");
      assert.equal(refused.status, 403, refused.body);
      assert.equal(JSON.parse(refused.body).error.code, "forbidden");
      assert.match(JSON.parse(refused.body).error.message, /operator/);
      const state = await searchCall(stack, "GET", "_cat/indices/e2e-front-door?format=json");
      assert.equal(state[0].status, "open");
    });
    await check("viewer: the Indices view shows who is signed in and disables Close with the reason", async () => {
      await viewer.page.goto(`${stack.frontConsole}/clusters/local/indices`);
      await viewer.page.locator('[data-testid="identity-user"]', { hasText: "viewer" }).waitFor();
      assert.equal(await viewer.page.locator('[data-testid="identity-role"]').textContent(), "viewer");
      const close = viewer.page.locator('[data-testid="close-index"][data-index="e2e-front-door"]');
      await close.waitFor();
      assert.ok(await close.isDisabled(), "the Close button of a viewer must be disabled");
      assert.equal(await close.getAttribute("title"), "Needs the operator role; you have viewer.");
    });
    await check("viewer: the same session opens ingress-dash without a second sign-in", async () => {
      await viewer.page.goto(`${stack.frontDash}/`);
      assert.ok(viewer.page.url().startsWith(stack.frontDash), viewer.page.url());
      const namespaces = JSON.parse((await call(viewer.page, "GET", "/api/namespaces")).body).namespaces;
      // Every namespace of the real cluster (kube-system and the others too), the sample's five among them.
      const teams = namespaces.filter((namespace) => namespace.startsWith("team-"));
      assert.deepEqual(teams, ["team-000", "team-001", "team-002", "team-003", "team-004"], JSON.stringify(namespaces));
      assert.ok(namespaces.includes("kube-system"), JSON.stringify(namespaces));
      // The header names the signed-in user; a group mapped to "*" shows no namespace scope.
      await viewer.page.locator('[data-testid="identity-user"]', { hasText: "viewer" }).waitFor();
      assert.equal(await viewer.page.locator('[data-testid="identity-scope"]').count(), 0);
    });
    await check("operator: closing the index is allowed and written to the audit file", async () => {
      const operator = await signedIn(browser, stack, `${stack.frontConsole}/`, "operator");
      const closed = await call(operator.page, "POST", "/api/clusters/local/proxy/e2e-front-door/_close");
      assert.equal(closed.status, 200, closed.body);
      const state = await searchCall(stack, "GET", "_cat/indices/e2e-front-door?format=json");
      assert.equal(state[0].status, "close");
      // The audit file is written by a background writer after the answer: wait for the line.
      const auditLines = () => readFileSync(stack.audit, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const isOperatorClose = (l) => l.user === "operator" && l.path.endsWith("/e2e-front-door/_close");
      const deadline = Date.now() + 10_000;
      let lines = auditLines();
      while (!lines.some(isOperatorClose) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        lines = auditLines();
      }
      const line = lines.find(isOperatorClose);
      assert.ok(line, `no audit line for operator's close within 10 s in ${JSON.stringify(lines)}`);
      assert.equal(line.status, 200);
      assert.equal(line.method, "POST");
      assert.deepEqual(line.groups, ["operators"]);
      await operator.context.close();
    });
    await check("shop (shop-team): ingress-dash shows only team-001; asking for team-002 is 403", async () => {
      const shop = await signedIn(browser, stack, `${stack.frontDash}/`, "shop");
      await shop.page.waitForLoadState("networkidle");
      assert.deepEqual(JSON.parse((await call(shop.page, "GET", "/api/namespaces")).body).namespaces, ["team-001"]);
      const listed = JSON.parse((await call(shop.page, "GET", "/api/ingresses")).body).items;
      assert.ok(listed.length > 0 && listed.every((item) => item.namespace === "team-001"), JSON.stringify(listed.slice(0, 3)));
      assert.equal((await call(shop.page, "GET", "/api/ingresses?namespaces=team-002")).status, 403);
      // What the page shows: no other namespace's Ingress appears.
      await shop.page.locator('[data-testid="identity-user"]', { hasText: "shop" }).waitFor();
      assert.equal(await shop.page.locator('[data-testid="identity-scope"]').textContent(), "team-001");
      const text = await shop.page.locator("body").innerText();
      assert.ok(!/team-00[02-4]/.test(text), "another namespace is shown on the page");
      await shop.context.close();
    });
    await viewer?.context.close();
  } catch (error) {
    failures += 1;
    console.log(`FAIL the front door end to end could not run: ${error.stack ?? error}`);
  } finally {
    if (failures) for (const child of children) console.log(`--- ${child.label}\n${child.output()}`);
    await browser?.close().catch(() => {});
    await stopAll();
  }
  console.log(failures ? `front door e2e: ${failures} failed` : "front door e2e: all passed");
  process.exit(failures ? 1 : 0);
}

main();
