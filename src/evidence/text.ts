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
 * did not fit (the caller then streams it from the start).
 */
function readWhole(fd: number, buf: Buffer): number {
  if (fstatSync(fd).size >= buf.length) return 0;
  let n = 0;
  for (;;) {
    const k = readSync(fd, buf, n, buf.length - n, n);
    if (k === 0) return n;
    n += k;
    if (n === buf.length) return 0;
  }
}

/** The text of a line (or block) of a `bytes` block of `forEachBlock`. */
export function utf8Of(latin1: string): string {
  return Buffer.from(latin1, "latin1").toString("utf8");
}

function utf8Problem(): FileProblem {
  return new FileProblem("invalid_utf8", "not valid utf-8 text");
}

/** Read a whole (small) text file: a JSON document, a diff, a ticket. */
export function readTextFile(path: string): { text: string } & ReadInfo {
  const buf = readFileSync(path);
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

/**
 * Read a file's lines, 1 MiB at a time, in runs of whole lines: `onBlock(block, firstLine, bytes)`
 * gets one or more lines joined by `\n` (no trailing newline; a trailing `\r` stays on its line) and
 * returns how many lines it held. A line longer than MAX_LINE may be cut there (the rest skipped).
 * Throws `FileProblem` for an empty, binary or invalid UTF-8 file — possibly after some lines were
 * delivered, so callers undo what they stored.
 * With `bytes` true the block is the lines' UTF-8 bytes spelled one character per byte (latin1),
 * already checked to be valid UTF-8: a file smaller than one read is scanned without decoding it
 * (`utf8Of` turns a line of such a block into its text).
 */
export function forEachBlock(path: string, onBlock: (block: string, firstLine: number, bytes: boolean) => number): ReadInfo {
  const h = createHash("sha256");
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const fd = openSync(path, "r");
  const buf = takeBuffer();
  let bytes = 0;
  let line = 1;
  let carry = "";
  let skipping = false;
  const emit = (block: string): void => {
    line += onBlock(block, line, false);
  };
  try {
    const whole = readWhole(fd, buf);
    if (whole > 0) {
      // the whole file in one buffer: what the loop below does for a file read in one chunk
      const chunk = buf.subarray(0, whole);
      if (chunk.indexOf(0) >= 0) throw new FileProblem("binary_file", "binary content (a NUL byte)");
      h.update(chunk);
      if (!isUtf8(chunk)) throw utf8Problem();
      const last = chunk.lastIndexOf(0x0a);
      if (last >= 0) line += onBlock(chunk.toString("latin1", 0, last), line, true);
      let tail = chunk.toString("utf8", last + 1);
      // the decoder drops a byte-order mark that starts the file
      if (last < 0 && tail.charCodeAt(0) === 0xfeff) tail = tail.slice(1);
      if (tail.length > MAX_LINE) emit(tail.slice(0, MAX_LINE));
      else if (tail.length > 0) emit(tail);
      return { bytes: whole, hash: `sha256:${h.digest("hex")}` };
    }
    for (let pos = 0; ; ) {
      const n = readSync(fd, buf, 0, CHUNK, pos);
      if (n === 0) break;
      pos += n;
      const chunk = buf.subarray(0, n);
      if (chunk.indexOf(0) >= 0) throw new FileProblem("binary_file", "binary content (a NUL byte)");
      h.update(chunk);
      bytes += n;
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        throw utf8Problem();
      }
      const first = text.indexOf("\n");
      if (first >= 0) {
        const last = text.lastIndexOf("\n");
        if (skipping) {
          // the rest of a cut line ends at the first newline; whole lines follow it
          skipping = false;
          if (last > first) emit(text.slice(first + 1, last));
        } else {
          emit(carry.length > 0 ? carry + text.slice(0, last) : text.slice(0, last));
        }
        carry = text.slice(last + 1);
      } else if (!skipping) {
        carry += text;
      }
      if (carry.length > MAX_LINE) {
        emit(carry.slice(0, MAX_LINE));
        carry = "";
        skipping = true;
      }
    }
    try {
      carry += decoder.decode();
    } catch {
      throw utf8Problem();
    }
    if (carry.length > 0 && !skipping) emit(carry);
  } finally {
    giveBack(buf);
    closeSync(fd);
  }
  if (bytes === 0) throw new FileProblem("empty_file", "the file is empty");
  return { bytes, hash: `sha256:${h.digest("hex")}` };
}
