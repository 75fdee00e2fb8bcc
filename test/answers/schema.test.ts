// One definition per JSON contract: the GroundedResult and ActionProposal shapes that the library
// prints, the CLI and MCP readers take, and the MCP output schemas advertise share their keys.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { draftAction } from "../../src/actions/draft.js";
import { parseGroundedResult, parseProposal, proposalSchema } from "../../src/actions/schema.js";
import { ground } from "../../src/answers/ground.js";
import { groundedResultSchema, groundingKeys, routeSchema } from "../../src/answers/schema.js";
import { actionProposalOutput, groundedResultOutput } from "../../src/mcp/schemas.js";

const GROUNDING = Object.keys(groundingKeys(routeSchema));
const dir = mkdtempSync(join(tmpdir(), "tessera-schema-"));
cpSync(join(import.meta.dirname, "..", "..", "examples", "ci-workspace"), join(dir, "ws"), { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the grounding contracts", () => {
  it("give the reader schemas and the MCP output schemas the same keys in the same order", () => {
    // the MCP `ground` tool adds the ranked candidates after the result's keys, with `explain: true` only (adr/0104)
    expect(Object.keys(groundedResultOutput.shape)).toStrictEqual([
      ...Object.keys(groundedResultSchema.shape),
      "signature_candidates",
    ]);
    expect(Object.keys(actionProposalOutput.shape)).toStrictEqual(Object.keys(proposalSchema.shape));
  });

  it("put the shared grounding keys in both shapes, in contract order", () => {
    expect(GROUNDING).toStrictEqual(["domain", "question", "route", "grounded", "refused", "refusal"]);
    expect(Object.keys(groundedResultSchema.shape).slice(0, 6)).toStrictEqual(GROUNDING);
    expect(Object.keys(proposalSchema.shape).slice(1, 7)).toStrictEqual(GROUNDING);
  });

  it("read back what the library prints, with the keys in the schema's order", async () => {
    const result = await ground(join(dir, "ws"), "why did run 7003 fail?");
    expect(result.claims.length).toBeGreaterThan(0);
    const json = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
    expect(Object.keys(json)).toStrictEqual(Object.keys(groundedResultSchema.shape));
    expect(parseGroundedResult(json)).toStrictEqual(json);
    const proposal = JSON.parse(JSON.stringify(draftAction("incident", result))) as Record<string, unknown>;
    expect(Object.keys(proposal)).toStrictEqual(Object.keys(proposalSchema.shape));
    expect(parseProposal(proposal)).toStrictEqual(proposal);
  });

  it("refuse a result whose grounding keys are off, with the path", () => {
    expect(() =>
      parseGroundedResult({
        domain: "ci",
        question: "q",
        route: { kind: "elsewhere", reason: "r" },
        grounded: false,
        refused: true,
        refusal: "x",
        claims: [],
        all_verified: false,
      }),
    ).toThrow(/^route\.kind: /);
  });
});
