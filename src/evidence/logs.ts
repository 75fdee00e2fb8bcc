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
/** ANSI escape sequences (CSI, OSC, two-character); none spans a line break, so blocks of lines can be cleaned at once. */
export const ANSI = /\u001b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\u0007\u001b\n]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Length of an ISO-8601 timestamp (`2026-01-05T10:00:01.1234567Z`, or with a `+hh:mm` offset) at
 * `at`, including one following space; 0 when there is none. Hand-written: it runs on every line.
 */
function timestampLength(s: string, at: number): number {
  const d = (i: number) => isDigit(s.charCodeAt(at + i));
  if (!(d(0) && d(1) && d(2) && d(3) && s.charCodeAt(at + 4) === 45 && d(5) && d(6) && s.charCodeAt(at + 7) === 45 && d(8) && d(9))) return 0;
  if (!(s.charCodeAt(at + 10) === 84 && d(11) && d(12) && s.charCodeAt(at + 13) === 58 && d(14) && d(15) && s.charCodeAt(at + 16) === 58 && d(17) && d(18))) return 0;
  let i = at + 19;
  if (s.charCodeAt(i) === 46 && isDigit(s.charCodeAt(i + 1))) {
    i++;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  const z = s.charCodeAt(i);
  if (z === 90) i++;
  else if ((z === 43 || z === 45) && isDigit(s.charCodeAt(i + 1)) && isDigit(s.charCodeAt(i + 2))) {
    i += 3;
    if (s.charCodeAt(i) === 58) i++;
    if (!(isDigit(s.charCodeAt(i)) && isDigit(s.charCodeAt(i + 1)))) return 0;
    i += 2;
  } else return 0;
  if (s.charCodeAt(i) === 32) i++;
  return i - at;
}

// the previous line's job and step, reused so a log of one step does not allocate them per line
let lastPrefix = "";
let lastJob = "-";
let lastStep = "-";

/**
 * Clean one raw log line.
 * @example cleanLogLine("build\tRun tests\t2026-01-05T10:00:01.1234567Z \u001b[31mFAIL\u001b[0m x") // { job: "build", step: "Run tests", text: "FAIL x" }
 */
export function cleanLogLine(raw: string): CleanLine {
  let s = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
  if (s.includes("\u001b")) s = s.replace(ANSI, "");
  if (s.includes("\ufeff")) s = s.replaceAll("\ufeff", "");
  const t1 = s.indexOf("\t");
  if (t1 >= 0) {
    const t2 = s.indexOf("\t", t1 + 1);
    if (t2 >= 0) {
      const n = timestampLength(s, t2 + 1);
      if (n > 0) {
        if (!(lastPrefix.length === t2 + 1 && s.startsWith(lastPrefix))) {
          lastPrefix = s.slice(0, t2 + 1);
          lastJob = s.slice(0, t1) || "-";
          lastStep = s.slice(t1 + 1, t2) || "-";
        }
        return { job: lastJob, step: lastStep, text: s.slice(t2 + 1 + n) };
      }
    }
  }
  const n = timestampLength(s, 0);
  return { job: "-", step: "-", text: n === 0 ? s : s.slice(n) };
}
