// Cluster security: the real binary in front of a real secured Elasticsearch 8.19 node
// (`sec-es`) and the stack's plain OpenSearch 2.19 node (`prod`, no security plugin). Create a
// role with `indices:` actions and a user with it from the browser (the password typed once into
// a password field, echoed nowhere on the page, in no answer of the console), open and save the
// role unchanged, see the built-in `elastic` read-only, delete the user by its typed name; the
// plain node's tab says security is not enabled there.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { clusterCall, newPage, screenshot, startStack, stopStack } from "./stack.mjs";
import { openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack({ main: "opensearch2:1", clusters: { "sec-es": "elasticsearch8-secured" } });
});
afterAll(async () => {
  await stopStack(stack);
});

const PASSWORD = "Vq7#pLm2!Tz9&wKe";

test("create a role and a user, see reserved entries read-only, delete the user by name", async () => {
  const page = await newPage(stack);
  const node = stack.clusters["sec-es"];
  // Every answer of the console's security API, read as it arrives: none may carry the password
  // or a hash.
  const answers = [];
  page.on("response", (response) => {
    if (/^\/api\/clusters\/[^/]+\/security/.test(new URL(response.url()).pathname)) {
      answers.push(response.text().then((body) => ({ url: response.url(), body }), () => ({ url: response.url(), body: "" })));
    }
  });
  await openCluster(page, "sec-es", "security");
  const elastic = page.locator('[data-testid="security-row"][data-name="elastic"]');
  await elastic.locator(".pill", { hasText: "reserved" }).waitFor();
  assert.equal(await elastic.locator('[data-testid="security-edit"]').count(), 0);

  // A role.
  await page.locator('[data-testid="security-tab-roles"]').click();
  await page.locator('[data-testid="security-new"]').click();
  const roleDialog = page.locator('[data-testid="security-edit-dialog"]');
  await roleDialog.locator('[data-testid="security-name"]').fill("e2e-reader");
  await roleDialog.locator('[data-testid="security-cluster-permissions"]').fill("monitor");
  await roleDialog.locator('[data-testid="security-index-permissions"]').fill("e2e-* : read, indices:data/read/search");
  await roleDialog.locator('[data-testid="confirm-button"]').click();
  await page.locator('[data-testid="security-notice"]', { hasText: "Role e2e-reader created." }).waitFor();
  const written = { names: ["e2e-*"], privileges: ["read", "indices:data/read/search"] };
  const role = await clusterCall(node, "GET", "_security/role/e2e-reader");
  assert.deepEqual(role["e2e-reader"].indices[0].names, written.names);
  assert.deepEqual(role["e2e-reader"].indices[0].privileges, written.privileges);
  // Opened and saved unchanged: the `indices:` action is not split at its own colon.
  await page.locator('[data-testid="security-row"][data-name="e2e-reader"] [data-testid="security-edit"]').click();
  await roleDialog.locator('[data-testid="confirm-button"]').click();
  await page.locator('[data-testid="security-notice"]', { hasText: "Role e2e-reader saved." }).waitFor();
  const saved = await clusterCall(node, "GET", "_security/role/e2e-reader");
  assert.deepEqual(saved["e2e-reader"].indices[0].names, written.names);
  assert.deepEqual(saved["e2e-reader"].indices[0].privileges, written.privileges);

  // A user with it: the password field is a password field, and nothing shows it afterwards.
  await page.locator('[data-testid="security-tab-users"]').click();
  await page.locator('[data-testid="security-new"]').click();
  const userDialog = page.locator('[data-testid="security-edit-dialog"]');
  await userDialog.locator('[data-testid="security-name"]').fill("e2e-user");
  assert.equal(await userDialog.locator('[data-testid="security-password"]').getAttribute("type"), "password");
  await userDialog.locator('[data-testid="security-password"]').fill(PASSWORD);
  await userDialog.locator('[data-testid="security-roles"]').fill("e2e-reader");
  await userDialog.locator('[data-testid="security-full-name"]').fill("E2E User");
  // While the dialog is open: the typed password is in that one password field and echoed
  // nowhere else (no text, no other field's value).
  const echoes = await page.evaluate((secret) => ({
    text: document.body.innerText.includes(secret),
    fields: [...document.querySelectorAll("input, textarea")].filter((field) => field.value.includes(secret)).map((field) => field.type),
  }), PASSWORD);
  assert.deepEqual(echoes, { text: false, fields: ["password"] });
  await userDialog.locator('[data-testid="confirm-button"]').click();
  await page.locator('[data-testid="security-notice"]', { hasText: "User e2e-user created." }).waitFor();
  const row = page.locator('[data-testid="security-row"][data-name="e2e-user"]');
  await row.waitFor();
  assert.match(await row.textContent(), /e2e-reader/);
  assert.match(await row.textContent(), /E2E User/);
  const user = await clusterCall(node, "GET", "_security/user/e2e-user");
  assert.deepEqual(user["e2e-user"].roles, ["e2e-reader"]);
  await screenshot(page, "cluster-security-users");

  // Deleted, its name typed.
  await row.locator('[data-testid="security-delete"]').click();
  const dialog = page.locator('[data-testid="security-delete-dialog"]');
  const confirm = dialog.locator('[data-testid="confirm-button"]');
  assert.equal(await confirm.isDisabled(), true);
  await dialog.locator('[data-testid="confirm-typed"]').fill("e2e-user");
  await confirm.click();
  await dialog.waitFor({ state: "detached" });
  await row.waitFor({ state: "detached" });
  const gone = await clusterCall(node, "GET", "_security/user/e2e-user", undefined, { raw: true });
  assert.equal(gone.status, 404);

  // The plain OpenSearch node: no security there, said so.
  await openCluster(page, "prod", "security");
  await page.locator('[data-testid="security-view"]').getByText("Security is not enabled on this cluster", { exact: false }).waitFor();
  await page.close();
  const bodies = await Promise.all(answers);
  assert.ok(bodies.length >= 5, `the console's security answers were read: ${bodies.length}`);
  for (const { url, body } of bodies) {
    assert.equal(body.includes(PASSWORD), false, url);
    assert.doesNotMatch(body, /\$2[aby]\$|"hash"|"password"/, url);
  }
});
