// Statistics against Prometheus with a week of backfilled elasticsearch_exporter series.
import { afterAll, beforeAll, test } from "vitest";
import assert from "node:assert/strict";
import { newPage, search, screenshot, startStack, stopStack } from "./stack.mjs";
import { dataPoints, openCluster } from "./helpers.mjs";

let stack;
beforeAll(async () => {
  stack = await startStack();
  // Shards for the shard distribution: one index with a replica a single node cannot place.
  await search(stack, "PUT", "orders", { settings: { number_of_shards: 2, number_of_replicas: 1 } });
  await search(stack, "PUT", "audit", { settings: { number_of_shards: 1, number_of_replicas: 0 } });
});
afterAll(async () => {
  await stopStack(stack);
});

const TIME_SERIES = ["nodes-indices", "shards", "documents", "resources"];
const DISTRIBUTIONS = ["dist-node-types", "dist-shards", "dist-roles"];

test("every chart and the heatmap render points from Prometheus", async () => {
  const page = await newPage(stack);
  const historyResponse = page.waitForResponse((r) => r.url().includes("/metrics/history"));
  await openCluster(page, "prod", "statistics?range=7d");
  const history = await (await historyResponse).json();
  assert.ok(history.points.length > 10, "the API returns points");

  for (const id of TIME_SERIES) {
    const card = `[data-testid="chart-${id}"]`;
    const points = await dataPoints(page, card);
    assert.ok(points > 10, `${id} has points (${points})`);
    await page.locator(`${card} canvas`).waitFor();
  }
  // The node count grew from 3 to 5 over the week: the chart's legend shows real values.
  const nodes = history.points.map((p) => p.nodeCount).filter((n) => n != null);
  assert.ok(Math.min(...nodes) <= 4 && Math.max(...nodes) === 5, `nodes ${Math.min(...nodes)}..${Math.max(...nodes)}`);

  const heatmap = await dataPoints(page, '[data-testid="chart-health"]');
  assert.equal(heatmap, history.points.filter((p) => p.health != null).length);
  assert.ok((await page.locator(".heatmap .cell.health-green").count()) > 0);
  assert.ok((await page.locator(".heatmap .cell.health-yellow").count()) > 0, "the yellow hours show");
  for (const id of DISTRIBUTIONS) {
    const el = page.locator(`[data-testid="${id}"]`);
    await el.waitFor();
    assert.ok(Number(await el.getAttribute("data-points")) > 0, `${id} has bars`);
  }
  await screenshot(page, "statistics-7d", { fullPage: true });

  // The 1 h preset asks for exactly one hour, in Unix seconds.
  const oneHour = page.waitForResponse((r) => r.url().includes("/metrics/history"));
  await page.locator('[data-testid="range-picker"] button', { hasText: /^1h$/ }).click();
  const url = new URL((await oneHour).url());
  const start = Number(url.searchParams.get("start"));
  const end = Number(url.searchParams.get("end"));
  assert.equal(end - start, 3600);
  assert.ok(Math.abs(end - Date.now() / 1000) < 120, "end is now, in seconds");
  assert.equal(new URL(page.url()).searchParams.get("range"), "1h");
  assert.ok((await dataPoints(page, '[data-testid="chart-nodes-indices"]')) > 0);
  await page.close();
});

/** `YYYY-MM-DDTHH:mm` in Europe/Berlin, as the browser's datetime-local shows it. */
function berlinInput(seconds) {
  const parts = new Intl.DateTimeFormat("sv-SE", {
    timeZone: "Europe/Berlin",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(new Date(seconds * 1000));
  return parts.replace(" ", "T");
}

test("a custom range is kept in the URL, in Unix seconds, and survives a reload", async () => {
  const page = await newPage(stack);
  await openCluster(page, "prod", "statistics");
  const hour = 3600;
  const start = Math.floor((stack.nowSeconds - 3 * 86400) / hour) * hour;
  const end = start + 30 * hour;

  await page.locator('[data-testid="range-picker"] button', { hasText: "Custom" }).click();
  await page.locator('input[aria-label="Start"]').fill(berlinInput(start));
  await page.locator('input[aria-label="End"]').fill(berlinInput(end));
  const request = page.waitForResponse((r) => r.url().includes("/metrics/history"));
  await page.locator('[data-testid="range-picker"] button', { hasText: "Apply" }).click();
  const sent = new URL((await request).url());
  assert.equal(Number(sent.searchParams.get("start")), start, "local time converted to Unix seconds");
  assert.equal(Number(sent.searchParams.get("end")), end);
  let params = new URL(page.url()).searchParams;
  assert.equal(params.get("start"), String(start));
  assert.equal(params.get("end"), String(end));

  const label = `${berlinInput(start).replace("T", " ")} → ${berlinInput(end).replace("T", " ")}`;
  await page.locator('[data-testid="range-label"]', { hasText: label }).waitFor();
  assert.ok((await dataPoints(page, '[data-testid="chart-documents"]')) > 0);

  const reloaded = page.waitForResponse((r) => r.url().includes("/metrics/history"));
  await page.reload();
  const again = new URL((await reloaded).url());
  assert.equal(Number(again.searchParams.get("start")), start);
  assert.equal(Number(again.searchParams.get("end")), end);
  params = new URL(page.url()).searchParams;
  assert.equal(params.get("start"), String(start));
  await page.locator('[data-testid="range-label"]', { hasText: label }).waitFor();
  assert.equal(await page.locator('input[aria-label="Start"]').inputValue(), berlinInput(start));
  assert.equal(await page.locator('[data-testid="range-picker"] button[aria-pressed="true"]').textContent(), "Custom");
  assert.ok((await dataPoints(page, '[data-testid="chart-shards"]')) > 0);
  await screenshot(page, "statistics-custom-range");

  // A link with the start after the end is refused with the reason, not silently used.
  await page.goto(`/clusters/prod/statistics?start=${end}&end=${start}`);
  await page.locator(".banner-warn", { hasText: "before the end" }).waitFor();
  await page.close();
});

test("no data is an explicit state with its reason, never empty axes", async () => {
  const page = await newPage(stack);
  await openCluster(page, "nodata", "statistics");
  const noData = page.locator('[data-testid="no-data"]');
  await noData.waitFor();
  assert.match(await noData.textContent(), /No data/);
  assert.match(await noData.textContent(), /job name|labels|series/i);
  assert.equal(await page.locator(".ts-chart canvas").count(), 0, "no chart pretends to have data");
  assert.equal(await page.locator('[data-testid="health-heatmap"]').count(), 0);
  await screenshot(page, "statistics-no-data");
  await page.close();
});
