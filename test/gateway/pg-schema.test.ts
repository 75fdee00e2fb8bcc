// A mistyped `?schema=` is refused, not created empty: every command that opens the gateway's store
// on Postgres exits 2 naming the schema and `--create`, and creates nothing; `--create` creates it.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { openGatewayStore } from "../../src/review/open.js";
import { cliPath, tempDir, upstreamEnv, upstreamScript } from "./harness.js";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "./live.js";
import { writePolicy } from "./policy.js";

const live = await pgReachable();
const TYPO = uniqueSchema("tessera_gw_typo");
const EMPTY = uniqueSchema("tessera_gw_empty");

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir("gw-pg-schema"));
});
afterEach(() => cleanup());

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
const schemaExists = (s: string) =>
  admin(async (c) => (await c.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [s])).rowCount === 1);
const tablesIn = (s: string) =>
  admin(
    async (c) =>
      (await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1", [s])).rows[0].n as number,
  );

function tessera(args: string[], input = "") {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: dir,
    encoding: "utf8",
    input,
    env: { ...upstreamEnv(dir), NO_COLOR: "1" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.runIf(live)("a Postgres store that does not exist", () => {
  afterAll(async () => {
    await admin((c) => c.query(`DROP SCHEMA IF EXISTS ${TYPO} CASCADE; DROP SCHEMA IF EXISTS ${EMPTY} CASCADE`));
  });

  const gatewayArgs = () => [
    "gateway",
    "--policy",
    writePolicy(dir, 4),
    "--context",
    join(dir, "context.json"),
    "--store",
    storeUrl(TYPO),
  ];
  const commands: [string, () => string[]][] = [
    ["review list", () => ["review", "list", "--store", storeUrl(TYPO)]],
    ["review show", () => ["review", "show", "rv_000000000000", "--store", storeUrl(TYPO)]],
    ["review approve", () => ["review", "approve", "rv_000000000000", "--store", storeUrl(TYPO)]],
    ["review deny", () => ["review", "deny", "rv_000000000000", "--store", storeUrl(TYPO)]],
    ["review tools", () => ["review", "tools", "--store", storeUrl(TYPO)]],
    [
      "review approve-tool",
      () => [
        "review",
        "approve-tool",
        "refund_order",
        "--digest",
        `sha256:${"0".repeat(64)}`,
        "--store",
        storeUrl(TYPO),
      ],
    ],
    ["audit export", () => ["audit", "export", "--jsonl", "--store", storeUrl(TYPO)]],
    ["gateway", () => [...gatewayArgs(), "--", process.execPath, upstreamScript]],
  ];

  it.each(commands)("`tessera %s` exits 2 naming the schema and --create, and creates nothing", async (_name, args) => {
    const r = tessera(args());
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      new RegExp(
        `^tessera \\w+: no schema \`${TYPO}\` at \`[^\`]+\` \\(check \`\\?schema=\`, or give \`--create\` to create the store there\\)\\n$`,
      ),
    );
    expect(await schemaExists(TYPO)).toBe(false);
  });

  it("a schema that exists but holds no store is refused too, and left as it was", async () => {
    await admin((c) => c.query(`CREATE SCHEMA ${EMPTY}`));
    const r = tessera(["review", "list", "--store", storeUrl(EMPTY)]);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toContain(`schema \`${EMPTY}\` holds no gateway store`);
    expect(await tablesIn(EMPTY)).toBe(0);
    await expect(openGatewayStore(storeUrl(EMPTY), { mustExist: true })).rejects.toMatchObject({
      code: "store_missing",
    });
    expect(await tablesIn(EMPTY)).toBe(0);
  });

  it("`--create` creates the store; then every command opens it without", async () => {
    const created = tessera(["review", "list", "--create", "--store", storeUrl(TYPO)]);
    expect(created).toMatchObject({ code: 0, stdout: "no pending reviews\n", stderr: "" });
    expect(await schemaExists(TYPO)).toBe(true);
    expect(tessera(["review", "list", "--store", storeUrl(TYPO)])).toMatchObject({ code: 0 });
    expect(tessera(["audit", "export", "--jsonl", "--store", storeUrl(TYPO)])).toMatchObject({ code: 0, stdout: "" });
    await admin((c) => c.query(`DROP SCHEMA ${TYPO} CASCADE`));
    // the gateway with --create: starts, creates the store, and stops when its client closes stdin
    const gw = tessera([...gatewayArgs(), "--create", "--", process.execPath, upstreamScript]);
    expect(gw.code, gw.stderr).toBe(0);
    expect(await schemaExists(TYPO)).toBe(true);
    expect(tessera(["audit", "export", "--jsonl", "--store", storeUrl(TYPO)]).code).toBe(0);
  });
});
