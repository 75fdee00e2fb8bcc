// Differential test: the block scanner (logscan.ts) against a naive whole-file line reference — every line
// cleaned, classified and fed to SignatureSelector — over random logs written to files.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanLogLine, classifyLine, SignatureSelector } from "../../src/evidence/index.js";
import { scanLog } from "../../src/evidence/logscan.js";
import { naiveLines } from "./naive-lines.js";

interface L {
  line: number;
  text: string;
  job: string;
  step: string;
}

function reference(path: string) {
  const sel = new SignatureSelector<L>();
  const stored: unknown[] = [];
  naiveLines(path).forEach((raw, i) => {
    const n = i + 1;
    const c = cleanLogLine(raw);
    const cls = classifyLine(c.text);
    const l = { line: n, text: c.text, job: c.job, step: c.step };
    sel.push(l, cls);
    if (cls !== null) stored.push([l, cls]);
  });
  const sig = sel.result();
  return { stored, signature: sig === undefined ? undefined : { line: sig.line, basis: sig.basis } };
}

function scanned(path: string) {
  const stored: unknown[] = [];
  const { signature } = scanLog(path, (l, cls) => stored.push([{ ...l }, cls]));
  return {
    stored,
    signature: signature === undefined ? undefined : { line: { ...signature.line }, basis: signature.basis },
  };
}

const POOL = [
  "error TS2322: Type 'string' is not assignable to type 'number'.",
  "npm ERR! code ELIFECYCLE",
  "##[error]Process completed with exit code 1.",
  "--- FAIL: TestX (0.00s)",
  "FAIL",
  "BUILD FAILED in 3s",
  "##[group]Run make",
  "##[endgroup]",
  "",
  "E   assert 1 == 2",
  "e: file.kt:3:1 Unresolved reference",
  "name: value",
  "the  end",
  " × adds 3ms",
  "expected 3 but got 4",
  "ok  \tpkg\t0.01s",
  "#11 4.213 npm error ERESOLVE unable to resolve dependency tree",
  "x_test.go:12: got 1",
  "plain output line",
  // non-ASCII text: a file smaller than one read is scanned as its UTF-8 bytes (text.ts), so these
  // hold the byte-level candidate search to the decoded one
  "E\u00a0\u00a0assert 1 == 2",
  "E\u3000\u3000boom",
  "E \u2003x",
  "see\u00a0e: file.kt:3:1 Unresolved reference",
  "Type: string",
  "\u25cf Suite \u203a adds",
  "\u2717 broken build",
  "\u2715 bad case",
  "\u2713 café  au lait",
  "X.GO:12: got 1",
  "ÉRROR: ünïcödé ✓",
];

const entry = fc.record({
  text: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...POOL) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => s.replace(/[\n\r]/g, " ")) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }).map((s) => s.replace(/[\n\r]/g, " ")) },
  ),
  prefix: fc.boolean(),
  bom: fc.boolean(),
  ansi: fc.constantFrom("none", "wrap", "inside"),
  crlf: fc.boolean(),
  repeat: fc.oneof({ weight: 30, arbitrary: fc.constantFrom(1, 2) }, { weight: 1, arbitrary: fc.constant(20_000) }),
});

interface Entry {
  text: string;
  prefix: boolean;
  bom: boolean;
  ansi: string;
  crlf: boolean;
  repeat: number;
}

function render(entries: readonly Entry[]): string {
  const out: string[] = [];
  let k = 0;
  for (const e of entries) {
    let t = e.text;
    if (e.ansi === "wrap") t = `\u001b[31m${t}\u001b[39m`;
    if (e.ansi === "inside" && t.length > 2) t = `${t.slice(0, 2)}\u001b[1m${t.slice(2)}`;
    const line = e.prefix
      ? `job\tstep ${k % 3}\t${e.bom ? "\ufeff" : ""}2026-01-01T00:00:00.1234567Z ${t}`
      : `${e.bom ? "\ufeff" : ""}${t}`;
    for (let i = 0; i < e.repeat; i++) out.push(line + (e.crlf ? "\r" : ""));
    k++;
  }
  return out.join("\n");
}

describe("logscan = line-by-line reference", () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-scan-"));
  it("stores the same classified lines and chooses the same signature", () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 20 }), fc.boolean(), (entries, trailingNewline) => {
        let text = render(entries);
        if (trailingNewline) text += "\n";
        if (text.length === 0) text = "x";
        const file = join(dir, "log.txt");
        writeFileSync(file, text);
        expect(scanned(file)).toEqual(reference(file));
      }),
      { numRuns: 150 },
    );
  });

  it("agrees on a log with a line longer than a read (cut) and lines across read boundaries", () => {
    const file = join(dir, "long.txt");
    writeFileSync(
      file,
      [
        "plain",
        "x".repeat(3 * 1024 * 1024),
        "expected 3 but got 4",
        ...Array.from({ length: 30_000 }, (_, i) => `line ${i} of output`),
        "##[error]Process completed with exit code 1.",
      ].join("\n"),
    );
    const got = scanned(file);
    expect(got).toEqual(reference(file));
    expect(got.signature).toMatchObject({ basis: "before_trailer", line: { line: 30_003 } });
  });
});
