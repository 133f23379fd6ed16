// Starts the real binaries on free loopback ports and stops them, keeping their output in
// e2e-artifacts/ for when a test fails.

import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const WEB_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPO_DIR = join(WEB_DIR, "..", "..");
export const ARTIFACTS_DIR = join(WEB_DIR, "e2e-artifacts");

/** A port nothing listens on now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  /** Everything the process printed so far (also in e2e-artifacts/<name>.log). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The environment for a child: ours without `INGRESS_DASH_*` (the service reads those as
 * configuration overrides, so `INGRESS_DASH_BIN` would become an unknown key `bin`), plus `env`.
 */
function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("INGRESS_DASH_")));
  return { ...inherited, ...env };
}

/**
 * Starts `command`. With `stdin: "pipe"` its standard input stays open until `stop()`, which
 * closes it before it signals (for a process that stops when its input ends).
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { stdin?: "ignore" | "pipe" } = {},
): RunningProcess {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const log = createWriteStream(join(ARTIFACTS_DIR, `${name}.log`));
  let output = "";
  const child = spawn(command, args, { env: childEnv(env), stdio: [options.stdin ?? "ignore", "pipe", "pipe"] });
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    log.write(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  child.on("error", (error) => collect(Buffer.from(`failed to start ${command}: ${error.message}\n`)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    name,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin?.end();
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(killer);
      }
      log.end();
    },
  };
}

/** Polls `url` until it answers 2xx; fails with the process output if it exits or times out. */
export async function waitForHttp(url: string, process: RunningProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    if (process.child.exitCode !== null) {
      throw new Error(`${process.name} exited with ${process.child.exitCode} before answering:\n${process.output()}`);
    }
    try {
      const response = await fetch(url);
      if (response.ok) return;
      lastError = `HTTP ${response.status}`;
    } catch (error) {
      lastError = String(error);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${process.name} did not answer ${url} within ${timeoutMs} ms (${lastError}):\n${process.output()}`);
}

/** Waits until the process has printed a whole line that is a JSON object; that object. */
export async function waitForJsonLine(process: RunningProcess, timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = process
      .output()
      .split("\n")
      .slice(0, -1)
      .find((candidate) => candidate.startsWith("{"));
    if (line) return JSON.parse(line) as Record<string, unknown>;
    if (process.child.exitCode !== null) {
      throw new Error(`${process.name} exited with ${process.child.exitCode} before printing its JSON line:\n${process.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${process.name} printed no JSON line within ${timeoutMs} ms:\n${process.output()}`);
}
