import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCaseFile } from "../../src/replay/run.js";

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tessera-grade-case-"));
});

const INPUT = `input:
  request_id: r
  query: q
  answer: Desks are not reimbursed.
  evidence: [{ id: hr, revision: "1", text: Desks are not reimbursed. }]
`;
async function run(name: string, body: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `note: ${name}\nkind: grade\n${body}`);
  return runCaseFile(file, {});
}

describe("grade case kind", () => {
  it("passes and fails on `want`", async () => {
    expect((await run("ok", `${INPUT}want: { state: supported, delivery: deliver }\n`)).status).toBe("passed");
    const bad = await run("wrong", `${INPUT}want: { state: unsupported }\n`);
    expect(bad.status).toBe("failed");
    expect(bad.failures).toEqual(['want.state: want `"unsupported"`, got `"supported"`']);
  });

  it("matches the audit record under want.audit", async () => {
    const r = await run(
      "audit",
      `${INPUT}want: { audit: { evidence: [{ id: hr, revision: "1" }], raw_result: { sentences: 1 } } }\n`,
    );
    expect(r.status).toBe("passed");
  });

  it("reads `access` from a file beside the case", async () => {
    writeFileSync(join(dir, "acl.json"), JSON.stringify({ principal: "p", entitlement_version: "1", allow: [] }));
    const r = await run(
      "acl-file",
      `${INPUT}access: acl.json\nwant: { state: unsupported, evidence_ids: [], audit: { authorization: { denied_ids: [hr] } } }\n`,
    );
    expect([r.status, r.failures]).toEqual(["passed", []]);
  });

  it("reports malformed cases as invalid with the path", async () => {
    const cases: [string, string, RegExp][] = [
      ["unknown-key", `${INPUT}results: x\nwant: {}\n`, /^results: unknown key `results` in a grade case$/],
      [
        "bad-input",
        `input: { request_id: r, query: q, answer: a, evidence: [{ id: hr, text: x }] }\nwant: {}\n`,
        /^input\.evidence\[0\]\.revision: invalid input/,
      ],
      ["missing-file", `input: nope.json\nwant: {}\n`, /^input: no such file/],
      [
        "both-results",
        `${INPUT.replace("  evidence:", "  result: {}\n  evidence:")}result_file: x.json\nwant: {}\n`,
        /^result_file: give `result` or `result_file`, not both$/,
      ],
      ["bad-evaluator", `${INPUT}evaluator: gpt\nwant: {}\n`, /^evaluator: expected one of/],
      [
        "bad-policy",
        `${INPUT}policy: { unavaliable: deliver }\nwant: {}\n`,
        /^policy\.unavaliable: unknown state `unavaliable`$/,
      ],
      ["bad-action", `${INPUT}policy: { unavailable: shrug }\nwant: {}\n`, /^policy\.unavailable: expected one of/],
      [
        "bad-access",
        `${INPUT}access: { principal: p, allow: [hr] }\nwant: {}\n`,
        /^access\.entitlement_version: invalid input/,
      ],
      ["missing-access-file", `${INPUT}access: nope.json\nwant: {}\n`, /^access: no such file/],
    ];
    for (const [name, body, message] of cases) {
      const r = await run(name, body);
      expect(r.status, name).toBe("invalid");
      expect(r.failures[0], name).toMatch(message);
    }
  });
});
