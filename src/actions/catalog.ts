/**
 * The action catalog: which kinds exist, which grounded routes and domains each serves and which
 * claim roles become its fields. Adding a kind is a decision (adr/0020-propose-and-approve-actions.md).
 * @module
 */
import { TesseraError } from "../platform/errors.js";
import type { ActionKind, ActionSpec } from "./types.js";

/** The grounding domain of the workspace answer paths (CI runs, logs, changes, tickets). */
export const CI_DOMAIN = "ci";

const CATALOG: readonly ActionSpec[] = [
  {
    kind: "incident",
    description:
      "an incident report for a failed CI run: its title is the failure signature line lifted verbatim from the log, " +
      "its fields the root-cause claims (run, log lines, signature, up to two ranked alternative signature lines, prior occurrences, documented incident, resolving change)",
    routes: ["rca"],
    domains: [CI_DOMAIN],
    title_from: "failure_signature",
    roles: [
      "run",
      "log",
      "failure_signature",
      "alternative_signature",
      "prior_occurrence",
      "documented_incident",
      "resolving_change",
    ],
  },
  {
    kind: "pr_summary",
    description:
      "a summary of a pull request: its title is the PR's own title lifted verbatim from the PR record, " +
      "its fields the change claims (the PR, each diff hunk, the motivating ticket)",
    routes: ["summary"],
    domains: [CI_DOMAIN],
    title_from: "pull_request",
    roles: ["pull_request", "code_change", "motivating_ticket", "ticket"],
  },
];

/** Every action kind, in catalog order (a fresh copy each call). */
export function listActions(): ActionSpec[] {
  return CATALOG.map((s) => ({ ...s, routes: [...s.routes], domains: [...s.domains], roles: [...s.roles] }));
}

/** The kinds of the catalog, in order. */
export const ACTION_KINDS: readonly ActionKind[] = CATALOG.map((s) => s.kind);

/** Whether `kind` names a catalog entry. */
export function isActionKind(kind: unknown): kind is ActionKind {
  return typeof kind === "string" && ACTION_KINDS.includes(kind as ActionKind);
}

/** The catalog entry of `kind`; an unknown kind is a `TesseraError` with code `unknown_action`. */
export function actionSpec(kind: string): ActionSpec {
  const spec = CATALOG.find((s) => s.kind === kind);
  if (spec === undefined) {
    throw new TesseraError(
      "unknown_action",
      `unknown action \`${kind}\` (known: ${ACTION_KINDS.map((k) => `\`${k}\``).join(", ")})`,
    );
  }
  return spec;
}
