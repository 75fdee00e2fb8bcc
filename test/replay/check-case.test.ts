// A malformed `check` case is `case_invalid` naming its key; a request no recording holds fails the
// case by its type (RecordingMiss), not by the wording of an error message.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SourceError } from "../../src/checks/source.js";
import { runCaseFile } from "../../src/replay/run.js";
import { createRecordedSource, RecordingMiss } from "../../src/sources/recorded.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "tessera-check-case-"));
const POLICY = join(ROOT, "examples/refunds/policy.yaml");

async function run(name: string, body: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `note: "${name}"\nkind: check\npolicy: ${JSON.stringify(POLICY)}\n${body}`);
  const report = await runCaseFile(file, {});
  return report.status === "invalid" ? { error: report.failures[0]!.replace(`${file}: `, "") } : { ok: report.status };
}

describe("check case schema", () => {
  const call = `call: {tool: refund_order, arguments: {order_id: 1001}}\nwant: {decision: allow}\n`;
  it.each([
    ["unknown-key", `${call}contxt: {}\n`, 'unknown key "contxt"'],
    ["bad-explain", `${call}explain: all\n`, "explain: expected `values`"],
    [
      "bad-live",
      `${call}live: [lower_case]\n`,
      "live: expected a list of environment variable names, e.g. `[TESSERA_PG_URL]`",
    ],
    ["empty-live", `${call}live: []\n`, "live: expected a list of environment variable names, e.g. `[TESSERA_PG_URL]`"],
    [
      "setup-no-live",
      `${call}setup_sql: {billing: x.sql}\n`,
      "setup_sql: a case with setup_sql names its servers' variables in `live:`",
    ],
    ["bad-env", `${call}env: {A: 1}\n`, "env: expected a mapping of names to strings"],
    ["bad-call", "call: [1]\nwant: {}\n", "call: expected `{tool, arguments}`"],
  ])("%s", async (name, body, message) => {
    expect(await run(name, body)).toEqual({ error: message });
  });
});

describe("a recording miss", () => {
  it("is a RecordingMiss, still source_unreachable to the engine, with the request's values", async () => {
    const source = createRecordedSource("orders", { version: 1, kind: "http", records: [] }, 1000);
    const request = source.prepare({ path: "/orders/{value}" });
    const err = await request.run({ value: 1001 }, new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordingMiss);
    expect(err).toBeInstanceOf(SourceError);
    expect(err).toMatchObject({ code: "source_unreachable", source: "orders", values: { value: 1001 } });
  });
});
