/**
 * Cleaning CI log lines (DESIGN.md §6): `gh run view --log-failed` prefixes
 * (`<job>\t<step>\t<timestamp> <text>`), ANSI escapes, byte-order marks, CRLF, and a leading
 * timestamp on plain logs. A record's text is the cleaned line.
 * @module
 */

/** A cleaned line: job and step (`-` when the log does not say) and the text without decorations. */
export interface CleanLine {
  readonly job: string;
  readonly step: string;
  readonly text: string;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}) ?/;

/**
 * Clean one raw log line.
 * @example cleanLogLine("build\tRun tests\t2026-01-05T10:00:01.1234567Z \u001b[31mFAIL\u001b[0m x") // { job: "build", step: "Run tests", text: "FAIL x" }
 */
export function cleanLogLine(raw: string): CleanLine {
  let s = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (s.includes("\u001b")) s = s.replace(ANSI, "");
  if (s.includes("\ufeff")) s = s.replaceAll("\ufeff", "");
  const t1 = s.indexOf("\t");
  if (t1 >= 0) {
    const t2 = s.indexOf("\t", t1 + 1);
    if (t2 >= 0) {
      const rest = s.slice(t2 + 1);
      const ts = TIMESTAMP.exec(rest);
      if (ts !== null) return { job: s.slice(0, t1) || "-", step: s.slice(t1 + 1, t2) || "-", text: rest.slice(ts[0].length) };
    }
  }
  const ts = TIMESTAMP.exec(s);
  return { job: "-", step: "-", text: ts === null ? s : s.slice(ts[0].length) };
}
