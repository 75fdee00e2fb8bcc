/**
 * Previews of a proposal for the approver: Markdown and a GitHub issue (title and body). They show
 * only verified fields, each value in a code block exactly as drafted, and fixed labels — no prose
 * is generated, and every preview says nothing was executed and approval is required.
 * @module
 */
import type { ActionField, ActionProposal } from "./types.js";

/** The fixed notice every preview carries. */
export const NOT_EXECUTED_NOTICE =
  "Proposal only: nothing was executed. Approval is required before anyone acts on it.";

const LABELS: Readonly<Record<string, string>> = { incident: "Incident", pr_summary: "PR summary" };

// escape Markdown inline syntax so evidence text can neither format nor link
function inline(s: string): string {
  return s.replace(/\r?\n/g, " ").replace(/[\\`*_[\]<>#|~!()&]/g, (c) => `\\${c}`);
}

// a one-line code span: a backtick or a line break in the text would end it and let markup through
function codeSpan(s: string): string {
  return `\`${s.replace(/`/g, "'").replace(/\r?\n/g, " ")}\``;
}

// field names and roles of a draft are identifiers; any other name (a handed-in proposal's) is escaped
const label = (s: string): string => (/^[A-Za-z0-9_-]+$/.test(s) ? s : inline(s));

function codeBlock(value: string, lang: string): string {
  const longest = Math.max(0, ...[...value.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${value.replace(/\r\n/g, "\n")}\n${fence}`;
}

function fieldBlock(f: ActionField): string {
  const lang = f.role === "code_change" ? "diff" : "text";
  const heading = f.name === f.role ? `#### ${label(f.name)}` : `#### ${label(f.name)} (${label(f.role)})`;
  const evidence = `Evidence: ${f.support.map(codeSpan).join(", ")}`;
  return [heading, "", codeBlock(f.value, lang), "", evidence].join("\n");
}

function summaryTable(p: ActionProposal, shown: readonly ActionField[]): string {
  return [
    "| | |",
    "|---|---|",
    `| Action | \`${p.kind}\` |`,
    `| Question (as asked, not evidence) | ${inline(p.question)} |`,
    `| Route | \`${p.route.kind}\` |`,
    `| Fields verified | ${shown.length} of ${p.fields.length} |`,
    `| Requires approval | yes |`,
    `| Executed | no |`,
  ].join("\n");
}

function verifiedTitle(p: ActionProposal): string | null {
  const t = p.fields.find((f) => f.name === "title");
  return t?.verified ? t.value.replace(/\r?\n/g, " ") : null;
}

function body(p: ActionProposal): string {
  const notice = `> **${NOT_EXECUTED_NOTICE}**`;
  if (p.refused) {
    return [notice, "", summaryTable(p, []), "", `Refused: ${inline(p.refusal ?? "")}`, ""].join("\n");
  }
  const shown = p.fields.filter((f) => f.verified && f.name !== "title");
  const hidden = p.fields.filter((f) => !f.verified);
  const parts = [
    notice,
    "",
    summaryTable(
      p,
      p.fields.filter((f) => f.verified),
    ),
    "",
    "### Fields",
    "",
  ];
  for (const f of shown) parts.push(fieldBlock(f), "");
  if (hidden.length > 0)
    parts.push(`Not shown (did not verify): ${hidden.map((f) => codeSpan(f.name)).join(", ")}`, "");
  return parts.join("\n");
}

/** A Markdown preview: heading with the verified title, the notice, and every verified field. */
export function renderMarkdown(p: ActionProposal): string {
  const label = LABELS[p.kind] ?? p.kind;
  const title = verifiedTitle(p);
  const heading = p.refused
    ? `## ${label}: refused`
    : title === null
      ? `## ${label}: untitled`
      : `## ${label}: ${inline(title)}`;
  return `${heading}\n\n${body(p)}`;
}

/** A GitHub issue to file by hand after approval: the verified title (or null) and a Markdown body. */
export interface IssuePreview {
  readonly title: string | null;
  readonly body: string;
}

/** The GitHub issue preview of a proposal; a refused or untitled proposal has a null title. */
export function renderGithubIssue(p: ActionProposal): IssuePreview {
  const title = p.refused ? null : verifiedTitle(p);
  return { title, body: `<!-- tessera proposal: ${p.kind}, not executed -->\n${body(p)}` };
}
