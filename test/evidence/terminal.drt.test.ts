// Differential test: log cleaning (carriage returns and ANSI escapes) against a small terminal-like
// reference — a row of cells, a cursor, `\r`, backspace and the erase-in-line escapes — over random
// lines mixing text, progress-bar rewrites and every escape form the cleaner knows.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanLogLine } from "../../src/evidence/index.js";

// escapes the reference knows by their whole spelling (the cleaner finds them by their grammar)
const ERASE = /^\u001b\[([012]?)K/;
const OTHER = [
  /^\u001b\[[0-9;?]*[ -/]*[@-~]/, // CSI (colour, cursor modes such as ESC[?1h)
  /^\u001b\][^\u0007\u001b\n]*(?:\u0007|\u001b\\)/, // OSC (hyperlinks, titles)
  /^\u001b[()*+][0-~]/, // character set (ESC ( B)
  /^\u001b[0-?@-Z\\-_]/, // two characters (ESC =, ESC >, ESC 7, ESC M …)
];

/** Every escape removed: a line with no `\r` or backspace is written once, left to right. */
function withoutEscapes(line: string): string {
  let out = "";
  let rest = line;
  while (rest.length > 0) {
    const m = [ERASE, ...OTHER].map((re) => re.exec(rest)).find((x) => x !== null);
    if (m) rest = rest.slice(m[0].length);
    else {
      if (rest[0] !== "\u001b") out += rest[0];
      rest = rest.slice(1);
    }
  }
  return out;
}

/** What a terminal row shows after the bytes of one line are written to it. */
function terminal(written: string): string {
  // a CRLF line ending is the line's end, not a rewrite
  const line = written.endsWith("\r") ? written.slice(0, -1) : written;
  if (!line.includes("\r") && !line.includes("\b")) return withoutEscapes(line);
  const row: string[] = [];
  let col = 0;
  let rest = line;
  while (rest.length > 0) {
    const erase = ERASE.exec(rest);
    if (erase !== null) {
      if (erase[1] === "2") row.length = 0;
      else if (erase[1] === "1") for (let i = 0; i <= col && i < row.length; i++) row[i] = " ";
      else row.length = Math.min(row.length, col);
      rest = rest.slice(erase[0].length);
      continue;
    }
    const other = OTHER.map((re) => re.exec(rest)).find((m) => m !== null);
    if (other) {
      rest = rest.slice(other[0].length);
      continue;
    }
    const ch = String.fromCodePoint(rest.codePointAt(0)!);
    rest = rest.slice(ch.length);
    if (ch === "\r") col = 0;
    else if (ch === "\b") col = Math.max(0, col - 1);
    else if (ch === "\u001b") {
      // a lone ESC that starts no escape shows nothing
    } else {
      while (row.length < col) row.push(" ");
      row[col++] = ch;
    }
  }
  return row.join("");
}

const piece = fc.oneof(
  fc.constantFrom("Downloading", " 10%", " 100%", "[=====>    ]", "error TS2322: x", "é", "✓", "😀", " ", "$ make"),
  fc.constantFrom("\r", "\r", "\b"),
  fc.constantFrom("\u001b[0K", "\u001b[K", "\u001b[1K", "\u001b[2K", "\u001b[31;1m", "\u001b[0m", "\u001b[?1h"),
  fc.constantFrom(
    "\u001b=",
    "\u001b>",
    "\u001b7",
    "\u001b8",
    "\u001b(B",
    "\u001b]0;title\u0007",
    "\u001b]8;;u\u001b\\",
  ),
  fc.string({ maxLength: 4 }).filter((s) => !s.includes("\n") && !s.includes("\t") && !s.includes("\ufeff")),
);

describe("cleaning = a terminal's row", () => {
  it("for lines with carriage-return rewrites and escapes", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (parts) => {
        // a leading timestamp is cleaning's, not the terminal's: keep the line free of one
        const line = `> ${parts.join("")}`;
        expect(cleanLogLine(line).text).toBe(terminal(line));
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps what a Travis or GitLab marker rewrite leaves on screen", () => {
    const travis =
      'travis_time:end:08124bcd:start=1,finish=2,duration=3\r\u001b[0K\u001b[31;1mThe command "flake8" exited with 1.\u001b[0m\r';
    expect(cleanLogLine(travis).text).toBe('The command "flake8" exited with 1.');
    expect(cleanLogLine("section_start:1700000000:step_script\r\u001b[0KExecuting step").text).toBe("Executing step");
    expect(cleanLogLine("\u001b[?1h\u001b=\u001b=src/a.cs(3,4): error CS0103: x").text).toBe(
      "src/a.cs(3,4): error CS0103: x",
    );
  });
});
