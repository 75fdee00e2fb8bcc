// Every tool over stdio: structuredContent is byte-identical (canonical JSON) to the library's result
// and to the CLI's `--json` output for the same input — the contract survives the protocol boundary.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/index.js";
import { removeCaseFiles, SERVER_ARGS, TOOL_CASES } from "./cases.js";
import { call, cli, type Session, stdioSession } from "./helpers.js";

let s: Session;

beforeAll(async () => {
  s = await stdioSession(SERVER_ARGS);
});

afterAll(async () => {
  await s?.close();
  removeCaseFiles();
});

describe("each tool over stdio = library = CLI --json", () => {
  for (const c of TOOL_CASES) {
    it(c.label, async () => {
      const r = await call(s.client, c.tool, c.args);
      expect(r.isError).toBeFalsy();
      const wire = canonicalJson(r.structuredContent);
      expect(wire).toBe(canonicalJson(await c.library()));
      const out = cli(c.cli);
      expect(out.stderr).not.toMatch(/internal error|unknown command/);
      expect(wire).toBe(canonicalJson(JSON.parse(out.stdout)));
      expect(r.content[0]?.type).toBe("text");
    });
  }

  it("ground with explain: true ranks the signature first, each score the sum of its reasons; without it, no candidates", async () => {
    const question = "why did run 7001 fail?";
    const plain = (await call(s.client, "ground", { question })).structuredContent as Record<string, unknown>;
    expect(plain).not.toHaveProperty("signature_candidates");
    const r = await call(s.client, "ground", { question, explain: true });
    const out = r.structuredContent as {
      claims: { role: string; text: string; support: { id: string }[] }[];
      signature_candidates: { id: string; text: string; score: number; reasons: { points: number }[] }[];
    };
    const sig = out.claims.find((c) => c.role === "failure_signature");
    const [top, ...rest] = out.signature_candidates;
    expect(top).toBeDefined();
    expect({ text: top?.text, id: top?.id }).toStrictEqual({ text: sig?.text, id: sig?.support[0]?.id });
    for (const c of out.signature_candidates) expect(c.score).toBe(c.reasons.reduce((a, x) => a + x.points, 0));
    for (const c of rest) expect(c.score).toBeLessThanOrEqual(top?.score ?? 0);
    const text = r.content[0]?.type === "text" ? r.content[0].text : "";
    expect(text).toContain(`signature candidates (ranked): ${out.signature_candidates.length}`);
  });

  it("covers verdicts of every kind, so the comparisons are not vacuous", async () => {
    const of = async (tool: string, key: string) =>
      new Set(
        await Promise.all(
          TOOL_CASES.filter((c) => c.tool === tool)
            .map(async (c) => (await c.library()) as Record<string, unknown>)
            .map(async (r) => (await r)[key]),
        ),
      );
    expect(await of("grade_answer", "state")).toStrictEqual(new Set(["supported", "unsupported", "unavailable"]));
    expect(await of("check_tool_call", "decision")).toStrictEqual(new Set(["allow", "block", "hold"]));
    expect(await of("ground", "refused")).toStrictEqual(new Set([true, false]));
    expect(await of("ground", "all_verified")).toStrictEqual(new Set([true, false]));
    expect(await of("draft_action", "all_grounded")).toStrictEqual(new Set([true, false]));
    expect(await of("draft_action", "kind")).toStrictEqual(new Set(["incident", "pr_summary"]));
  });
});
