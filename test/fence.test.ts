// The dependency fence (adr/0002) can fail: dependency-cruiser, run with the real
// .dependency-cruiser.js over test/fixtures/fence, reports every rule; the real src/ reports none.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fixture = join(root, "test", "fixtures", "fence");
const depcruise = join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const configPath = join(root, ".dependency-cruiser.js");

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string; readonly severity: string };
}

function cruise(cwd: string): Violation[] {
  const r = spawnSync(process.execPath, [depcruise, "src", "--config", configPath, "--output-type", "json"], {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
  });
  if (r.error) throw r.error;
  let out: { summary: { violations: Violation[] } };
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new Error(`dependency-cruiser printed no json (exit ${r.status}): ${r.stderr}`);
  }
  return out.summary.violations;
}

describe("the dependency fence", () => {
  let ruleNames: string[] = [];
  let violations: Violation[] = [];

  beforeAll(async () => {
    const config = (await import(pathToFileURL(configPath).href)).default as {
      forbidden: { name: string; severity: string; comment?: string }[];
    };
    ruleNames = config.forbidden.map((r) => r.name);
    violations = cruise(fixture);
  });

  it("gives every rule a name, error severity and a comment saying why", async () => {
    const config = (await import(pathToFileURL(configPath).href)).default as {
      forbidden: { name: string; severity: string; comment?: string }[];
    };
    expect(ruleNames.length).toBeGreaterThanOrEqual(9);
    for (const r of config.forbidden) {
      expect(r.severity, r.name).toBe("error");
      expect(r.comment?.length ?? 0, r.name).toBeGreaterThan(20);
    }
  });

  it("reports every rule of the configuration on the fixture", () => {
    const seen = new Set(violations.map((v) => v.rule.name));
    for (const name of ruleNames) expect(seen.has(name), `no fixture violates ${name}`).toBe(true);
  });

  it("flags the exact file that breaks each rule", () => {
    const pairs = new Set(violations.map((v) => `${v.rule.name} ${v.from}`));
    const expected = [
      "core-is-pure src/core/impure.ts",
      "core-no-node-builtins src/core/hashing.ts",
      "mcp-sdk-only-in-mcp src/cli/leak.ts",
      "answers-actions-offline src/answers/online.ts",
      "answers-actions-no-network-builtins src/answers/online.ts",
      "answers-actions-no-network-builtins src/actions/socket.ts",
      "checks-declare-not-import-sources src/checks/policy.ts",
      "cli-only-from-cli src/mcp/reply.ts",
      "sources-no-audit src/sources/audited.ts",
      "frameworks-only-in-adapters src/cli/framework.ts",
      "adapters-over-the-gate src/adapters/verdicts.ts",
      "serve-over-the-gate src/serve/route.ts",
      "serve-only-from-cli src/audit/serving.ts",
    ];
    for (const p of expected) expect(pairs.has(p), p).toBe(true);
    const cycle = violations.filter((v) => v.rule.name === "no-circular").map((v) => v.from);
    expect(cycle.some((f) => f === "src/cycle/a.ts" || f === "src/cycle/b.ts")).toBe(true);
    const offline = violations
      .filter((v) => v.rule.name === "answers-actions-offline" && v.from === "src/answers/online.ts")
      .map((v) => v.to);
    expect(offline).toContain("src/sources/adapter.ts");
  });

  it("does not flag the allowed importers: src/mcp/, src/sources/mcp.ts, core importing core, cli importing cli, the gate importing audit, serve importing serve", () => {
    const flagged = new Set(violations.map((v) => v.from));
    const allowed = [
      "src/mcp/server.ts",
      "src/sources/mcp.ts",
      "src/core/pure.ts",
      "src/sources/adapter.ts",
      "src/cli/report.ts",
      "src/gate.ts",
      "src/serve/listener.ts",
    ];
    for (const ok of allowed) {
      expect(flagged.has(ok), ok).toBe(false);
    }
  });

  it("finds no violation in the real src/", () => {
    expect(cruise(root).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toStrictEqual([]);
  });
});
