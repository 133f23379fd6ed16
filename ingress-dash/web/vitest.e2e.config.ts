import { defineConfig } from "vitest/config";

// Browser tests: the real ingress-dash binary against a real kube-apiserver (test-support's
// kube-cluster binary), Debian Chromium via playwright-core.
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    environment: "node",
    testTimeout: 60_000,
    // A cluster started and filled (10,000 ingresses for large-list) before a file's tests.
    hookTimeout: 300_000,
    // One browser and one pair of servers per file; files run one after another so the
    // 2-core machine is not overloaded and timing assertions stay meaningful.
    fileParallelism: false,
    // A loaded machine (make test runs beside other builds) gets time; passing runs do not wait.
    expect: { poll: { timeout: 10_000, interval: 50 } },
  },
});
