// The MCP SDK loads only through the `tessera-trust/mcp` subpath and the `tessera mcp` command: the root
// and every other command stay clean (specs/README.md). Uses the resolve-hook fixture of test/leak.test.ts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, root } from "./helpers.js";

const fixture = join(root, "test", "fixtures", "leak");
const SDK = "/node_modules/@modelcontextprotocol/sdk/";
let tmp = "";
let n = 0;

/** Resolved module URLs of a fresh Node process running `args` with the logging hook. */
function resolved(args: string[]): string[] {
  const log = join(tmp, `${n++}.log`);
  const r = spawnSync(process.execPath, ["--import", join(fixture, "register.mjs"), ...args], {
    cwd: root,
    encoding: "utf8",
    input: "",
    env: { ...process.env, TESSERA_LEAK_LOG: log },
  });
  if (r.status !== 0) throw new Error(`process failed (${r.status}): ${r.stderr}`);
  return readFileSync(log, "utf8").split("\n").filter(Boolean).map(decodeURIComponent);
}

const sdkIn = (urls: string[]) => urls.filter((u) => u.includes(SDK));

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "tessera-mcp-leak-"));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("where the MCP SDK loads", () => {
  it("the `tessera-trust/mcp` subpath loads dist/mcp/index.js and the SDK server", () => {
    const urls = resolved([join(fixture, "load.mjs"), "tessera-trust/mcp"]);
    expect(urls.some((u) => u.endsWith("/dist/mcp/index.js"))).toBe(true);
    expect(sdkIn(urls).some((u) => u.endsWith("/server/mcp.js"))).toBe(true);
    // the gateway (createGateway) rides on the same subpath: its upstream side is the SDK client
    expect(sdkIn(urls).some((u) => u.endsWith("/client/index.js"))).toBe(true);
  });

  it("the package root does not", () => {
    const urls = resolved([join(fixture, "load.mjs"), "tessera-trust"]);
    expect(urls.some((u) => u.endsWith("/dist/index.js"))).toBe(true);
    expect(sdkIn(urls)).toStrictEqual([]);
  });

  it("`tessera help` and `tessera mcp --help` do not; `tessera mcp` does", () => {
    expect(sdkIn(resolved([cliPath, "help"]))).toStrictEqual([]);
    expect(sdkIn(resolved([cliPath, "mcp", "--help"]))).toStrictEqual([]);
    // stdin is empty: the server starts, reads end of input and exits 0
    expect(sdkIn(resolved([cliPath, "mcp"])).length).toBeGreaterThan(0);
  });
});

describe("the `tessera-trust/mcp` public API", () => {
  it("exports exactly these names, the gateway's included (adding one makes it public API)", async () => {
    const api = (await import("../../dist/mcp/index.js")) as Record<string, unknown>;
    expect(Object.keys(api).sort()).toStrictEqual([
      "CONTEXT_ENV",
      "CONTEXT_META_KEY",
      "DEFAULT_APPROVAL_TTL_MS",
      "DEFAULT_REVIEW_TTL_MS",
      "DEFAULT_STORE",
      "DEFAULT_UPSTREAM_TIMEOUT_MS",
      "EMPTY_CONTEXT",
      "ERROR_META_KEY",
      "EVENT",
      "GATEWAY_META_KEY",
      "HTTP_HOST",
      "HTTP_PATH",
      "LIMITS",
      "MAX_BODY_BYTES",
      "MIN_TOKEN_LENGTH",
      "STORE_ENV",
      "TOKEN_ENV",
      "UpstreamError",
      "approveReview",
      "approveTool",
      "buildServer",
      "consoleToStderr",
      "createGateway",
      "createTesseraServer",
      "denyReview",
      "loadTrustedContext",
      "openGatewayStore",
      "openServices",
      "refuse",
      "resolveStore",
      "serveHttp",
      "serveStdio",
      "tokenFrom",
      "toolDefs",
      "trustedContext",
    ]);
  });
});
