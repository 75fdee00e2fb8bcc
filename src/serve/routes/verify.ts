/**
 * `POST /v1/verify`: `{claims}` checks claims against the evidence they carry; `{proposal,
 * allow_partial?}` re-verifies a proposal against the service's workspace as it is now. Answers
 * exactly what `tessera verify --json` prints, from the same library calls (src/actions/).
 * @module
 */
import { parseClaims, parseProposal, type ProposalCheck, verifyClaims, verifyProposal } from "../../actions/index.js";
import { TesseraError } from "../../platform/errors.js";
import { jsonOut } from "../../platform/format.js";
import { HttpError } from "../errors.js";
import { objectWith } from "../shape.js";
import type { Reply, ServeParts } from "../types.js";

/** A library error about a value under `root`, as a refusal naming its path there. */
export function refusedUnder(root: string, err: TesseraError): HttpError {
  const path = err.path ?? "(root)";
  const message = err.path !== undefined ? err.message.slice(err.path.length + 2) : err.message;
  const where = path === "(root)" ? root : path.startsWith("[") ? `${root}${path}` : `${root}.${path}`;
  return new HttpError("body_invalid", `${where}: ${message}`);
}

function parsed<T>(root: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof TesseraError) throw refusedUnder(root, err);
    throw err;
  }
}

/** Verify one `/v1/verify` request. */
export async function verifyRoute(parts: ServeParts, body: unknown): Promise<Reply> {
  const b = objectWith(body, ["claims", "proposal", "allow_partial"], '{"claims": [...]} or {"proposal": {...}}');
  if ((b.claims === undefined) === (b.proposal === undefined))
    throw new HttpError("body_invalid", "(body): give exactly one of `claims` and `proposal`");
  if (b.claims !== undefined) {
    if (b.allow_partial !== undefined) throw new HttpError("body_invalid", "allow_partial: applies to `proposal` only");
    const claims = parsed("claims", () => parseClaims(b.claims));
    return { status: 200, body: jsonOut(verifyClaims(claims)) };
  }
  if (b.allow_partial !== undefined && typeof b.allow_partial !== "boolean")
    throw new HttpError("body_invalid", "allow_partial: expected a boolean");
  const proposal = parsed("proposal", () => parseProposal(b.proposal));
  if (parts.workspace === null)
    throw new HttpError(
      "workspace_missing",
      "proposal: this service has no workspace to verify against (start it with `--workspace <dir>`)",
    );
  const ws = await parts.workspace();
  let check: ProposalCheck;
  try {
    check = verifyProposal(proposal, (id) => ws.getRecord(id), {
      grounding: ws.ground(proposal.question),
      allowPartial: b.allow_partial === true,
    });
  } finally {
    ws.close();
  }
  return { status: 200, body: jsonOut(check) };
}
