/**
 * Scanning a log for error-bearing lines and its failure signature without cleaning every line:
 * blocks of whole lines are cleared of ANSI escapes and byte-order marks at once, a single regular
 * expression finds candidate lines, and only those are cleaned and classified. The signature is the
 * one `SignatureSelector` gives when fed every line (a differential test holds the two together).
 * @module
 */
import { cleanLogLine, stripAnsi, terminalBlock } from "./logs.js";
import {
  CANDIDATE,
  CANDIDATE_COMMON,
  CANDIDATE_RARE,
  candidateAt,
  classifyLine,
  isMeaningful,
  type LineClass,
  type Signature,
  SignatureSelector,
} from "./signatures.js";
import { forEachBlock, type ReadInfo, utf8Of } from "./text.js";

/** A cleaned line of a scanned log. */
export interface ScanLine {
  readonly line: number;
  readonly text: string;
  readonly job: string;
  readonly step: string;
}

const same = (s: string): string => s;

/**
 * The last meaningful unclassified line of `b` among the line ending at `stop` (numbered `line`)
 * and those before it; `text` turns a slice of `b` into text (`utf8Of` for a block of bytes).
 */
function lastMeaningfulFrom(
  b: string,
  stop: number,
  line: number,
  text: (s: string) => string,
  after: number,
): ScanLine | undefined {
  for (;;) {
    if (line <= after) return undefined;
    const start = stop === 0 ? 0 : b.lastIndexOf("\n", stop - 1) + 1;
    const c = cleanLogLine(text(b.slice(start, stop)));
    if (isMeaningful(c.text) && classifyLine(c.text) === null) return { line, text: c.text, job: c.job, step: c.step };
    if (start === 0) return undefined;
    stop = start - 1;
    line--;
  }
}

/**
 * Stream the log at `path`, calling `store` for every classified line in order, and return the
 * failure signature with the file's size and hash. Throws `FileProblem` like `forEachBlock`, which
 * gets `size` (the file's size from a stat just before, when known).
 */
export function scanLog(
  path: string,
  store: (line: ScanLine, cls: LineClass) => void,
  size?: number,
): { info: ReadInfo; signature: Signature<ScanLine> | undefined } {
  const sel = new SignatureSelector<ScanLine>();
  let carried: ScanLine | undefined; // last meaningful unclassified line of the blocks before this one
  const info = forEachBlock(
    path,
    (raw, first, bytes) => {
      // a block of UTF-8 bytes as latin1 is scanned as it is; only the lines looked at are decoded
      const text = bytes ? utf8Of : same;
      const bom = bytes ? "\xef\xbb\xbf" : "\ufeff";
      let b = stripAnsi(terminalBlock(raw, bytes));
      if (b.includes(bom)) b = b.replaceAll(bom, "");
      let pos = 0; // start of the line numbered `line`
      let line = first;
      // the line at `start` (numbered `n`), cleaned, classified and fed; its end
      const feed = (start: number, n: number): number => {
        let end = b.indexOf("\n", start);
        if (end < 0) end = b.length;
        const c = cleanLogLine(text(b.slice(start, end)));
        const cls = classifyLine(c.text);
        const l: ScanLine = { line: n, text: c.text, job: c.job, step: c.step };
        if (cls !== null && cls.tier !== "specific" && sel.awaitsTrailer()) {
          const after = sel.outputAfter();
          const before = (start > 0 ? lastMeaningfulFrom(b, start - 1, n - 1, text, after) : undefined) ?? carried;
          if (before !== undefined) sel.setLastMeaningful(before);
        }
        sel.push(l, cls);
        if (cls !== null) store(l, cls);
        return end;
      };
      // a header at the end of the block before waits for its detail: feed this block's first lines
      let done = false; // the block's last line was fed
      while (sel.wantsNext()) {
        const end = feed(pos, line);
        if (end >= b.length) {
          done = true;
          break;
        }
        pos = end + 1;
        line++;
      }
      const pick = CANDIDATE_RARE.test(b) ? CANDIDATE : CANDIDATE_COMMON;
      const re = new RegExp(pick.source, pick.flags);
      re.lastIndex = pos;
      while (!done) {
        const m = re.exec(b);
        if (m === null) break;
        if (!candidateAt(b, m)) {
          re.lastIndex = m.index + 1;
          continue;
        }
        const start = m.index === 0 ? 0 : b.lastIndexOf("\n", m.index - 1) + 1;
        while (pos < start) {
          pos = b.indexOf("\n", pos) + 1;
          line++;
        }
        let end = feed(start, line);
        // a header: its next lines are fed until the detail is found
        while (sel.wantsNext() && end < b.length) {
          pos = end + 1;
          line++;
          end = feed(pos, line);
        }
        if (end >= b.length) break;
        re.lastIndex = end + 1;
      }
      for (;;) {
        const nl = b.indexOf("\n", pos);
        if (nl < 0) break;
        pos = nl + 1;
        line++;
      }
      if (sel.needsLastOutput() || sel.awaitsTrailer())
        carried = lastMeaningfulFrom(b, b.length, line, text, sel.outputAfter()) ?? carried;
      return line - first + 1;
    },
    size,
  );
  if (sel.needsLastOutput() && carried !== undefined) sel.setLastMeaningful(carried);
  return { info, signature: sel.result() };
}
