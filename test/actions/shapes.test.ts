// The JSON contracts pinned as text, so a change to a shape is a visible diff: the proposal of
// specs/json-shapes.md and the approver's check (adr/0022).
import { describe, expect, it } from "vitest";
import { draftAction, verifyProposal } from "../../src/actions/index.js";
import { claim, lookup, records, result } from "./fixtures.js";

const grounding = result("summary", "summarize PR 51", [
  claim("pull_request", "PR 51: Fix cache key typing", [records.pr]),
  claim("ticket", "INC-7 Cache build breaks", [records.ticket]),
]);

describe("pinned shapes", () => {
  it("ActionProposal", () => {
    expect(JSON.stringify(draftAction("pr_summary", grounding), null, 1)).toMatchInlineSnapshot(`
      "{
       "kind": "pr_summary",
       "domain": "ci",
       "question": "summarize PR 51",
       "route": {
        "kind": "summary",
        "reason": "names PR 51"
       },
       "grounded": true,
       "refused": false,
       "refusal": null,
       "fields": [
        {
         "name": "title",
         "role": "pull_request",
         "value": "Fix cache key typing",
         "verified": true,
         "support": [
          "pr:51"
         ]
        },
        {
         "name": "pull_request",
         "role": "pull_request",
         "value": "PR 51: Fix cache key typing",
         "verified": true,
         "support": [
          "pr:51"
         ]
        },
        {
         "name": "ticket",
         "role": "ticket",
         "value": "INC-7 Cache build breaks",
         "verified": true,
         "support": [
          "ticket:INC-7"
         ]
        }
       ],
       "all_grounded": true,
       "requires_approval": true,
       "executed": false
      }"
    `);
  });

  it("ProposalCheck", () => {
    const p = draftAction("pr_summary", grounding);
    const edited = {
      ...p,
      fields: p.fields.map((f) => (f.name === "ticket" ? { ...f, value: "INC-7 Cache build breaks again" } : f)),
    };
    expect(JSON.stringify(verifyProposal(edited, lookup(), { grounding }), null, 1)).toMatchInlineSnapshot(`
      "{
       "kind": "pr_summary",
       "question": "summarize PR 51",
       "all_verified": false,
       "compared_with_workspace": true,
       "allow_partial": false,
       "parts": [
        {
         "name": "domain",
         "verified": true,
         "problems": []
        },
        {
         "name": "route.kind",
         "verified": true,
         "problems": []
        },
        {
         "name": "route.reason",
         "verified": true,
         "problems": []
        },
        {
         "name": "grounded",
         "verified": true,
         "problems": []
        },
        {
         "name": "refused",
         "verified": true,
         "problems": []
        },
        {
         "name": "refusal",
         "verified": true,
         "problems": []
        },
        {
         "name": "all_grounded",
         "verified": true,
         "problems": []
        },
        {
         "name": "requires_approval",
         "verified": true,
         "problems": []
        },
        {
         "name": "executed",
         "verified": true,
         "problems": []
        }
       ],
       "fields": [
        {
         "name": "title",
         "role": "pull_request",
         "verified": true,
         "support": [
          "pr:51"
         ],
         "problems": []
        },
        {
         "name": "pull_request",
         "role": "pull_request",
         "verified": true,
         "support": [
          "pr:51"
         ],
         "problems": []
        },
        {
         "name": "ticket",
         "role": "ticket",
         "verified": false,
         "support": [
          "ticket:INC-7"
         ],
         "problems": [
          {
           "code": "claim_unsupported",
           "message": "the value is not contained in any single cited record"
          },
          {
           "code": "differs_from_workspace",
           "message": "the workspace grounds a different value"
          }
         ]
        }
       ],
       "failing": [
        "ticket"
       ],
       "omitted": []
      }"
    `);
  });
});
