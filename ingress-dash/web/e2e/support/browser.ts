// Debian's Chromium through playwright-core: never a downloaded browser, a fresh profile per run.

import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { ARTIFACTS_DIR } from "./processes";

const CHROMIUM = process.env.CHROMIUM_BIN ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Exceptions the page threw; a test fails on them. */
  pageErrors: string[];
  /** What the page logged, for the artifacts. */
  consoleLines: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(options: { colorScheme?: "light" | "dark" } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "ingress-dash-e2e-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
    colorScheme: options.colorScheme ?? "light",
    timezoneId: "UTC",
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  const consoleLines: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  return {
    context,
    page,
    pageErrors,
    consoleLines,
    async screenshot(name) {
      mkdirSync(ARTIFACTS_DIR, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`) });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
