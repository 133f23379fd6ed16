import { defineConfig } from "vitest/config";

// Browser tests: the real admin-console binary, osmem-server and Prometheus, Debian Chromium via
// playwright-core (e2e/stack.mjs starts and stops them).
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.mjs"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One stack per file; files run one after another so the 2-core machine is not overloaded.
    fileParallelism: false,
  },
});
