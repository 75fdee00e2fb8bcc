import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = `${ROOT}dist/cli/main.js`;

describe("tessera demo (what `npm start` runs)", () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
  });

  it("shows every verdict, names the command for each, and exits 0", () => {
    const r = spawnSync(process.execPath, [MAIN, "demo"], {
      cwd: "/",
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const out = r.stdout;
    // a tool call allowed, one blocked, one held, each with its reproducing command
    expect(out).toMatch(/\$ npx tessera check .*refund-own-order\.json {3}exit 0\n {2}ALLOW {2}refund_order/);
    expect(out).toMatch(/\$ npx tessera check .*refund-someone-elses-order\.json {3}exit 1\n {2}BLOCK {2}refund_order/);
    expect(out).toMatch(
      /\$ npx tessera check .*cancel-delivered-order\.json {3}exit 3 \(hold\)\n {2}HOLD {2}cancel_order/,
    );
    expect(out).toContain("not_equal");
    // drafts with every field verified, a tampered proposal caught
    expect(out).toContain(
      '$ npx tessera draft incident --workspace examples/ci-workspace "why did run 7001 fail?"   exit 0',
    );
    expect(out).toMatch(/all grounded: (\d+) of \1 fields verified/);
    expect(out).toContain("nothing was executed");
    expect(out).toMatch(/verify --proposal examples\/proposals\/incident-7001-tampered\.json .*exit 1/);
    expect(out).toMatch(/failure_signature +NO +claim_unsupported/);
    // the three grading states
    for (const state of ["supported", "unsupported", "unavailable"])
      expect(out).toMatch(new RegExp(`state +${state}\\n`));
    // no colour when stdout is not a TTY
    expect(out).not.toContain("\u001b[");
  });
});
