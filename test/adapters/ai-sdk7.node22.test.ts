// tessera-trust/ai-sdk's `toolApproval` with the real AI SDK 7, which needs Node 22: the registry's
// `node@22` runs test/fixtures/ai-sdk7-agent.mjs over the built adapter (run `npm run build`
// first), an AI SDK 7 installed once into a scratch folder, its MockLanguageModelV4 and an HTTP
// Source on 127.0.0.1. Skipped only when `node@22` cannot be fetched, and then failed under
// TESSERA_REQUIRE_LIVE=1.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../mcp/helpers.js";
import { REQUIRE_LIVE } from "../sources/live.js";

const run = promisify(execFile);
/** The AI SDK 7 release the README names as tested. */
const AI7 = "7.0.173";
// `npx -p node@22 node …` runs the registry's Node 22 (`npm exec -p node@22 -- node <file>` hands
// `node` to that Node as the script to run, in npm 11)
const NODE22 = ["--yes", "-p", "node@22", "node"];
const MINUTES = 60_000;

async function node22Version(): Promise<string | null> {
  try {
    const { stdout } = await run("npx", [...NODE22, "-p", "process.version"], { timeout: 3 * MINUTES });
    return stdout.trim();
  } catch {
    return null;
  }
}

const version = await node22Version();
const available = version?.startsWith("v22.") === true;

it("the registry's node@22 can be fetched when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(version, "`npx -p node@22 node` must run Node 22").toMatch(/^v22\./);
  else if (!available) console.warn(`skipping AI SDK 7 under Node 22: \`npx -p node@22 node\` gave ${version}`);
});

type Turn = { runs: number[]; seen: string[] };
interface Report {
  allowed: Turn;
  blocked: Turn;
  held: { runs: number[]; request: { tool: string; reason: string } | null };
  approved: Turn;
  stale: Turn | null;
  betterSqlite3: string[];
  node: string;
}

describe.skipIf(!available)("tessera-trust/ai-sdk toolApproval with ai@7 under Node 22", () => {
  const scratch = mkdtempSync(join(tmpdir(), "tessera-ai7-"));
  let report: Report;

  beforeAll(async () => {
    await run("npm", ["install", `ai@${AI7}`, "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", scratch], {
      timeout: 5 * MINUTES,
    });
    const script = join(root, "test", "fixtures", "ai-sdk7-agent.mjs");
    const { stdout } = await run("npx", [...NODE22, script, scratch, root], { cwd: scratch, timeout: 3 * MINUTES });
    report = JSON.parse(stdout.trim().split("\n").pop()!) as Report;
  }, 10 * MINUTES);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("runs on Node 22 without loading better-sqlite3", () => {
    expect(report.node).toMatch(/^v22\./);
    expect(report.betterSqlite3).toEqual([]);
  });

  it("an allowed call executes once", () => {
    expect(report.allowed.runs).toEqual([1001]);
    expect(report.allowed.seen[0]).toContain('"refunded":1001');
  });

  it("a blocked call never executes and the model reads the failing checks", () => {
    expect(report.blocked.runs).toEqual([]);
    expect(report.blocked.seen[0]).toContain('"type":"execution-denied"');
    expect(report.blocked.seen[0]).toContain("blocked by tessera");
    expect(report.blocked.seen[0]).toContain("customer_id not_equal (ctx customer_id)");
  });

  it("a held call asks for the user's approval with the reason, and runs once after it", () => {
    expect(report.held.runs).toEqual([]);
    expect(report.held.request?.tool).toBe("cancel_order");
    expect(report.held.request?.reason).toContain("held by tessera");
    expect(report.held.request?.reason).toContain("status not_in_list");
    expect(report.approved.runs).toEqual([3001]);
    expect(report.approved.seen[0]).toContain('"refunded":3001');
  });

  it("an approval replayed while the Source is down is grounded afresh and follows on_error", () => {
    expect(report.stale?.runs).toEqual([]);
    expect(report.stale?.seen[0]).toContain('"type":"execution-denied"');
    expect(report.stale?.seen[0]).toContain("error → block [source_server_error]");
  });
});
