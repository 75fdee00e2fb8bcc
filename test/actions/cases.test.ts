// cases/draft and cases/verify run under vitest through the same loader `tessera test` uses, and a
// case whose `want` is wrong, or whose keys are, does not pass.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCaseFile } from "../../src/replay/run.js";

const root = resolve(__dirname, "../..");
const tmp = mkdtempSync(join(tmpdir(), "tessera-action-cases-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

for (const kind of ["draft", "verify"]) {
  const dir = join(root, "cases", kind);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  describe(`cases/${kind}`, () => {
    it("has cases", () => expect(files.length).toBeGreaterThan(4));
    for (const f of files) {
      it(f, async () => {
        const r = await runCaseFile(join(dir, f), process.env);
        expect(r.failures).toEqual([]);
        expect(r.status).toBe("passed");
      });
    }
  });
}

describe("a wrong case does not pass", () => {
  const grounding = join(root, "cases/draft/groundings/rca-run-1042.json");
  const write = (name: string, text: string) => {
    const p = join(tmp, name);
    writeFileSync(p, text);
    return p;
  };

  it("a wrong want fails with the difference", async () => {
    const file = write(
      "wrong.yaml",
      `note: wrong\nkind: draft\naction: incident\ngrounding: ${grounding}\nwant: { all_grounded: false, fields: [{ name: run }] }\n`,
    );
    const r = await runCaseFile(file, process.env);
    expect(r.status).toBe("failed");
    expect(r.failures).toEqual(["want.all_grounded: want `false`, got `true`", "want.fields: want 1 items, got 8"]);
  });

  it("an expected error that does not happen fails", async () => {
    const file = write(
      "noerr.yaml",
      `note: no error\nkind: draft\naction: incident\ngrounding: ${grounding}\nwant: { error: unknown_action }\n`,
    );
    expect((await runCaseFile(file, process.env)).failures).toEqual(["want.error: want an error, got a proposal"]);
  });

  it("unknown keys, missing inputs and bad fixtures make a case invalid, with the key", async () => {
    const cases: [string, string][] = [
      [
        `note: x\nkind: draft\naction: incident\ngrounding: ${grounding}\nquestin: y\nwant: {}\n`,
        "questin: unknown key `questin` in a draft case",
      ],
      [`note: x\nkind: draft\naction: incident\nwant: {}\n`, "workspace: expected a workspace folder (or `grounding`)"],
      [
        `note: x\nkind: draft\naction: incident\ngrounding: nope.json\nwant: {}\n`,
        "grounding: no such file `nope.json`",
      ],
      [
        `note: x\nkind: draft\naction: incident\ngrounding: { domain: ci }\nwant: {}\n`,
        "grounding: question: invalid input: expected string, received undefined",
      ],
      [`note: x\nkind: verify\nwant: {}\n`, "claims: give exactly one of `claims` and `proposal`"],
      [
        `note: x\nkind: verify\nclaims: [{ text: a }]\nwant: {}\n`,
        "claims: [0].support: invalid input: expected array, received undefined",
      ],
      [
        `note: x\nkind: verify\nproposal: ${join(root, "cases/verify/fixtures/incident-executed.json")}\nrecords: []\nwant: {}\n`,
        "proposal: executed: invalid input: expected false",
      ],
      [
        `note: x\nkind: verify\nproposal: ${grounding.replace("groundings/rca-run-1042.json", "../verify/fixtures/incident-run-1042.json")}\nrecords: [{ id: a, source: s, locator: { kind: k, parts: [] }, text: x }, { id: a, source: s, locator: { kind: k, parts: [] }, text: y }]\nwant: {}\n`,
        "records[1].id: duplicate record id `a`",
      ],
      [
        `note: x\nkind: verify\nproposal: ${write("dup-key.json", '{"kind":"incident","kind":"pr_summary"}')}\nrecords: []\nwant: {}\n`,
        `proposal: \`${join(tmp, "dup-key.json")}\`: invalid json: (root): duplicate key \`kind\``,
      ],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const r = await runCaseFile(write(`bad-${i}.yaml`, text), process.env);
      expect(r.status, text).toBe("invalid");
      expect(r.failures).toEqual([message]);
    }
  });
});
