import {
  type ClaimsCheck,
  parseClaims,
  parseProposal,
  type ProposalCheck,
  verifyClaims,
  verifyProposal,
} from "../../actions/index.js";
import { UsageError } from "../../platform/errors.js";
import { parse } from "../args.js";
import { jsonOut, type Styles, styles, table } from "../../platform/format.js";
import { type Command, EXIT } from "../io.js";
import { clip, inFile, openWorkspaceAccess, printable, readJson } from "./draft.js";

/** The human rendering of a proposal check: one row per field, and per part that failed, with its problems. */
export function renderProposalCheck(c: ProposalCheck, s: Styles): string {
  const head = `${s.bold(c.kind)} · ${printable(c.question)}\n\n`;
  const rowsOf = (name: string, verified: boolean, problems: ProposalCheck["fields"][number]["problems"]) => {
    const mark = verified ? s.green("yes") : s.red("NO");
    if (problems.length === 0) return [[printable(name), mark, ""]];
    // messages quote the proposal's own ids and values
    return problems.map((p, i) => [
      i === 0 ? printable(name) : "",
      i === 0 ? mark : "",
      printable(`${p.code}: ${p.message}`),
    ]);
  };
  const rows = [
    ...c.parts.filter((p) => !p.verified).flatMap((p) => rowsOf(p.name, p.verified, p.problems)),
    ...c.fields.flatMap((f) => rowsOf(f.name, f.verified, f.problems)),
  ];
  const body =
    rows.length === 0
      ? "the proposal has no fields to verify\n"
      : table(["field", "verified", "problem"].map(s.bold), rows);
  const omitted = printable(c.omitted.join(", "));
  const note =
    c.omitted.length === 0
      ? ""
      : c.allow_partial
        ? s.dim(`the workspace draft also has: ${omitted} (left out, allowed by --allow-partial)\n`)
        : s.red(`missing from the proposal: ${omitted} (the workspace draft has them; --allow-partial accepts that)\n`);
  const failedFields = c.fields.filter((f) => !f.verified).map((f) => f.name);
  const failedParts = c.parts.filter((p) => !p.verified).map((p) => p.name);
  const ok = c.fields.length - failedFields.length;
  const why = [
    ...(failedParts.length > 0
      ? [
          `${printable(failedParts.join(", "))} ${failedParts.length === 1 ? "differs" : "differ"} from the workspace draft`,
        ]
      : []),
    ...(failedFields.length > 0
      ? [`${failedFields.length} of ${c.fields.length} fields failed: ${printable(failedFields.join(", "))}`]
      : []),
    ...(c.omitted.length > 0 && !c.allow_partial
      ? [`${c.omitted.length} field${c.omitted.length === 1 ? "" : "s"} missing: ${omitted}`]
      : []),
    ...(c.fields.length === 0 ? ["no fields"] : []),
    ...(!c.compared_with_workspace ? ["not compared with the workspace"] : []),
  ];
  const verdict = c.all_verified
    ? s.green(`verified: ${ok} of ${c.fields.length} fields, against the workspace as it is now`)
    : s.red(`not verified: ${why.join("; ")}`);
  return `${head}${body}${note}\n${verdict}\n`;
}

/** The human rendering of a claims check. */
export function renderClaimsCheck(c: ClaimsCheck, s: Styles): string {
  const rows = c.claims.map((x, i) => [
    String(i),
    x.supported ? s.green("yes") : s.red("NO"),
    x.shape,
    x.reason,
    printable(x.record ?? ""),
    clip(x.text, 60),
  ]);
  const n = c.claims.filter((x) => x.supported).length;
  const verdict = c.all_supported
    ? s.green(`all supported: ${n} of ${c.claims.length} claims`)
    : s.red(`not supported: ${n} of ${c.claims.length} claims supported`);
  return `${table(["#", "supported", "shape", "reason", "record", "claim"].map(s.bold), rows)}\n${verdict}\n`;
}

/** `tessera verify`: re-verify a proposal against a workspace, or check claims against their evidence. */
export const verify: Command = {
  name: "verify",
  summary: "re-verify every field of a proposal against a workspace, or check claims against their evidence",
  usage:
    "usage: tessera verify --proposal <file|-> --workspace <dir> [--allow-partial] [--json]\n" +
    "       tessera verify --claims <file|-> [--json]\n\n" +
    "--proposal: every field is re-checked against the workspace's current records of its evidence ids\n" +
    "(each must exist, the value must be in one single cited record), and every field and part (domain,\n" +
    "route, grounded, refusal, all_grounded, …) against a fresh draft of the same question; a field the\n" +
    "fresh draft has and the proposal lacks fails, unless --allow-partial. --claims: [{text, support:\n" +
    "[EvidenceRecord]}] checked with isSupported; a `tessera ground --json` result is taken as it is.\n" +
    "exit 0 when every field (claim) verifies, 1 when one does not, 2 on bad usage or input",
  async run(args, io) {
    const { values, positionals } = parse(args, {
      proposal: { type: "string" },
      claims: { type: "string" },
      workspace: { type: "string" },
      "allow-partial": { type: "boolean" },
      json: { type: "boolean" },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\``);
    const s = styles(io);
    if (values.claims !== undefined) {
      if (values.proposal !== undefined) throw new UsageError("give `--proposal` or `--claims`, not both");
      if (values.workspace !== undefined)
        throw new UsageError("`--claims` carries its own evidence; drop `--workspace`");
      if (values["allow-partial"] !== undefined) throw new UsageError("`--allow-partial` is for `--proposal`");
      const claimsInput = await readJson(values.claims, io);
      const check = verifyClaims(inFile(values.claims, () => parseClaims(claimsInput)));
      io.stdout.write(values.json ? jsonOut(check) : renderClaimsCheck(check, s));
      return check.all_supported ? EXIT.ok : EXIT.failed;
    }
    if (values.proposal === undefined) throw new UsageError("missing `--proposal <file>` (or `--claims <file>`)");
    if (values.workspace === undefined) throw new UsageError("missing required option `--workspace`");
    const proposalInput = await readJson(values.proposal, io);
    const proposal = inFile(values.proposal, () => parseProposal(proposalInput));
    const ws = await openWorkspaceAccess(values.workspace, io);
    let check: ProposalCheck;
    try {
      check = verifyProposal(proposal, (id) => ws.getRecord(id), {
        grounding: ws.ground(proposal.question),
        allowPartial: values["allow-partial"] === true,
      });
    } finally {
      ws.close();
    }
    io.stdout.write(values.json ? jsonOut(check) : renderProposalCheck(check, s));
    return check.all_verified ? EXIT.ok : EXIT.failed;
  },
};
