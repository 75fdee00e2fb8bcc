/**
 * Parsers for the workspace formats of specs/workspace.md that are read whole: `gh run view --json` run
 * files, `gh pr view --json` files, unified diffs (`gh pr diff`, `git show`), tickets and the commit
 * files `tessera ingest git` writes. Each returns records (and the facts the answer paths query) or
 * throws `FileProblem`.
 * @module
 */
import type { EvidenceRecord } from "../core/index.js";
import {
  commitId,
  commitLocator,
  hunkId,
  hunkLocator,
  prId,
  prLocator,
  record,
  runId,
  runLocator,
  ticketId,
  ticketLocator,
} from "./records.js";
import { FileProblem } from "./text.js";

/** Run metadata the answer paths query. */
export interface RunInfo {
  readonly id: string;
  readonly title: string;
  readonly workflow: string;
  readonly conclusion: string;
  readonly status: string;
  readonly branch: string;
  readonly sha: string;
  readonly event: string;
  readonly createdAt: string;
  readonly url: string;
}

/** Conclusions that count as a failed run. */
export const FAILED_CONCLUSIONS: readonly string[] = ["failure", "timed_out", "startup_failure"];

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const msg = err instanceof Error ? err.message.split("\n")[0]! : String(err);
    throw new FileProblem("invalid_json", `invalid json: ${msg.charAt(0).toLowerCase()}${msg.slice(1)}`);
  }
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new FileProblem("invalid_shape", `expected a json object (${what})`);
  return v as Record<string, unknown>;
}

function str(o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return "";
}

function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/** Ids used in claim texts must be quotable: letters, digits, `.`, `_`, `-`. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function checkId(id: string, stem: string | undefined, what: string): string {
  if (id === "") {
    if (stem === undefined) throw new FileProblem("invalid_shape", `${what} without an id`);
    id = stem;
  }
  if (!SAFE_ID.test(id))
    throw new FileProblem("invalid_id", `${what} id \`${id}\` must be letters, digits, \`.\`, \`_\` or \`-\``);
  if (stem !== undefined && stem !== id)
    throw new FileProblem("id_mismatch", `${what} id \`${id}\` does not match the file name \`${stem}\``);
  return id;
}

/** The first line of a run record: the run claim of a root-cause analysis. */
export function runHeadline(r: RunInfo): string {
  const state =
    r.status === "" || r.status === "completed"
      ? `concluded ${r.conclusion || "without a conclusion"}`
      : `is ${r.status}`;
  return `Run ${r.id} "${r.title}" of workflow ${r.workflow || "-"} ${state}.`;
}

/** Parse `runs/<id>.json` (`gh run view <id> --json …`). */
export function parseRun(
  text: string,
  stem: string,
  source: string,
  revision: string,
): { info: RunInfo; record: EvidenceRecord } {
  const o = object(parseJson(text), "a run");
  const id = checkId(str(o, "databaseId"), stem, "run");
  // without a conclusion a failed run would read as one that did not fail: refuse the file instead
  if (typeof o.conclusion !== "string")
    throw new FileProblem(
      "missing_conclusion",
      `run \`${id}\` has no \`conclusion\` string (export it with \`gh run view <id> --json conclusion,…\`; \`""\` for a run still in progress)`,
    );
  const info: RunInfo = {
    id,
    title: oneLine(str(o, "displayTitle")),
    workflow: oneLine(str(o, "workflowName")),
    conclusion: str(o, "conclusion"),
    status: str(o, "status"),
    branch: str(o, "headBranch"),
    sha: str(o, "headSha"),
    event: str(o, "event"),
    createdAt: str(o, "createdAt"),
    url: str(o, "url"),
  };
  const lines = [runHeadline(info)];
  if (info.branch) lines.push(`branch: ${info.branch}`);
  if (info.sha) lines.push(`commit: ${info.sha}`);
  if (info.event) lines.push(`event: ${info.event}`);
  if (info.createdAt) lines.push(`created: ${info.createdAt}`);
  if (info.url) lines.push(`url: ${info.url}`);
  const jobs = Array.isArray(o.jobs) ? o.jobs : [];
  for (const j of jobs) {
    if (j === null || typeof j !== "object") continue;
    const job = j as Record<string, unknown>;
    const steps = Array.isArray(job.steps) ? (job.steps as unknown[]) : [];
    const failed = steps
      .filter(
        (s): s is Record<string, unknown> =>
          s !== null &&
          typeof s === "object" &&
          FAILED_CONCLUSIONS.includes(str(s as Record<string, unknown>, "conclusion")),
      )
      .map((s) => oneLine(str(s, "name")));
    const suffix = failed.length > 0 ? ` (failed step: ${failed.join(", ")})` : "";
    lines.push(`job ${oneLine(str(job, "name"))}: ${str(job, "conclusion") || str(job, "status") || "-"}${suffix}`);
  }
  return { info, record: record(runId(id), source, runLocator(id), lines.join("\n"), revision) };
}

/** Pull-request facts besides its record. */
export interface PrInfo {
  readonly number: string;
  readonly title: string;
}

/** The first line of a PR record: the pull_request claim of a change summary. */
export function prHeadline(n: string, title: string): string {
  return `PR ${n}: ${title}`;
}

/** Parse `prs/<n>.json` (`gh pr view <n> --json …`). */
export function parsePr(
  text: string,
  stem: string,
  source: string,
  revision: string,
): { info: PrInfo; record: EvidenceRecord } {
  const o = object(parseJson(text), "a pull request");
  const n = checkId(str(o, "number"), stem, "pull request");
  const title = oneLine(str(o, "title"));
  const lines = [prHeadline(n, title)];
  const author =
    o.author !== null && typeof o.author === "object"
      ? str(o.author as Record<string, unknown>, "login")
      : str(o, "author");
  if (author) lines.push(`author: ${author}`);
  if (str(o, "state")) lines.push(`state: ${str(o, "state")}`);
  if (str(o, "mergedAt")) lines.push(`merged: ${str(o, "mergedAt")}`);
  if (str(o, "headRefName") || str(o, "baseRefName"))
    lines.push(`branch: ${str(o, "headRefName") || "-"} into ${str(o, "baseRefName") || "-"}`);
  if (str(o, "url")) lines.push(`url: ${str(o, "url")}`);
  const files = Array.isArray(o.files) ? o.files : [];
  const names = files
    .filter((f): f is Record<string, unknown> => f !== null && typeof f === "object")
    .map((f) => `${str(f, "path")} (+${str(f, "additions") || "0"} -${str(f, "deletions") || "0"})`);
  if (names.length > 0) lines.push(`files: ${names.join(", ")}`);
  const body = str(o, "body").replace(/\r\n?/g, "\n").trim();
  const text2 = body === "" ? lines.join("\n") : `${lines.join("\n")}\n\n${body}`;
  return { info: { number: n, title }, record: record(prId(n), source, prLocator(n), text2, revision) };
}

/** One hunk of a unified diff. */
export interface Hunk {
  readonly file: string;
  readonly header: string;
  readonly index: number;
  readonly changed: readonly string[];
}

/** Split a unified diff into hunks with their file, header and changed (`+`/`-`) lines. */
export function parseDiff(text: string): Hunk[] {
  const hunks: Hunk[] = [];
  const perFile = new Map<string, number>();
  let oldPath = "";
  let file = "";
  let current: { file: string; header: string; index: number; changed: string[] } | undefined;
  // lines still expected in the current hunk (old side, new side), from its `@@ -a,b +c,d @@` header
  let oldLeft = 0;
  let newLeft = 0;
  const flush = (): void => {
    if (current !== undefined && current.changed.length > 0) hunks.push(current);
    current = undefined;
  };
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const inHunk = current !== undefined && (oldLeft > 0 || newLeft > 0);
    if (inHunk) {
      const c = line.charAt(0);
      if (c === "+") {
        current!.changed.push(line);
        newLeft--;
        continue;
      }
      if (c === "-") {
        current!.changed.push(line);
        oldLeft--;
        continue;
      }
      if (c === " " || line === "") {
        oldLeft--;
        newLeft--;
        continue;
      }
      if (c === "\\") continue;
    }
    if (line.startsWith("diff --git ")) {
      flush();
      const m = / b\/(.*)$/.exec(line);
      file = m ? m[1]! : "";
      oldPath = "";
    } else if (line.startsWith("--- ")) {
      flush();
      oldPath = stripPrefix(line.slice(4));
    } else if (line.startsWith("+++ ")) {
      const p = stripPrefix(line.slice(4));
      file = p === "/dev/null" ? oldPath : p;
    } else if (line.startsWith("@@")) {
      flush();
      const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
      oldLeft = m ? Number(m[1] ?? "1") : 0;
      newLeft = m ? Number(m[2] ?? "1") : 0;
      const k = (perFile.get(file) ?? 0) + 1;
      perFile.set(file, k);
      current = { file, header: line.trim(), index: k, changed: [] };
    }
  }
  flush();
  return hunks;
}

function stripPrefix(p: string): string {
  const t = p.replace(/\t.*$/, "").trim();
  return t.startsWith("a/") || t.startsWith("b/") ? t.slice(2) : t;
}

/** The text of a hunk record: file and header on the first line, then the changed lines. */
export function hunkText(h: Hunk): string {
  return [`${h.file} ${h.header}`, ...h.changed].join("\n");
}

/** Records of `prs/<n>.diff` or `commits/<sha>.diff`. */
export function parseDiffRecords(
  text: string,
  ownerKind: "pr" | "commit",
  owner: string,
  source: string,
  revision: string,
): EvidenceRecord[] {
  const hunks = parseDiff(text);
  if (hunks.length === 0 && text.trim() !== "" && !/^(diff --git|Binary files)/m.test(text)) {
    throw new FileProblem("invalid_diff", "no unified diff hunks found");
  }
  return hunks.map((h) =>
    record(
      hunkId(owner, h.file, h.index),
      source,
      hunkLocator(ownerKind, owner, h.file, h.header),
      hunkText(h),
      revision,
    ),
  );
}

/** The first line of a ticket record: the ticket claim. */
export function ticketHeadline(id: string, title: string): string {
  return `${id}: ${title}`;
}

function ticketRecord(
  v: unknown,
  stem: string | undefined,
  source: string,
  revision: string,
  where: string,
): EvidenceRecord {
  const o = object(v, where);
  const id = checkId(str(o, "id"), stem, "ticket");
  const title = oneLine(str(o, "title"));
  const lines = [ticketHeadline(id, title)];
  if (str(o, "status")) lines.push(`status: ${str(o, "status")}`);
  if (str(o, "url")) lines.push(`url: ${str(o, "url")}`);
  const body = str(o, "body").replace(/\r\n?/g, "\n").trim();
  return record(
    ticketId(id),
    source,
    ticketLocator(id),
    body === "" ? lines.join("\n") : `${lines.join("\n")}\n\n${body}`,
    revision,
  );
}

/** Parse `tickets/<id>.json` (one ticket) or `tickets.json` (an array; `stem` undefined). */
export function parseTickets(
  text: string,
  stem: string | undefined,
  source: string,
  revision: string,
): EvidenceRecord[] {
  const v = parseJson(text);
  if (stem === undefined) {
    if (!Array.isArray(v)) throw new FileProblem("invalid_shape", "expected a json array of tickets");
    return v.map((t, i) => {
      try {
        return ticketRecord(t, undefined, source, revision, `ticket [${i}]`);
      } catch (err) {
        if (err instanceof FileProblem) throw new FileProblem(err.code, `[${i}]: ${err.message}`);
        throw err;
      }
    });
  }
  return [ticketRecord(v, stem, source, revision, "a ticket")];
}

/** The first line of a commit record. */
export function commitHeadline(sha: string, subject: string): string {
  return `commit ${sha}: ${subject}`;
}

/** Parse `commits/<sha>.json` as written by `tessera ingest git`. */
export function parseCommit(text: string, stem: string, source: string, revision: string): EvidenceRecord {
  const o = object(parseJson(text), "a commit");
  const sha = checkId(str(o, "sha"), stem, "commit");
  if (!/^[0-9a-f]{7,64}$/.test(sha)) throw new FileProblem("invalid_id", `commit id \`${sha}\` is not a hex sha`);
  const lines = [commitHeadline(sha, oneLine(str(o, "subject")))];
  if (str(o, "author")) lines.push(`author: ${str(o, "author")}`);
  if (str(o, "date")) lines.push(`date: ${str(o, "date")}`);
  const body = str(o, "body").replace(/\r\n?/g, "\n").trim();
  return record(
    commitId(sha),
    source,
    commitLocator(sha),
    body === "" ? lines.join("\n") : `${lines.join("\n")}\n\n${body}`,
    revision,
  );
}
