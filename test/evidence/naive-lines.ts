// A deliberately naive reference for the streaming readers of src/evidence/text.ts: read the whole
// file, decode it at once, split on "\n". Used by the differential tests only.
import { readFileSync } from "node:fs";
import { FileProblem, forEachBlock, MAX_LINE, utf8Of } from "../../src/evidence/text.js";

/** Every line of a file (without `\n`, BOM dropped), each cut to MAX_LINE characters. */
export function naiveLines(path: string): string[] {
  const bytes = readFileSync(path);
  if (bytes.length === 0) throw new FileProblem("empty_file", "the file is empty");
  if (bytes.indexOf(0) >= 0) throw new FileProblem("binary_file", "binary content (a NUL byte)");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new FileProblem("invalid_utf8", "not valid utf-8 text");
  }
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.length > MAX_LINE ? l.slice(0, MAX_LINE) : l));
}

/** The lines `forEachBlock` delivers, in order, each cut to MAX_LINE characters. */
export function blockLines(path: string): { lines: string[]; bytes: number } {
  const lines: string[] = [];
  const info = forEachBlock(path, (block, _first, bytes) => {
    const parts = block.split("\n").map((l) => (bytes ? utf8Of(l) : l));
    for (const p of parts) lines.push(p.length > MAX_LINE ? p.slice(0, MAX_LINE) : p);
    return parts.length;
  });
  return { lines, bytes: info.bytes };
}
