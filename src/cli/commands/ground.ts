import { resolve } from "node:path";
import {
  ground as groundAnswer,
  routeQuestion,
  type SignatureCandidate,
  signatureCandidates,
} from "../../answers/index.js";
import { openWorkspace } from "../../evidence/index.js";
import { UsageError } from "../../platform/errors.js";
import { parse, required } from "../args.js";
import { jsonOut, styles, table } from "../../platform/format.js";
import { type Command, EXIT } from "../io.js";

const USAGE = `usage: tessera ground --workspace <dir> "<question>" [--json] [--explain]

answers a question about a CI run (root-cause analysis) or a change (summary) from the workspace's
evidence; every claim is checked against the records it cites. Name a run as \`run <id>\`, \`#<id>\`
or the bare id, a change as \`PR <n>\`, \`PR-<n>\`, \`pull request <n>\` or \`commit <sha>\`.
--explain also shows a failed run's ranked failure-signature candidates with the reasons of each score
(with --json: a \`signature_candidates\` list after the result's keys).
exit 0 when grounded (every claim verified), 1 when refused or a claim is not verified, 2 on usage errors`;

function firstLine(s: string): string {
  const lines = s.split("\n");
  return lines.length === 1 ? s : `${lines[0]} (+${lines.length - 1} lines)`;
}

/** The ranked signature candidates of the run a question names (none for another route). */
async function candidatesOf(dir: string, question: string): Promise<SignatureCandidate[]> {
  const target = routeQuestion(question);
  if (target.kind !== "rca") return [];
  const ws = await openWorkspace(dir, { refresh: false });
  try {
    return signatureCandidates(ws, target.run);
  } finally {
    ws.close();
  }
}

/** `tessera ground`: a grounded answer as a claims table, or the contract JSON with `--json`. */
export const ground: Command = {
  name: "ground",
  summary: "answer a question about a CI run or a change with verified, cited claims",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      { workspace: { type: "string" }, json: { type: "boolean" }, explain: { type: "boolean" } },
      true,
    );
    const dir = required(values.workspace, "workspace");
    const question = positionals.join(" ").trim();
    if (question === "")
      throw new UsageError('missing the question (e.g. `tessera ground --workspace ws "why did run 7003 fail?"`)');
    const result = await groundAnswer(resolve(io.cwd, dir), question);
    const candidates = values.explain ? await candidatesOf(resolve(io.cwd, dir), question) : undefined;
    if (values.json) {
      io.stdout.write(jsonOut(candidates === undefined ? result : { ...result, signature_candidates: candidates }));
    } else {
      const s = styles(io);
      io.stdout.write(`${s.bold("route")}: ${result.route.kind} — ${result.route.reason}\n`);
      if (result.refused) {
        io.stdout.write(`${s.yellow("refused")}: ${result.refusal}\n`);
      } else {
        const rows = result.claims.map((c, i) => [
          String(i + 1),
          c.role,
          c.verified ? s.green("verified") : s.red("NOT verified"),
          firstLine(c.text),
          c.support.map((r) => r.id).join(", "),
        ]);
        io.stdout.write(`\n${table(["#", "role", "check", "claim", "cites"], rows)}`);
        const n = result.claims.filter((c) => c.verified).length;
        io.stdout.write(
          `\n${result.grounded ? s.green("grounded") : s.red("not grounded")}: ${n} of ${result.claims.length} claims verified\n`,
        );
      }
      if (candidates !== undefined) {
        const rows = candidates.map((c, i) => [
          String(i + 1),
          String(c.score),
          c.rule,
          c.reasons.map((r) => `${r.reason} ${r.points >= 0 ? "+" : ""}${r.points}`).join(", "),
          firstLine(c.text),
          c.id,
        ]);
        io.stdout.write(
          `\n${s.bold("signature candidates")} (ranked):\n${table(["#", "score", "rule", "reasons", "line", "cites"], rows)}`,
        );
      }
    }
    return result.grounded ? EXIT.ok : EXIT.failed;
  },
};
