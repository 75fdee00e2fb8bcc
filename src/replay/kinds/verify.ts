/**
 * Case kind `verify`: either `claims` (a list of `{text, support}` with their records, inline or a
 * JSON file) checked with `verifyClaims`, or a `proposal` (inline or a JSON file) re-verified with
 * `verifyProposal` against `workspace` (its records and a fresh grounding of the proposal's question)
 * or against `records` (a list of evidence records) and an optional saved `grounding`, with
 * `allow_partial: true` as `--allow-partial`. `want` is matched against the check.
 * @module
 */
import { resolve } from "node:path";
import {
  parseClaims,
  parseEvidenceRecords,
  parseGroundedResult,
  parseProposal,
  verifyClaims,
  verifyProposal,
} from "../../actions/index.js";
import { TesseraError } from "../../platform/errors.js";
import type { CaseKindRunner, CaseOutcome } from "../types.js";
import { compareWant } from "../want.js";
import { openWorkspaceForCase, readValue, under } from "./draft.js";

const KEYS = new Set([
  "note",
  "kind",
  "want",
  "claims",
  "proposal",
  "workspace",
  "records",
  "grounding",
  "allow_partial",
]);

function outcome(want: unknown, got: unknown): CaseOutcome {
  const failures = compareWant(want, got);
  return { passed: failures.length === 0, failures, got };
}

/** The `verify` case kind. */
export const verifyKind: CaseKindRunner = {
  kind: "verify",
  async run(doc, ctx): Promise<CaseOutcome> {
    for (const k of Object.keys(doc))
      if (!KEYS.has(k)) throw new TesseraError("case_invalid", `unknown key \`${k}\` in a verify case`, k);
    if ((doc.claims === undefined) === (doc.proposal === undefined)) {
      throw new TesseraError("case_invalid", "give exactly one of `claims` and `proposal`", "claims");
    }
    if (doc.claims !== undefined) {
      if (doc.workspace !== undefined || doc.records !== undefined || doc.grounding !== undefined) {
        throw new TesseraError(
          "case_invalid",
          "`claims` carry their own evidence; drop `workspace`, `records` and `grounding`",
          "claims",
        );
      }
      if (doc.allow_partial !== undefined)
        throw new TesseraError("case_invalid", "`allow_partial` is for a `proposal`", "allow_partial");
      const raw = readValue(doc.claims, ctx.dir, "claims");
      return outcome(doc.want, verifyClaims(under("claims", () => parseClaims(raw))));
    }
    if (doc.allow_partial !== undefined && typeof doc.allow_partial !== "boolean")
      throw new TesseraError("case_invalid", "expected `true` or `false`", "allow_partial");
    const allowPartial = doc.allow_partial === true;
    const rawProposal = readValue(doc.proposal, ctx.dir, "proposal");
    const proposal = under("proposal", () => parseProposal(rawProposal));
    if (doc.workspace !== undefined) {
      if (doc.records !== undefined || doc.grounding !== undefined) {
        throw new TesseraError(
          "case_invalid",
          "give `workspace`, or `records` with an optional `grounding`, not both",
          "workspace",
        );
      }
      if (typeof doc.workspace !== "string")
        throw new TesseraError("case_invalid", "expected a workspace folder", "workspace");
      const ws = await openWorkspaceForCase(resolve(ctx.dir, doc.workspace));
      try {
        return outcome(
          doc.want,
          verifyProposal(proposal, (id) => ws.getRecord(id), { grounding: ws.ground(proposal.question), allowPartial }),
        );
      } finally {
        ws.close();
      }
    }
    if (doc.records === undefined)
      throw new TesseraError(
        "case_invalid",
        "expected `workspace`, or evidence `records` (a list or a JSON file)",
        "records",
      );
    const rawRecords = readValue(doc.records, ctx.dir, "records");
    const records = under("records", () => parseEvidenceRecords(rawRecords));
    const byId = new Map<string, (typeof records)[number]>();
    records.forEach((r, i) => {
      // two records with one id would make the lookup silently pick the last
      if (byId.has(r.id)) throw new TesseraError("case_invalid", `duplicate record id \`${r.id}\``, `records[${i}].id`);
      byId.set(r.id, r);
    });
    const grounding =
      doc.grounding === undefined
        ? undefined
        : under("grounding", () => parseGroundedResult(readValue(doc.grounding, ctx.dir, "grounding")));
    return outcome(
      doc.want,
      verifyProposal(
        proposal,
        (id) => byId.get(id),
        grounding === undefined ? { allowPartial } : { grounding, allowPartial },
      ),
    );
  },
};
