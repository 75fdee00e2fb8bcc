import { resolve } from "node:path";
import {
  type ActionProposal,
  actionSpec,
  draftAction,
  parseGroundedResult,
  renderGithubIssue,
  renderMarkdown,
} from "../../actions/index.js";
import { parseErrorLine, parseJson } from "../../platform/json.js";
import type { GroundedResult } from "../../answers/types.js";
import type { EvidenceRecord } from "../../core/index.js";
import { TesseraError, UsageError } from "../../platform/errors.js";
import { parse } from "../args.js";
import { jsonOut, printable as printableText, type Styles, styles, table } from "../../platform/format.js";
import { readInputText } from "../input.js";
import { type Command, EXIT, type Io } from "../io.js";

/** Read and parse a JSON file (`-` is stdin); bad JSON or a duplicate key is an `input_invalid` error naming the file. */
export async function readJson(file: string, io: Io): Promise<unknown> {
  let text: string;
  try {
    text = await readInputText(file, io);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : "cannot read it";
    throw new TesseraError("input_invalid", `\`${file}\`: ${why}`);
  }
  try {
    return parseJson(text);
  } catch (err) {
    if (err instanceof TesseraError) throw new TesseraError("input_invalid", `\`${file}\`: ${err.message}`);
    throw new TesseraError("input_invalid", `\`${file}\`: invalid json: ${parseErrorLine(err)}`);
  }
}

/** Run a validation of a file's content; its errors name the file before the JSON path. */
export function inFile<T>(file: string, validate: () => T): T {
  try {
    return validate();
  } catch (err) {
    if (err instanceof TesseraError) throw new TesseraError(err.code, `\`${file}\`: ${err.message}`);
    throw err;
  }
}

/** An opened workspace as the action commands use it: ground a question, look a record up, close. */
export interface WorkspaceAccess {
  ground(question: string): GroundedResult;
  getRecord(id: string): EvidenceRecord | undefined;
  close(): void;
}

/** Open (ingesting or refreshing) the workspace in `dir` through the evidence and answer layers. */
export async function openWorkspaceAccess(dir: string, io: Io): Promise<WorkspaceAccess> {
  const [{ openWorkspace }, { groundQuestion }] = await Promise.all([
    import("../../evidence/index.js"),
    import("../../answers/index.js"),
  ]);
  const ws = await openWorkspace(resolve(io.cwd, dir));
  return { ground: (q) => groundQuestion(ws, q), getRecord: (id) => ws.getRecord(id), close: () => ws.close() };
}

/** `printable` keeping line feeds and tabs: text from a handed-in file must not drive the approver's terminal. */
export const printable = (s: string): string => printableText(s, true);

/** One printable line of at most `n` characters: line breaks shown as ⏎, the rest cut with …. */
export const clip = (s: string, n = 72): string => {
  const one = printable(s.replace(/\s*\r?\n\s*/g, " ⏎ "));
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
};

/** The human rendering of a proposal: a header, one row per field, a closing verdict line. */
export function renderProposalTable(p: ActionProposal, s: Styles): string {
  const head = `${s.bold(p.kind)} · ${printable(p.question)} · route ${p.route.kind}\n${s.dim("proposal only: requires approval, nothing was executed")}\n\n`;
  if (p.refused) return `${head}${s.red("refused")}: ${printable(p.refusal ?? "")}\n`;
  const rows = p.fields.map((f) => [
    printable(f.name),
    f.role,
    f.verified ? s.green("yes") : s.red("NO"),
    clip(f.value),
    printable(f.support.join(", ")),
  ]);
  const ok = p.fields.filter((f) => f.verified).length;
  const verdict = p.all_grounded
    ? s.green(`all grounded: ${ok} of ${p.fields.length} fields verified`)
    : s.red(`not grounded: ${ok} of ${p.fields.length} fields verified`);
  return `${head}${table(["field", "role", "verified", "value", "evidence"].map(s.bold), rows)}\n${verdict}\n`;
}

/** `tessera draft <kind> --workspace <dir> "<question>"`: draft a proposal from a grounding. */
export const draft: Command = {
  name: "draft",
  summary: "draft an incident or PR-summary proposal whose every field is verified evidence",
  usage:
    'usage: tessera draft <incident|pr_summary> --workspace <dir> "<question>" [--json | --markdown | --issue]\n' +
    "       tessera draft <incident|pr_summary> --grounding <file|-> [--json | --markdown | --issue]\n\n" +
    "grounds the question over the workspace (or reads a saved `tessera ground --json` result) and drafts\n" +
    "the action from it; nothing is executed. --markdown prints the Markdown preview, --issue a GitHub\n" +
    "issue title and body. exit 0 when every field is verified, 1 when the draft is refused or a field\n" +
    "is not verified, 2 on bad usage",
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      {
        workspace: { type: "string" },
        grounding: { type: "string" },
        json: { type: "boolean" },
        markdown: { type: "boolean" },
        issue: { type: "boolean" },
      },
      true,
    );
    const [kind, ...rest] = positionals;
    if (kind === undefined) throw new UsageError("missing the action kind (`incident` or `pr_summary`)");
    actionSpec(kind); // an unknown kind fails before any workspace is opened or ingested
    if ([values.json, values.markdown, values.issue].filter(Boolean).length > 1)
      throw new UsageError("choose one of `--json`, `--markdown` and `--issue`");
    let grounding: GroundedResult;
    if (values.grounding !== undefined) {
      if (values.workspace !== undefined) throw new UsageError("give `--workspace` or `--grounding`, not both");
      if (rest.length > 0)
        throw new UsageError("with `--grounding` the question comes from the saved result; drop the question argument");
      const input = await readJson(values.grounding, io);
      grounding = inFile(values.grounding, () => parseGroundedResult(input));
    } else {
      if (values.workspace === undefined)
        throw new UsageError("missing required option `--workspace` (or `--grounding`)");
      if (rest.length !== 1 || rest[0]!.trim() === "")
        throw new UsageError('expected one question, e.g. "why did run 1042 fail?"');
      const ws = await openWorkspaceAccess(values.workspace, io);
      try {
        grounding = ws.ground(rest[0]!);
      } finally {
        ws.close();
      }
    }
    const proposal = draftAction(kind, grounding);
    if (values.json) io.stdout.write(jsonOut(proposal));
    else if (values.markdown) io.stdout.write(renderMarkdown(proposal));
    else if (values.issue) {
      const issue = renderGithubIssue(proposal);
      io.stdout.write(`${issue.title ?? "(no verified title)"}\n\n${issue.body}`);
    } else io.stdout.write(renderProposalTable(proposal, styles(io)));
    return proposal.all_grounded ? EXIT.ok : EXIT.failed;
  },
};
