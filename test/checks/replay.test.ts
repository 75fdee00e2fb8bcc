// The `check` case kind: a wrong `want` fails with the difference, malformed cases are invalid
// with a precise message, and fixtures only replace SQLite sources.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCaseFile } from "../../src/replay/run.js";

const policy = new URL("../../examples/refunds/policy.yaml", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "tessera-replay-"));
let n = 0;
function write(body: string): string {
  const file = join(dir, `case-${++n}.yaml`);
  writeFileSync(file, `note: a case\nkind: check\npolicy: ${JSON.stringify(policy)}\n${body}`);
  return file;
}
const call =
  "call: { tool: refund_order, arguments: { order_id: 1001, amount_cents: 1 } }\ncontext: { customer_id: c-2 }\n";

describe("check cases", () => {
  it("fail with the exact difference when want disagrees", async () => {
    const r = await runCaseFile(
      write(`${call}want: { decision: allow, checks: [ { status: mismatch }, {}, {} ] }\n`),
      {},
    );
    expect([r.status, r.failures]).toEqual(["failed", ['want.decision: want `"allow"`, got `"block"`']]);
  });

  it("fail when a policy error was not expected", async () => {
    const bad = new URL("fixtures/bad/unknown-key.yaml", import.meta.url).pathname;
    const file = join(dir, "bad-policy.yaml");
    writeFileSync(file, `note: n\nkind: check\npolicy: ${JSON.stringify(bad)}\n${call}want: { decision: block }\n`);
    const r = await runCaseFile(file, {});
    expect(r.status).toBe("failed");
    expect(r.failures).toEqual(["want.decision: missing"]);
  });

  const invalid: [string, string, string][] = [
    ["an unknown key", `${call}wants: {}\nwant: {}\n`, 'unknown key "wants"'],
    ["a call that is not a mapping", "call: refund_order\nwant: {}\n", "call: expected `{tool, arguments}`"],
    ["explain other than values", `${call}explain: all\nwant: {}\n`, "explain: expected `values`"],
    [
      "a fixture for an unknown source",
      `${call}fixtures: { ledger: x.sql }\nwant: {}\n`,
      "fixtures.ledger: the policy has no source `ledger`",
    ],
    [
      "a fixture of the wrong type",
      `${call}fixtures: { billing: x.csv }\nwant: {}\n`,
      "fixtures.billing: expected a `.sql` or `.db` file",
    ],
    [
      "a fixture that does not build",
      `${call}fixtures: { billing: missing.sql }\nwant: {}\n`,
      "fixtures.billing: cannot build `missing.sql`",
    ],
  ];
  it.each(invalid)("are invalid with %s", async (_name, body, message) => {
    const file = write(body);
    const r = await runCaseFile(file, {});
    expect(r.status).toBe("invalid");
    expect(r.failures[0]?.startsWith(`${file}: ${message}`)).toBe(true);
  });
});
