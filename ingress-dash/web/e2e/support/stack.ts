// The system under test: kube-test-server with sample data, and the real ingress-dash binary
// configured against it and serving the built dist/.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeApi } from "./kube";
import { freePort, REPO_DIR, startProcess, waitForHttp, WEB_DIR, type RunningProcess } from "./processes";

const KUBE_TEST_SERVER_BIN = process.env.KUBE_TEST_SERVER_BIN ?? join(REPO_DIR, "target", "debug", "kube-test-server");
const INGRESS_DASH_BIN = process.env.INGRESS_DASH_BIN ?? join(REPO_DIR, "target", "debug", "ingress-dash");
const DIST_DIR = join(WEB_DIR, "dist");

/**
 * Whether this kube-test-server takes ingress writes through the API (POST/PUT/DELETE) and
 * `--forbid-namespace`, which the live tests need; they come together, so the flag tells.
 */
export function kubeTestServerDrivable(): boolean {
  if (!existsSync(KUBE_TEST_SERVER_BIN)) return true; // startStack reports the missing binary.
  const help = spawnSync(KUBE_TEST_SERVER_BIN, ["--help"], { encoding: "utf8" });
  const drivable = help.stdout.includes("--forbid-namespace");
  if (!drivable) {
    console.warn(
      `${KUBE_TEST_SERVER_BIN} has no --forbid-namespace (nor ingress writes): the live browser tests are skipped.`,
    );
  }
  return drivable;
}

export interface StackOptions {
  /** Sample ingresses spread over `namespaces` namespaces (team-000, team-001, ...). */
  sample: number;
  namespaces: number;
  /** Namespaces whose ingresses answer 403 from the start (`--forbid-namespace`). */
  forbidden?: string[];
  /**
   * `kubernetes.namespaces`: a namespace-scoped install with one watcher per namespace (a 403
   * hits one namespace only); absent: one cluster-wide watcher.
   */
  watchNamespaces?: string[];
  /** More kube-test-server flags, e.g. `--no-gateway-api`. */
  kubeFlags?: string[];
  /** More top-level sections of ingress-dash's YAML configuration, e.g. `certificates:\n  read_secrets: true`. */
  extraConfig?: string;
}

export interface Stack {
  kube: KubeApi;
  kubeProcess: RunningProcess;
  dash: RunningProcess;
  /** The dashboard's base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Starts ingress-dash again on the same port (after `dash.stop()`). */
  restartDash(): Promise<void>;
  stop(): Promise<void>;
}

function requireFile(path: string, hint: string) {
  if (!existsSync(path)) throw new Error(`${path} does not exist: ${hint}`);
}

export async function startStack(name: string, options: StackOptions): Promise<Stack> {
  requireFile(KUBE_TEST_SERVER_BIN, "build it with `cargo build -p kube-test-server` or set KUBE_TEST_SERVER_BIN");
  requireFile(INGRESS_DASH_BIN, "build it with `cargo build -p ingress-dash` or set INGRESS_DASH_BIN");
  requireFile(join(DIST_DIR, "index.html"), "run `npm run build` first");

  const workDir = mkdtempSync(join(tmpdir(), `ingress-dash-${name}-`));
  const started: RunningProcess[] = [];
  const stop = async () => {
    for (const process of [...started].reverse()) await process.stop();
    rmSync(workDir, { recursive: true, force: true });
  };

  try {
    const kubePort = await freePort();
    const kubeArgs = [
      "--host",
      "127.0.0.1",
      "--port",
      String(kubePort),
      "--sample",
      String(options.sample),
      "--namespaces",
      String(options.namespaces),
    ];
    for (const namespace of options.forbidden ?? []) kubeArgs.push("--forbid-namespace", namespace);
    kubeArgs.push(...(options.kubeFlags ?? []));
    const kubeProcess = startProcess(`${name}-kube-test-server`, KUBE_TEST_SERVER_BIN, kubeArgs);
    started.push(kubeProcess);
    const kubeUrl = `http://127.0.0.1:${kubePort}`;
    await waitForHttp(`${kubeUrl}/version`, kubeProcess);

    const dashPort = await freePort();
    const config = join(workDir, "ingress-dash.yaml");
    writeFileSync(
      config,
      dashConfig({ port: dashPort, staticDir: DIST_DIR, kubeUrl, namespaces: options.watchNamespaces ?? [] }) + (options.extraConfig ?? ""),
    );
    const url = `http://127.0.0.1:${dashPort}`;
    let runs = 0;
    const startDash = async () => {
      const dash = startProcess(`${name}-ingress-dash${runs++ ? `-${runs}` : ""}`, INGRESS_DASH_BIN, ["--config", config], {
        RUST_LOG: process.env.RUST_LOG ?? "info",
      });
      started.push(dash);
      await waitForHttp(`${url}/api/live`, dash);
      return dash;
    };

    const stack: Stack = {
      kube: new KubeApi(kubeUrl),
      kubeProcess,
      dash: await startDash(),
      url,
      async restartDash() {
        stack.dash = await startDash();
      },
      stop,
    };
    return stack;
  } catch (error) {
    await stop();
    throw error;
  }
}

function dashConfig(c: { port: number; staticDir: string; kubeUrl: string; namespaces: string[] }): string {
  return [
    "server:",
    "  host: 127.0.0.1",
    `  port: ${c.port}`,
    // The internal listener (metrics) on a port of its own choosing: the default (3001) may be
    // taken by another process on this machine.
    "  internal_port: 0",
    `  static_dir: ${JSON.stringify(c.staticDir)}`,
    "  shutdown_timeout: 1s",
    "kubernetes:",
    `  api_url: ${JSON.stringify(c.kubeUrl)}`,
    `  namespaces: ${JSON.stringify(c.namespaces)}`,
    "observability:",
    "  log_format: text",
    "",
  ].join("\n");
}
