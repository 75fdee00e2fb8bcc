// A Postgres session of the review queue or the audit log that the server ends (failover, restart,
// idle timeout, pg_terminate_backend) fails that store call with `store_unavailable`, and the next
// call gets a new session; the process never dies of an unhandled 'error' event (adr/0073). The
// store runs in its own process (test/fixtures/pg-store-session-lost.mjs), so a crash is its exit.
import { spawn } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "./harness.js";
import { PG_URL, pgReachable, REQUIRE_LIVE, uniqueSchema } from "./live.js";

const live = await pgReachable();
const SCHEMA = uniqueSchema("tessera_gw_lost");

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

let child: ReturnType<typeof spawn> | undefined;

function run(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  child = spawn(process.execPath, [join(root, "test/fixtures/pg-store-session-lost.mjs"), SCHEMA], {
    cwd: root,
    env: { ...process.env, TESSERA_PG_URL: PG_URL },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const running = child;
  return new Promise((resolve) => running.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe.runIf(live)("store sessions the server ends", () => {
  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) child.kill(); // it hung: the test has failed already
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.end();
  });

  it("fail the call they were serving, clearly; the store keeps working and the process survives", async () => {
    const r = await run();
    expect(r.stderr).not.toContain("Unhandled 'error' event");
    expect(r.code, r.stderr).toBe(0);
    const steps = r.stdout
      .trimEnd()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            step: string;
            ok: boolean;
            code?: string;
            message?: string;
            then?: boolean;
            ended?: boolean;
          },
      );
    const ended = (what: string) => ({
      ok: false,
      code: "store_unavailable",
      message: expect.stringMatching(
        new RegExp(
          `^${what} \`postgres://[^\`]*schema=${SCHEMA}\`.*terminating connection due to administrator command`,
        ),
      ),
    });
    expect(steps).toEqual([
      { step: "open ended", ...ended("cannot open review store") },
      { step: "open again", ok: true },
      { step: "append ended", ...ended("audit log") },
      { step: "append again", ok: true },
      { step: "hold ended", ...ended("review store") },
      { step: "hold again", ok: true },
      { step: "list after idle ended", ok: true, next: true, ended: true },
    ]);
  });
});
