/**
 * Reading workspace files as text: whole small files, or large logs line by line with bounded
 * memory. Both hash the bytes they read and reject empty, binary and invalid UTF-8 files.
 * @module
 */
import { createHash } from "node:crypto";
import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";

/** A file-level problem that stops one file from being ingested; `code` is stable snake_case. */
export class FileProblem extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "FileProblem";
    this.code = code;
  }
}

/** What reading a file produced besides its text. */
export interface ReadInfo {
  readonly bytes: number;
  /** `sha256:<hex>` of the file's bytes. */
  readonly hash: string;
}

const CHUNK = 1 << 20;
/** Longer lines are cut here (and the rest of the line skipped), so one line cannot exhaust memory. */
export const MAX_LINE = 64 * 1024;

// One read buffer reused across files: a fresh 1 MiB buffer per file (thousands of small logs) is
// mostly garbage-collection work. Taken out while in use, so a nested read gets its own.
let spare: Buffer | undefined;
function takeBuffer(): Buffer {
  const b = spare ?? Buffer.allocUnsafe(CHUNK);
  spare = undefined;
  return b;
}
function giveBack(b: Buffer): void {
  spare = b;
}

// A fatal decoder without `stream` keeps no state between calls, so one serves every whole file
// (replaced after a failure, so an error can never leave state behind).
let whole = new TextDecoder("utf-8", { fatal: true });

/**
 * Read a file smaller than the buffer whole, from offset 0; the byte count, or 0 when it is empty or
 * did not fit (the caller then streams it from the start). `size`, when the caller has just stat'ed
 * the file, spares the fstat and the read that finds the end: a read shorter than asked that brings
 * the file to that size ends it (a regular file reads short only at its end).
 */
function readWhole(fd: number, buf: Buffer, size?: number): number {
  if ((size ?? fstatSync(fd).size) >= buf.length) return 0;
  let n = 0;
  for (;;) {
    const want = buf.length - n;
    const k = readSync(fd, buf, n, want, n);
    if (k === 0) return n;
    n += k;
    if (n === buf.length) return 0;
    if (n === size && k < want) return n;
  }
}

/** The text of a line (or block) of a `bytes` block of `forEachBlock`. */
export function utf8Of(latin1: string): string {
  return Buffer.from(latin1, "latin1").toString("utf8");
}

function utf8Problem(): FileProblem {
  return new FileProblem("invalid_utf8", "not valid utf-8 text");
}

/**
 * Read a whole (small) text file: a JSON document, a diff, a ticket. `size` (from a stat just
 * before) lets a file under 1 MiB be read into the shared buffer with one read and no fstat.
 */
export function readTextFile(path: string, size?: number): { text: string } & ReadInfo {
  if (size === undefined || size === 0 || size >= CHUNK) return textOf(readFileSync(path));
  const buf = takeBuffer();
  try {
    const fd = openSync(path, "r");
    let n: number;
    try {
      n = readWhole(fd, buf, size);
    } finally {
      closeSync(fd);
    }
    // empty or grown past the buffer since the stat: read it the ordinary way
    return n === 0 ? textOf(readFileSync(path)) : textOf(buf.subarray(0, n));
  } finally {
    giveBack(buf);
  }
}

function textOf(buf: Buffer): { text: string } & ReadInfo {
  if (buf.length === 0) throw new FileProblem("empty_file", "the file is empty");
  if (buf.indexOf(0) >= 0) throw new FileProblem("binary_file", "binary content (a NUL byte)");
  let text: string;
  try {
    text = whole.decode(buf);
  } catch {
    whole = new TextDecoder("utf-8", { fatal: true });
    throw utf8Problem();
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { text, bytes: buf.length, hash: `sha256:${createHash("sha256").update(buf).digest("hex")}` };
}

/** SHA-256 of a file's bytes, streamed. */
export function hashFile(path: string): string {
  const h = createHash("sha256");
  const fd = openSync(path, "r");
  const buf = takeBuffer();
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    giveBack(buf);
    closeSync(fd);
  }
  return `sha256:${h.digest("hex")}`;
}

/** Blocks handed to `onBlock` hold at most about this many bytes (whole lines; a longer line is one block). */
const BLOCK = 64 * 1024;

/**
 * Bytes a UTF-8 sequence starting with `b` has (1 for ASCII), 0 for a byte no sequence starts with.
 * A continuation byte (0x80–0xbf) gives 0.
 */
function sequenceLength(b: number): number {
  return b < 0x80 ? 1 : b < 0xc2 ? 0 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : b < 0xf5 ? 4 : 0;
}

/**
 * Check that `b` is UTF-8 text, possibly ending in the first bytes of a sequence the next read
 * completes; returns how many trailing bytes are such an incomplete sequence (0–3). Throws
 * `invalid_utf8` where a fatal streaming decoder fed the same reads throws (an incomplete sequence
 * whose bytes so far cannot start a valid one fails at once, as the decoder fails).
 */
function checkUtf8(b: Buffer): number {
  const n = b.length;
  let tail = 0;
  for (let k = 1; k <= 3 && k <= n; k++) {
    const c = b[n - k]!;
    if ((c & 0xc0) === 0x80) continue;
    const len = sequenceLength(c);
    if (len > k) tail = k;
    break;
  }
  if (!isUtf8(tail === 0 ? b : b.subarray(0, n - tail))) throw utf8Problem();
  if (tail > 1) {
    // the bytes so far must be a prefix of a valid sequence: complete it with continuation bytes
    const probe = Buffer.alloc(sequenceLength(b[n - tail]!), 0x80);
    b.copy(probe, 0, n - tail);
    if (!isUtf8(probe)) throw utf8Problem();
  }
  return tail;
}

/**
 * Read a file's lines, 1 MiB at a time, in runs of whole lines: `onBlock(block, firstLine, bytes)`
 * gets one or more lines joined by `\n` (no trailing newline; a trailing `\r` stays on its line) and
 * returns how many lines it held. A line still incomplete at the end of a read is cut at MAX_LINE
 * characters when longer (the rest of it skipped); a line inside one read is not cut.
 * Throws `FileProblem` for an empty, binary or invalid UTF-8 file — possibly after some lines were
 * delivered, so callers undo what they stored.
 * With `bytes` true the block is the lines' UTF-8 bytes spelled one character per byte (latin1),
 * already checked to be valid UTF-8, so a log is scanned without decoding it (`utf8Of` turns a
 * line of such a block into its text); only a line cut at MAX_LINE comes decoded (`bytes` false).
 * Blocks are at most about 64 KiB (cut at line ends), so no block is a large heap object.
 */
export function forEachBlock(
  path: string,
  onBlock: (block: string, firstLine: number, bytes: boolean) => number,
  size?: number,
): ReadInfo {
  const h = createHash("sha256");
  const fd = openSync(path, "r");
  const buf = takeBuffer();
  let bytes = 0;
  let line = 1;
  // whole lines b[start, end) (end at a newline or the end of the text), in blocks of about BLOCK bytes
  const emitLines = (b: Buffer, start: number, end: number): void => {
    while (end - start > BLOCK) {
      let nl = b.lastIndexOf(0x0a, start + BLOCK);
      if (nl < start) {
        nl = b.indexOf(0x0a, start + BLOCK);
        if (nl < 0 || nl >= end) break;
      }
      line += onBlock(b.toString("latin1", start, nl), line, true);
      start = nl + 1;
    }
    line += onBlock(b.toString("latin1", start, end), line, true);
  };
  try {
    const whole = readWhole(fd, buf, size);
    if (whole > 0) {
      // the whole file in one buffer: what the loop below does for a file read in one chunk
      const chunk = buf.subarray(0, whole);
      if (chunk.indexOf(0) >= 0) throw new FileProblem("binary_file", "binary content (a NUL byte)");
      h.update(chunk);
      if (!isUtf8(chunk)) throw utf8Problem();
      const last = chunk.lastIndexOf(0x0a);
      if (last >= 0) emitLines(chunk, 0, last);
      let tail = chunk.toString("utf8", last + 1);
      // the decoder drops a byte-order mark that starts the file
      if (last < 0 && tail.charCodeAt(0) === 0xfeff) tail = tail.slice(1);
      if (tail.length > MAX_LINE) line += onBlock(tail.slice(0, MAX_LINE), line, false);
      else if (tail.length > 0) line += onBlock(tail, line, false);
      return { bytes: whole, hash: `sha256:${h.digest("hex")}` };
    }
    // INVARIANT: the same lines, cuts and problems as decoding the reads with a fatal streaming
    // decoder (test/evidence/streaming.drt.test.ts holds it to that reference); a newline byte is
    // never part of a multi-byte sequence, so the bytes up to a newline are whole characters
    let carry: Buffer = Buffer.alloc(0); // bytes of the line the last read ended in (incomplete sequence included)
    let carryAt = 0; // its offset in the file
    let pending = Buffer.alloc(0); // an incomplete sequence ending the last read
    let skipping = false;
    for (let pos = 0; ; ) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
      if (n === 0) break;
      const chunkAt = pos;
      pos += n;
      const chunk = buf.subarray(0, n);
      if (chunk.indexOf(0) >= 0) throw new FileProblem("binary_file", "binary content (a NUL byte)");
      h.update(chunk);
      bytes += n;
      const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      const incomplete = checkUtf8(data);
      pending = Buffer.from(data.subarray(data.length - incomplete));
      const first = chunk.indexOf(0x0a);
      if (first >= 0) {
        const last = chunk.lastIndexOf(0x0a);
        if (skipping) {
          // the rest of a cut line ends at the first newline; whole lines follow it
          skipping = false;
          if (last > first) emitLines(chunk, first + 1, last);
        } else {
          line += onBlock(
            carry.length > 0
              ? Buffer.concat([carry, chunk.subarray(0, first)]).toString("latin1")
              : chunk.toString("latin1", 0, first),
            line,
            true,
          );
          if (last > first) emitLines(chunk, first + 1, last);
        }
        carry = Buffer.from(chunk.subarray(last + 1));
        carryAt = chunkAt + last + 1;
      } else if (!skipping) {
        carry = Buffer.concat([carry, chunk]);
      }
      // a character is at most as many UTF-16 units as bytes, so only a long carry can need a cut
      if (carry.length - incomplete > MAX_LINE) {
        let text = carry.toString("utf8", 0, carry.length - incomplete);
        // the decoder drops a byte-order mark that starts the file
        if (carryAt === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        if (text.length > MAX_LINE) {
          line += onBlock(text.slice(0, MAX_LINE), line, false);
          carry = Buffer.alloc(0);
          skipping = true;
        }
      }
    }
    if (pending.length > 0) throw utf8Problem();
    if (carry.length > 0 && !skipping) {
      // a BOM that starts the file is removed by the scan like every other one
      line += onBlock(carry.toString("latin1"), line, true);
    }
  } finally {
    giveBack(buf);
    closeSync(fd);
  }
  if (bytes === 0) throw new FileProblem("empty_file", "the file is empty");
  return { bytes, hash: `sha256:${h.digest("hex")}` };
}
