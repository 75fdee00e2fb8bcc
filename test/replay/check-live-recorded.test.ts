// The check case kind's recorded fixtures and live-server keys: an unrecorded request fails the
// case even when the decision matches `want`; a live case without its URL fails under
// TESSERA_REQUIRE_LIVE=1, is skipped when it has no local default, and fails on an unreachable URL.
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaseFile } from "../../src/replay/run.js";
import { closedPort } from "../sources/live.js";

const root = resolve(import.meta.dirname, "../..");
const HTTP = join(root, "cases/check/http");
const PG = join(root, "cases/check/postgres");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tessera-case-kind-"));
  for (const f of ["orders-api.recorded.json", "refund-ledger.recorded.json"])
    copyFileSync(join(HTTP, f), join(dir, f));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(name: string, text: string, env: Record<string, string | undefined> = {}) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return runCaseFile(file, env);
}

const recorded = (
  call: string,
  want: string,
  fixtures = `{"orders-api": "orders-api.recorded.json", "refund-ledger": "refund-ledger.recorded.json"}`,
) =>
  `note: "t"\nkind: check\npolicy: ${JSON.stringify(join(HTTP, "policy.json"))}\nfixtures: ${fixtures}\ncall: ${call}\ncontext: {"customer_id": "c-1"}\nwant: ${want}\n`;

describe("recorded fixtures", () => {
  it("replays a recorded request and fails on a wrong want", async () => {
    const call = `{"tool": "refund_order", "arguments": {"order_id": 1001}}`;
    expect((await run("ok", recorded(call, `{"decision": "allow"}`))).status).toBe("passed");
    const wrong = await run("wrong", recorded(call, `{"decision": "block"}`));
    expect(wrong.status).toBe("failed");
    expect(wrong.failures.join("\n")).toContain("decision");
  });

  it("fails a case whose request nobody recorded, even when the decision is the one wanted", async () => {
    // 9999 was never recorded: both checks error with source_unreachable and on_error block blocks
    const r = await run(
      "miss",
      recorded(`{"tool": "refund_order", "arguments": {"order_id": 9999}}`, `{"decision": "block"}`),
    );
    expect(r.status).toBe("failed");
    expect(r.failures[0]).toBe('source `orders-api`: no recorded response for {"value":9999}; re-record the fixture');
    expect(r.failures.some((f) => f.startsWith("source `refund-ledger`"))).toBe(true);
  });

  it("replays a recorded error as that error, not as a miss", async () => {
    const r = await run(
      "err",
      recorded(
        `{"tool": "refund_order", "arguments": {"order_id": 1003}}`,
        `{"decision": "hold", "checks": [{"status": "matched"}, {"status": "error", "attempts": 2, "error": {"code": "source_server_error"}}]}`,
      ),
    );
    expect(r).toMatchObject({ status: "passed", failures: [] });
  });

  it("refuses a recording of another source kind, and a missing recording", async () => {
    writeFileSync(join(dir, "mcp.recorded.json"), JSON.stringify({ version: 1, kind: "mcp", records: [] }));
    const call = `{"tool": "refund_order", "arguments": {"order_id": 1001}}`;
    const kind = await run("kind", recorded(call, "{}", `{"orders-api": "mcp.recorded.json"}`));
    expect(kind.status).toBe("invalid");
    expect(kind.failures[0]).toContain(
      "fixtures.orders-api: `mcp.recorded.json` records a mcp source; source `orders-api` is a http source",
    );
    const gone = await run("gone", recorded(call, "{}", `{"orders-api": "nope.recorded.json"}`));
    expect(gone.status).toBe("invalid");
    expect(gone.failures[0]).toContain("no such recording file");
  });
});

describe("record.mjs", () => {
  // runs the committed scripts against the real node:http server and MCP fixture server (needs `npm run build`)
  it.each(["http", "mcp"])(
    "cases/check/%s: the committed recordings are what the real adapter records now",
    async (folder) => {
      const out = mkdtempSync(join(tmpdir(), "tessera-rerecord-"));
      try {
        const here = join(root, "cases/check", folder);
        const { stdout } = await promisify(execFile)(process.execPath, [join(here, "record.mjs")], {
          env: { ...process.env, TESSERA_RECORD_OUT: out },
          timeout: 30_000,
        });
        const committed = readdirSync(here)
          .filter((f) => f.endsWith(".recorded.json"))
          .sort();
        expect(committed.length).toBeGreaterThan(0);
        expect(readdirSync(out).sort()).toEqual(committed);
        for (const f of committed)
          expect(readFileSync(join(out, f), "utf8"), f).toBe(readFileSync(join(here, f), "utf8"));
        expect(stdout).toContain("error-");
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
  );
});

const live = (extra: string) =>
  `note: "t"\nkind: check\npolicy: ${JSON.stringify(join(PG, "policy.json"))}\n${extra}\ncall: {"tool": "refund_order", "arguments": {"order_id": 1001}}\ncontext: {"customer_id": "c-1"}\nwant: {"decision": "allow"}\n`;
const setup = `setup_sql: {"billing": ${JSON.stringify(join(PG, "setup.sql"))}}`;

describe("live cases", () => {
  it("fail when the URL is missing and TESSERA_REQUIRE_LIVE=1", async () => {
    const r = await run("required", live(`live: [TESSERA_PG_URL]\n${setup}`), { TESSERA_REQUIRE_LIVE: "1" });
    expect(r).toMatchObject({
      status: "failed",
      failures: ["live: `TESSERA_PG_URL` is not set, and TESSERA_REQUIRE_LIVE=1 requires the live server"],
    });
  });

  it("are skipped with the reason when a variable without a local default is missing", async () => {
    const r = await run("skip", live(`live: [TESSERA_PG_URL, TESSERA_NO_SUCH_URL]\n${setup}`), {
      TESSERA_PG_URL: "postgres://postgres@127.0.0.1:5432/test",
    });
    expect(r).toMatchObject({ status: "skipped", skipped: "`TESSERA_NO_SUCH_URL` is not set" });
  });

  it("fail, not skip, when a URL that was given does not answer", async () => {
    const port = await closedPort();
    const r = await run("closed", live(`live: [TESSERA_PG_URL]\n${setup}`), {
      TESSERA_PG_URL: `postgres://postgres@127.0.0.1:${port}/test`,
    });
    expect(r.status).toBe("failed");
    expect(r.failures[0]).toMatch(
      /^setup_sql\.billing: cannot reach the postgres server of source `billing` \(.*ECONNREFUSED/,
    );
  });

  it("reject setup_sql without live:, and on a source that is not sql", async () => {
    expect((await run("nolive", live(setup))).failures[0]).toContain(
      "setup_sql: a case with setup_sql names its servers' variables in `live:`",
    );
    const http = `note: "t"\nkind: check\npolicy: ${JSON.stringify(join(HTTP, "policy.json"))}\nlive: [TESSERA_PG_URL]\nsetup_sql: {"orders-api": "x.sql"}\ncall: {"tool": "refund_order", "arguments": {"order_id": 1001}}\nwant: {}\n`;
    const r = await run("http", http, { TESSERA_PG_URL: "postgres://postgres@127.0.0.1:5432/test" });
    expect(r.status).toBe("invalid");
    expect(r.failures[0]).toContain(
      "setup_sql.orders-api: source `orders-api` is a http source; setup_sql runs on postgres and mysql sources",
    );
  });
});
