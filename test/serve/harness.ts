// What the serve tests share: a `tessera serve` process (waited for by its "listening on" line),
// the service in process over a loaded policy, and a request helper over real HTTP on 127.0.0.1.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OpenSource } from "../../src/checks/engine.js";
import type { Policy } from "../../src/checks/policy.js";
import { loadCallers } from "../../src/serve/auth.js";
import { type Serving, startServe } from "../../src/serve/start.js";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const cliPath = join(root, "dist", "cli", "main.js");
export const refundsPolicy = join(root, "examples", "refunds", "policy.yaml");

/** A token long enough for the service. */
export const TOKEN = "serve-test-token-0123456789";

/** A fresh temporary folder and its removal. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One HTTP answer. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

/** Send one request; `body` is sent as given when it is a string, else as JSON. */
export async function request(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null; contentType?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** POST `/v1/check`. */
export const check = (base: string, body: unknown, token?: string | null) =>
  request(base, "POST", "/v1/check", { body, ...(token === undefined ? {} : { token }) });

/** The service in this process over `policy`, one caller (TOKEN) allowed every context key. */
export async function serveInProcess(
  policy: Policy,
  options: {
    store: string;
    openSource?: OpenSource;
    probeOpenSource?: OpenSource;
    maxConcurrent?: number;
    deadlineMs?: number;
    maxBodyBytes?: number;
    clock?: () => number;
    create?: boolean;
  },
): Promise<Serving> {
  return startServe({
    policy,
    callers: loadCallers({ env: { TESSERA_SERVE_TOKEN: TOKEN } }, policy.context),
    store: options.store,
    ...(options.create ? { create: true } : {}),
    host: "127.0.0.1",
    port: 0,
    limits: {
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      maxConcurrent: options.maxConcurrent ?? 64,
      deadlineMs: options.deadlineMs ?? 10_000,
    },
    probeIntervalMs: 0,
    effectiveDigest: "",
    ...(options.openSource ? { openSource: options.openSource } : {}),
    ...(options.probeOpenSource ? { probeOpenSource: options.probeOpenSource } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** A `tessera serve` process. */
export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
}

/** Run `tessera <args>` and wait for its exit: code, stdout, stderr. */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; input?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: options.cwd ?? root,
      env: { ...process.env, TESSERA_SERVE_TOKEN: undefined, ...options.env } as NodeJS.ProcessEnv,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

/** Start `tessera serve <args> --port 0` and wait until it listens (or fail with its stderr). */
export function startServeProcess(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [cliPath, "serve", ...args, ...(args.includes("--port") ? [] : ["--port", "0"])],
    {
      cwd: options.cwd ?? root,
      env: { ...process.env, TESSERA_SERVE_TOKEN: TOKEN, ...options.env } as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let err = "";
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "?")),
  );
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(err);
      if (m) resolve({ url: m[1]!, child, stderr: () => err, exited });
    });
    void exited.then((code) => reject(new Error(`tessera serve exited ${code} before listening: ${err}`)));
  });
}
