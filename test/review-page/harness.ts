// Shared pieces of the review page's tests: `tessera review serve` as a process (its URL read from
// the line it prints), an in-process page over a real store, and an HTTP client that says exactly
// which headers it sends (Host, Origin, Sec-Fetch-Site, cookies), so refusals can be provoked.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { request } from "node:http";
import { cliPath, root } from "../gateway/harness.js";

/** The reviewer token the tests use (at least 16 characters). */
export const TOKEN = "review-token-0123456789";

/** A running `tessera review serve` process. */
export interface ServeProcess {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Start `tessera review serve` with `args` and wait for the line naming its URL. */
export async function startServe(
  args: readonly string[],
  env: Record<string, string>,
  cwd = root,
): Promise<ServeProcess> {
  if (!existsSync(cliPath)) throw new Error("run `npm run build` first: the test starts dist/cli/main.js");
  const child = spawn(process.execPath, [cliPath, "review", "serve", "--port", "0", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
      const m = /tessera review serve: (http:\/\/\S+\/) \(/.exec(err);
      if (m !== null) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`review serve exited ${code}: ${err}`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A response as the tests read it. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/**
 * One HTTP request to 127.0.0.1:`port` with exactly these headers (a `host` header replaces the
 * default one); `form` is sent url-encoded.
 */
export function http(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  form?: Record<string, string>,
): Promise<Answer> {
  const body = form === undefined ? undefined : new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: {
          host: `127.0.0.1:${port}`,
          ...(body === undefined
            ? {}
            : {
                "content-type": "application/x-www-form-urlencoded",
                "content-length": String(Buffer.byteLength(body)),
              }),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The CSRF field of the first form on a page. */
export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (m === null) throw new Error("no CSRF field on the page");
  return m[1]!;
}

/** The session cookie a login answer set (`name=value`). */
export function cookieOf(a: Answer): string {
  const set = a.headers["set-cookie"];
  const first = Array.isArray(set) ? set[0] : set;
  if (first === undefined) throw new Error("no cookie set");
  return first.split(";")[0]!;
}
