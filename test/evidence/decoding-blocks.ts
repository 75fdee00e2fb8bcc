// The decoding streamer of src/evidence/text.ts as it was before logs were streamed as bytes
// (every read decoded with a fatal streaming TextDecoder): the reference of blocks.drt.test.ts.
// Kept verbatim apart from its imports and names, so the bytes streamer is held to what it replaced,
// and without its whole-file shortcut: that was the same code as text.ts's, so every file, small ones
// too, goes through the streaming decoder here.
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { FileProblem, MAX_LINE, type ReadInfo } from "../../src/evidence/text.js";

const CHUNK = 1 << 20;

function utf8Problem(): FileProblem {
  return new FileProblem("invalid_utf8", "not valid utf-8 text");
}

export function decodingForEachBlock(
  path: string,
  onBlock: (block: string, firstLine: number, bytes: boolean) => number,
): ReadInfo {
  const h = createHash("sha256");
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const fd = openSync(path, "r");
  const buf = Buffer.allocUnsafe(CHUNK);
  let bytes = 0;
  let line = 1;
  let carry = "";
  let skipping = false;
  const emit = (block: string): void => {
    line += onBlock(block, line, false);
  };
  try {
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
    closeSync(fd);
  }
  if (bytes === 0) throw new FileProblem("empty_file", "the file is empty");
  return { bytes, hash: `sha256:${h.digest("hex")}` };
}
