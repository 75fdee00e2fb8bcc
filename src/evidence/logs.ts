/**
 * Cleaning CI log lines (specs/workspace.md): `gh run view --log-failed` prefixes
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

/**
 * ANSI escape sequences (CSI, OSC, a character-set designation such as `ESC ( B`, and the
 * two-character ones, keypad modes `ESC =` / `ESC >` and `ESC 7` / `ESC 8` included); none spans a line break, so blocks of lines can be
 * cleaned at once. The definition `stripAnsi` implements by hand (test/evidence/ansi.pbt.test.ts).
 */
export const ANSI = /\u001b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\u0007\u001b\n]*(?:\u0007|\u001b\\)|[()*+][0-~]|[0-?@-Z\\-_])/g;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Length of an ISO-8601 timestamp (`2026-01-05T10:00:01.1234567Z`, or with a `+hh:mm` offset) at
 * `at`, including one following space; 0 when there is none. Hand-written: it runs on every line.
 */
function timestampLength(s: string, at: number): number {
  const d = (i: number) => isDigit(s.charCodeAt(at + i));
  if (
    !(
      d(0) &&
      d(1) &&
      d(2) &&
      d(3) &&
      s.charCodeAt(at + 4) === 45 &&
      d(5) &&
      d(6) &&
      s.charCodeAt(at + 7) === 45 &&
      d(8) &&
      d(9)
    )
  )
    return 0;
  if (
    !(
      s.charCodeAt(at + 10) === 84 &&
      d(11) &&
      d(12) &&
      s.charCodeAt(at + 13) === 58 &&
      d(14) &&
      d(15) &&
      s.charCodeAt(at + 16) === 58 &&
      d(17) &&
      d(18)
    )
  )
    return 0;
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
  if (REWRITES.test(s)) s = terminalLine(s);
  s = stripAnsi(s);
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

/**
 * Length of the `ANSI` match at `i` of `s` (where `s[i]` is ESC), 0 when there is none: the regular
 * expression's three alternatives tried in order. None can backtrack into another match (each
 * repeated class is disjoint from what follows it), so the first fit is the match.
 */
function escapeLength(s: string, i: number): number {
  const n = s.length;
  const c = s.charCodeAt(i + 1); // NaN past the end: no branch takes it
  if (c === 0x5b) {
    // CSI: ESC [ [0-9;?]* [ -/]* [@-~]
    let j = i + 2;
    for (let d = s.charCodeAt(j); (d >= 0x30 && d <= 0x39) || d === 0x3b || d === 0x3f; d = s.charCodeAt(j)) j++;
    for (let d = s.charCodeAt(j); d >= 0x20 && d <= 0x2f; d = s.charCodeAt(j)) j++;
    const f = s.charCodeAt(j);
    return f >= 0x40 && f <= 0x7e ? j + 1 - i : 0; // "[" is not a two-character escape
  }
  if (c === 0x5d) {
    // OSC: ESC ] [^BEL ESC \n]* (BEL | ESC \); else the two-character ESC ]
    let j = i + 2;
    while (j < n) {
      const d = s.charCodeAt(j);
      if (d === 0x07 || d === 0x1b || d === 0x0a) break;
      j++;
    }
    const t = s.charCodeAt(j);
    if (t === 0x07) return j + 1 - i;
    if (t === 0x1b && s.charCodeAt(j + 1) === 0x5c) return j + 2 - i;
    return 2;
  }
  // character set: ESC [()*+] [0-~]
  if (c === 0x28 || c === 0x29 || c === 0x2a || c === 0x2b) {
    const d = s.charCodeAt(i + 2);
    if (d >= 0x30 && d <= 0x7e) return 3;
  }
  // two-character: ESC [0-?@-Z\\-_]
  return (c >= 0x30 && c <= 0x3f) || (c >= 0x40 && c <= 0x5a) || (c >= 0x5c && c <= 0x5f) ? 2 : 0;
}

/**
 * `s.replace(ANSI, "")`, found by hand: the ESCs are looked up with `indexOf` and the text between
 * the escapes is joined, which is faster than a regular-expression replace on a log block with
 * several escapes per line (a property test holds the two equal).
 */
export function stripAnsi(s: string): string {
  let i = s.indexOf("\u001b");
  if (i < 0) return s;
  let out = "";
  let from = 0; // start of the text not yet copied
  while (i >= 0) {
    const k = escapeLength(s, i);
    if (k > 0) {
      if (i > from) out += s.substring(from, i);
      from = i + k;
      i = s.indexOf("\u001b", from);
    } else i = s.indexOf("\u001b", i + 1);
  }
  return from === 0 ? s : from < s.length ? out + s.substring(from) : out;
}

/**
 * What a terminal shows for one line holding carriage returns (progress bars, Travis's
 * `travis_time:…\r\u001b[0K$ make`): each character overwrites the cell under the cursor, `\r`
 * moves it to column 0, backspace one left, `ESC [ K` (0, 1 or 2) erases to the end, to the start
 * or the whole line; other escapes change nothing shown and are dropped. A line with no `\r` in it
 * or backspace is returned as it is (an erase escape on it is dropped like any other); a trailing
 * `\r` (CRLF) changes nothing.
 */
export function terminalLine(s: string): string {
  if (!REWRITES.test(s)) return s;
  const cells: string[] = [];
  let col = 0;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 13) {
      col = 0;
      i++;
    } else if (c === 8) {
      if (col > 0) col--;
      i++;
    } else if (c === 0x1b) {
      const k = escapeLength(s, i);
      if (k > 0 && s.charCodeAt(i + 1) === 0x5b && s.charCodeAt(i + k - 1) === 0x4b) {
        const p = s.slice(i + 2, i + k - 1);
        if (p === "" || p === "0") cells.length = Math.min(cells.length, col);
        else if (p === "1") for (let j = 0; j <= col && j < cells.length; j++) cells[j] = " ";
        else if (p === "2") cells.length = 0;
      }
      i += k > 0 ? k : 1;
    } else {
      const ch = s.codePointAt(i)! > 0xffff ? s.slice(i, i + 2) : s.charAt(i);
      while (cells.length < col) cells.push(" ");
      cells[col++] = ch;
      i += ch.length;
    }
  }
  return cells.join("");
}

/** `terminalLine` applied to every line of a block (`\n`-separated) that holds a carriage return before its end. */
export function terminalBlock(b: string, bytes: boolean): string {
  if (b.indexOf("\r") < 0 && b.indexOf("\b") < 0) return b;
  if (!INNER_CR.test(b)) return b;
  return b.replace(INNER_CR_LINE, (line) =>
    bytes
      ? Buffer.from(terminalLine(Buffer.from(line, "latin1").toString("utf8")), "utf8").toString("latin1")
      : terminalLine(line),
  );
}

// a carriage return or a backspace: what rewrites a row (a line written once keeps all it wrote, and
// its erase escapes are dropped like any other)
const REWRITES = /\r|\x08/;
const INNER_CR = /\r[^\n]|\x08/;
const INNER_CR_LINE = /[^\n]*(?:\r[^\n]|\x08)[^\n]*/g;
