import { defineConfig } from "vitest/config";

// Browser tests: the real admin-console binary, real search clusters (test-support's search-nodes) and Prometheus, Debian Chromium via
// playwright-core (e2e/stack.mjs starts and stops them).
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.mjs"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 420_000,
    // One stack per file; files run one after another so the 2-core machine is not overloaded.
    fileParallelism: false,
  },
});
