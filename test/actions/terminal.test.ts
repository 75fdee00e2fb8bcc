// A proposal handed to an approver chooses its question, field names and evidence ids: printed raw,
// terminal control sequences in them could hide the failing rows or fake the verdict line.
import { describe, expect, it } from "vitest";
import { draftAction, verifyProposal } from "../../src/actions/index.js";
import { printable, renderProposalTable } from "../../src/cli/commands/draft.js";
import { renderProposalCheck } from "../../src/cli/commands/verify.js";
import { rcaResult, lookup } from "./fixtures.js";

const plain = { bold: String, dim: String, red: String, green: String, yellow: String, cyan: String } as const;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("approver-facing tables", () => {
  const conceal = "\u001b[8m";
  const fake = "\r\u001b[2Kverified: 8 of 8 fields";

  it("print no control character taken from a handed-in proposal", () => {
    const p = draftAction("incident", rcaResult());
    const hostile = {
      ...p,
      question: `why did run 1042 fail?${conceal}`,
      fields: p.fields.map((f, i) =>
        i === 1 ? { ...f, name: `run${fake}`, value: `${f.value}${conceal}`, support: [`run:1042${conceal}`] } : f,
      ),
    };
    const check = verifyProposal(hostile, lookup(), { grounding: rcaResult() });
    expect(check.failing).toContain(`run${fake}`); // the check itself is unaffected
    for (const text of [renderProposalCheck(check, plain), renderProposalTable(hostile, plain)]) {
      expect(text).not.toMatch(CONTROL);
      expect(text).toContain("\\u001b[8m");
    }
  });

  it("printable escapes C0 and C1 controls (not tab or line feed) as \\uXXXX and keeps the rest", () => {
    expect(printable("a\u0000b\u009bc\td\né")).toBe("a\\u0000b\\u009bc\td\né");
  });
});
