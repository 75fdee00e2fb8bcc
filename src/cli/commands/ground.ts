import { resolve } from "node:path";
import { ground as groundAnswer } from "../../answers/index.js";
import { UsageError } from "../../platform/errors.js";
import { parse, required } from "../args.js";
import { jsonOut, styles, table } from "../../platform/format.js";
import { type Command, EXIT } from "../io.js";

const USAGE = `usage: tessera ground --workspace <dir> "<question>" [--json]

answers a question about a CI run (root-cause analysis) or a change (summary) from the workspace's
evidence; every claim is checked against the records it cites. Name a run as \`run <id>\`, \`#<id>\`
or the bare id, a change as \`PR <n>\`, \`PR-<n>\`, \`pull request <n>\` or \`commit <sha>\`.
exit 0 when grounded (every claim verified), 1 when refused or a claim is not verified, 2 on usage errors`;

function firstLine(s: string): string {
  const lines = s.split("\n");
  return lines.length === 1 ? s : `${lines[0]} (+${lines.length - 1} lines)`;
}

/** `tessera ground`: a grounded answer as a claims table, or the contract JSON with `--json`. */
export const ground: Command = {
  name: "ground",
  summary: "answer a question about a CI run or a change with verified, cited claims",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parse(args, { workspace: { type: "string" }, json: { type: "boolean" } }, true);
    const dir = required(values.workspace, "workspace");
    const question = positionals.join(" ").trim();
    if (question === "")
      throw new UsageError('missing the question (e.g. `tessera ground --workspace ws "why did run 7003 fail?"`)');
    const result = await groundAnswer(resolve(io.cwd, dir), question);
    if (values.json) {
      io.stdout.write(jsonOut(result));
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
    }
    return result.grounded ? EXIT.ok : EXIT.failed;
  },
};
