// The package as a user gets it: `npm pack`, installed from the tarball into an empty folder with
// the framework peers, then `tessera check`, `tessera hook`, `tessera mcp` and every subpath import
// run from that folder — nothing from this checkout on the path. Needs the npm registry or a warm
// npm cache. Install scripts are skipped and better-sqlite3's native build is copied from this
// checkout (same version, same Node): compiling it again takes minutes and proves nothing about
// this package.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "./mcp/helpers.js";

const work = mkdtempSync(join(tmpdir(), "tessera-pack-"));
const project = join(work, "project");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const npm = (args: string[], cwd: string) =>
  execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 280_000 });

beforeAll(() => {
  const tarball = npm(["pack", "--ignore-scripts", "--silent", "--pack-destination", work], root)
    .trim()
    .split("\n")
    .pop()!;
  cpSync(join(root, "examples", "refunds"), project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "an-empty-project", private: true, type: "module" }),
  );
  writeFileSync(
    join(project, "call.json"),
    JSON.stringify({ tool: "refund_order", arguments: { order_id: 1001, amount_cents: 4999 } }),
  );
  const peers = Object.keys(pkg.peerDependencies).map((name) => `${name}@${pkg.devDependencies[name]}`);
  npm(
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", join(work, tarball), ...peers],
    project,
  );
  const installed = join(project, "node_modules", "better-sqlite3");
  const ours = join(root, "node_modules", "better-sqlite3");
  const version = (dir: string) =>
    (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
  expect(version(installed)).toBe(version(ours));
  cpSync(join(ours, "build"), join(installed, "build"), { recursive: true });
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const bin = () => join(project, "node_modules", ".bin", "tessera");
const run = (args: string[], input = "") =>
  spawnSync(bin(), args, {
    cwd: project,
    input,
    encoding: "utf8",
    env: { ...process.env, XDG_CACHE_HOME: join(work, "cache") },
  });

describe("the packed package, installed into an empty folder", () => {
  it("`tessera check` allows the own refund", () => {
    const r = run(["check", "--policy", "policy.yaml", "--call", "call.json", "--context", "context.json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ALLOW {2}refund_order/);
  });

  it("`tessera hook claude-code` denies someone else's refund", () => {
    const input = JSON.stringify({
      hook_event_name: "PreToolUse",
      tool_name: "refund_order",
      tool_input: { order_id: 1003 },
    });
    const r = run(["hook", "claude-code", "--policy", "policy.yaml", "--context", "context.json"], input);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it("`tessera mcp --help` and `tessera mcp` (its client leaves at once) exit 0", () => {
    expect(run(["mcp", "--help"]).stdout).toMatch(/^usage: tessera mcp /);
    const r = run(["mcp", "--policy", "policy.yaml"]);
    expect(r.status, r.stderr).toBe(0);
  });

  it("every subpath imports by the package's name, with its entry points", () => {
    const script = `
      const names = {
        "tessera-trust": ["createGate", "loadPolicy"],
        "tessera-trust/mcp": ["createGateway", "createTesseraServer"],
        "tessera-trust/review": ["openReviewStore", "approveReview"],
        "tessera-trust/ai-sdk": ["guardTools", "toolApproval"],
        "tessera-trust/openai-agents": ["guardAgentTools"],
        "tessera-trust/langchain": ["tesseraMiddleware"],
      };
      const out = {};
      for (const [from, want] of Object.entries(names)) {
        const m = await import(from);
        out[from] = want.map((n) => typeof m[n]);
      }
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, string[]>;
    for (const [from, kinds] of Object.entries(out))
      expect(
        kinds.every((k) => k === "function"),
        from,
      ).toBe(true);
    expect(Object.keys(out)).toHaveLength(6);
  });
});
