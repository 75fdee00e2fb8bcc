// specs/README.md "MCP is an extra": a fresh Node process that imports the package root loads no
// MCP SDK and no database driver. A control process loading a driver proves the detector sees it.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fixture = join(root, "test", "fixtures", "leak");
const HEAVY = [
  "@modelcontextprotocol/sdk",
  "better-sqlite3",
  "pg",
  "mysql2",
  // the agent frameworks: optional peers, loaded only by their adapter's subpath
  "ai",
  "@openai/agents",
  "@openai/agents-core",
  "langchain",
  "@langchain/core",
  // loaded only once a host has registered an OpenTelemetry SDK (adr/0129)
  "@opentelemetry/api",
] as const;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Build dist/ only when it is missing, or older than src/ outside `npm test` (which builds first). */
function ensureBuilt(): void {
  const entry = join(root, "dist", "index.js");
  let built = 0;
  try {
    built = statSync(entry).mtimeMs;
  } catch {
    built = 0;
  }
  if (built > 0 && process.env.npm_lifecycle_event === "test") return; // `npm test` built dist/ just before vitest
  if (built >= newestMtime(join(root, "src"))) return;
  try {
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: "pipe" });
  } catch (err) {
    // tsc still emits on type errors elsewhere in the tree; only a missing entry point is fatal here
    statSync(entry);
    process.stderr.write(
      `leak test: npm run build reported errors, testing the emitted dist/ anyway\n${String((err as { stdout?: unknown }).stdout ?? "")}\n`,
    );
  }
}

let tmp = "";

interface Loaded {
  /** Every URL the ESM resolver produced. */
  readonly urls: string[];
  /** Every file in the CommonJS module cache. */
  readonly cjs: string[];
}

/** Run a fresh Node process that loads `targets`, and report what it loaded. */
function load(name: string, targets: string[]): Loaded {
  const log = join(tmp, `${name}.log`);
  const r = spawnSync(
    process.execPath,
    ["--import", join(fixture, "register.mjs"), join(fixture, "load.mjs"), ...targets],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, TESSERA_LEAK_LOG: log },
    },
  );
  if (r.status !== 0) throw new Error(`loader process failed (${r.status}): ${r.stderr}`);
  const urls = readFileSync(log, "utf8").split("\n").filter(Boolean);
  return { urls, cjs: JSON.parse(r.stdout) as string[] };
}

/** The heavy packages among the loaded files. */
function heavyIn(loaded: Loaded): string[] {
  const paths = [...loaded.urls.map((u) => decodeURIComponent(u)), ...loaded.cjs].map((p) => p.replaceAll("\\", "/"));
  return HEAVY.filter((pkg) => paths.some((p) => p.includes(`/node_modules/${pkg}/`)));
}

describe("importing the package root", () => {
  beforeAll(() => {
    ensureBuilt();
    tmp = mkdtempSync(join(tmpdir(), "tessera-leak-"));
  });
  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("loads dist/index.js through the package's own name and exports map", () => {
    const loaded = load("root", ["tessera-trust"]);
    expect(loaded.urls.some((u) => u.endsWith("/dist/index.js"))).toBe(true);
    expect(loaded.urls.some((u) => u.endsWith("/dist/core/normalize.js"))).toBe(true);
  });

  it("loads no MCP SDK, no database driver and no agent framework", () => {
    expect(heavyIn(load("root-clean", ["tessera-trust"]))).toStrictEqual([]);
  });

  it("detects a driver imported as ESM (control)", () => {
    expect(
      heavyIn(load("control-esm", ["tessera-trust", "pg", "@modelcontextprotocol/sdk/server/mcp.js"])),
    ).toStrictEqual(["@modelcontextprotocol/sdk", "pg"]);
  });

  it("detects drivers loaded with CommonJS require (control)", () => {
    expect(heavyIn(load("control-cjs", ["tessera-trust", "require:better-sqlite3", "require:mysql2"]))).toStrictEqual([
      "better-sqlite3",
      "mysql2",
    ]);
  });
});

describe("importing an adapter subpath", () => {
  beforeAll(() => {
    ensureBuilt();
    tmp = mkdtempSync(join(tmpdir(), "tessera-leak-"));
  });
  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("loads its framework at most, never the MCP SDK or a database driver", () => {
    expect(heavyIn(load("ai-sdk", ["tessera-trust/ai-sdk"]))).toStrictEqual([]);
    expect(heavyIn(load("openai-agents", ["tessera-trust/openai-agents"]))).toStrictEqual([]);
    // the LangChain middleware is built with the framework's own createMiddleware (control: the detector sees it)
    expect(heavyIn(load("langchain", ["tessera-trust/langchain"]))).toStrictEqual(["langchain", "@langchain/core"]);
  });
});
