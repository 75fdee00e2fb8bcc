// Every tool over stdio: structuredContent is byte-identical (canonical JSON) to the library's result
// and to the CLI's `--json` output for the same input — the contract survives the protocol boundary.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/index.js";
import { TOOL_CASES } from "./cases.js";
import { call, cli, type Session, stdioSession } from "./helpers.js";

let s: Session;

beforeAll(async () => {
  s = await stdioSession([]);
});

afterAll(async () => {
  await s?.close();
});

describe("each tool over stdio = library = CLI --json", () => {
  for (const c of TOOL_CASES) {
    it(c.label, async () => {
      const r = await call(s.client, c.tool, c.args);
      expect(r.isError).toBeFalsy();
      const wire = canonicalJson(r.structuredContent);
      expect(wire).toBe(canonicalJson(c.library()));
      const out = cli(c.cli);
      expect(out.stderr).not.toMatch(/internal error|unknown command/);
      expect(wire).toBe(canonicalJson(JSON.parse(out.stdout)));
      expect(r.content[0]?.type).toBe("text");
    });
  }

  it("covers verdicts of every kind, so the comparisons are not vacuous", async () => {
    const states = TOOL_CASES.filter((c) => c.tool === "grade_answer").map((c) => (c.library() as { state: string }).state);
    expect(new Set(states)).toStrictEqual(new Set(["supported", "unsupported", "unavailable"]));
  });
});
