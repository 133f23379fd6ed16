// The system under test: a real kube-apiserver and etcd (test-support's `kube-cluster` binary,
// the harness's KubeCluster) holding the sample objects of `make run` (kube-test-server's sample,
// printed by `kube-test-server --print-objects` and written through the API), and the real
// ingress-dash binary configured against it and serving the built dist/.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeApi, type KubeObject } from "./kube";
import { freePort, REPO_DIR, startProcess, waitForHttp, waitForJsonLine, WEB_DIR, type RunningProcess } from "./processes";

const KUBE_CLUSTER_BIN = process.env.KUBE_CLUSTER_BIN ?? join(REPO_DIR, "target", "debug", "kube-cluster");
const KUBE_TEST_SERVER_BIN = process.env.KUBE_TEST_SERVER_BIN ?? join(REPO_DIR, "target", "debug", "kube-test-server");
const INGRESS_DASH_BIN = process.env.INGRESS_DASH_BIN ?? join(REPO_DIR, "target", "debug", "ingress-dash");
const DIST_DIR = join(WEB_DIR, "dist");
/** etcd and kube-apiserver on a busy 2-core machine. */
const CLUSTER_START_MS = 180_000;

export interface StackOptions {
  /** Sample ingresses spread over `namespaces` namespaces (team-000, team-001, ...). */
  sample: number;
  namespaces: number;
  /** The sample ingresses and namespaces only (no Services, Secrets, Events, HTTPRoutes...). */
  onlyIngresses?: boolean;
  /**
   * Namespaces ingress-dash may not read: it runs as a service account with a Role in each of
   * `watchNamespaces` but these, so the API server answers 403 there (real RBAC).
   */
  forbidden?: string[];
  /**
   * `kubernetes.namespaces`: a namespace-scoped install with one watcher per namespace (a 403
   * hits one namespace only); absent: one cluster-wide watcher as the cluster's admin.
   */
  watchNamespaces?: string[];
  /** A cluster without the Gateway API CRDs. */
  noGatewayApi?: boolean;
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

interface ClusterLine {
  url: string;
  caFile: string;
  token: string;
}

function requireFile(path: string, hint: string) {
  if (!existsSync(path)) throw new Error(`${path} does not exist: ${hint}`);
}

/** kube-test-server's sample set (the same as `make run`'s), as objects to write. */
function sampleObjects(options: StackOptions): KubeObject[] {
  const args = ["--print-objects", "--sample", String(options.sample), "--namespaces", String(options.namespaces)];
  if (options.onlyIngresses) args.push("--only-ingresses");
  const printed = spawnSync(KUBE_TEST_SERVER_BIN, args, { encoding: "utf8", maxBuffer: 1 << 30 });
  if (printed.status !== 0) throw new Error(`${KUBE_TEST_SERVER_BIN} ${args.join(" ")}: ${printed.status} ${printed.stderr}`);
  return printed.stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as KubeObject)
    .filter((object) => !(options.noGatewayApi && object.kind === "HTTPRoute"));
}

export async function startStack(name: string, options: StackOptions): Promise<Stack> {
  requireFile(KUBE_CLUSTER_BIN, "build it with `cargo build -p test-support --bin kube-cluster` or set KUBE_CLUSTER_BIN");
  requireFile(KUBE_TEST_SERVER_BIN, "build it with `cargo build -p kube-test-server` or set KUBE_TEST_SERVER_BIN");
  requireFile(INGRESS_DASH_BIN, "build it with `cargo build -p ingress-dash` or set INGRESS_DASH_BIN");
  requireFile(join(DIST_DIR, "index.html"), "run `npm run build` first");

  const workDir = mkdtempSync(join(tmpdir(), `ingress-dash-${name}-`));
  const started: RunningProcess[] = [];
  let kube: KubeApi | undefined;
  const stop = async () => {
    kube?.close();
    for (const process of [...started].reverse()) await process.stop();
    rmSync(workDir, { recursive: true, force: true });
  };

  try {
    const objects = sampleObjects(options);
    const clusterArgs = options.noGatewayApi ? ["--no-gateway-api"] : [];
    const kubeProcess = startProcess(`${name}-kube-cluster`, KUBE_CLUSTER_BIN, clusterArgs, {}, { stdin: "pipe" });
    started.push(kubeProcess);
    const cluster = (await waitForJsonLine(kubeProcess, CLUSTER_START_MS)) as unknown as ClusterLine;
    kube = new KubeApi(cluster.url, cluster.caFile, cluster.token);
    await kube.applyAll(objects);

    let token = cluster.token;
    if (options.forbidden?.length) {
      const readable = (options.watchNamespaces ?? []).filter((namespace) => !options.forbidden?.includes(namespace));
      const home = readable[0];
      if (!home) throw new Error("forbidden namespaces need watchNamespaces that are not all forbidden");
      token = await kube.readerToken(home, "ingress-dash", readable);
    }
    const kubeconfig = join(workDir, "kubeconfig");
    writeFileSync(kubeconfig, kubeconfigFor(cluster, token));

    const dashPort = await freePort();
    const config = join(workDir, "ingress-dash.yaml");
    writeFileSync(
      config,
      dashConfig({ port: dashPort, staticDir: DIST_DIR, kubeconfig, namespaces: options.watchNamespaces ?? [] }) + (options.extraConfig ?? ""),
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
      kube,
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

/** A kubeconfig of the API server's URL, its CA file and `token`. */
function kubeconfigFor(cluster: ClusterLine, token: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: e2e",
    "  cluster:",
    `    server: ${JSON.stringify(cluster.url)}`,
    `    certificate-authority: ${JSON.stringify(cluster.caFile)}`,
    "users:",
    "- name: ingress-dash",
    "  user:",
    `    token: ${JSON.stringify(token)}`,
    "contexts:",
    "- name: e2e",
    "  context:",
    "    cluster: e2e",
    "    user: ingress-dash",
    "current-context: e2e",
    "",
  ].join("\n");
}

function dashConfig(c: { port: number; staticDir: string; kubeconfig: string; namespaces: string[] }): string {
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
    `  kubeconfig: ${JSON.stringify(c.kubeconfig)}`,
    `  namespaces: ${JSON.stringify(c.namespaces)}`,
    "observability:",
    "  log_format: text",
    "",
  ].join("\n");
}
