// Reads the example files out of specs/*.md: a fenced block whose info string names a path after
// its language (```json runs/501.json) is that file, each of its lines ending with a line feed.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { specText } from "./spec-tables.js";

/** One example file: its path (relative, `/`-separated), its text, and the heading above it. */
export interface SpecFile {
  readonly path: string;
  readonly text: string;
  readonly heading: string;
}

/** Every example file of specs/<name> (optionally only those under `heading`), in document order. */
export function specFiles(name: string, heading?: string): SpecFile[] {
  const lines = specText(name).split("\n");
  const out: SpecFile[] = [];
  let current = "";
  for (let i = 0; i < lines.length; i++) {
    const h = /^#+\s+(.*)$/.exec(lines[i]!);
    if (h) current = h[1]!.trim();
    const open = /^```(\w*)\s+(\S+)\s*$/.exec(lines[i]!);
    if (open === null) {
      // a plain fence: skip to its end so a heading-like line inside it is not taken as a heading
      if (/^```/.test(lines[i]!)) for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++);
      continue;
    }
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (heading === undefined || current === heading)
      out.push({ path: open[2]!, text: body.map((l) => `${l}\n`).join(""), heading: current });
  }
  if (out.length === 0) throw new Error(`specs/${name}: no example files${heading ? ` under "${heading}"` : ""}`);
  return out;
}

/** Write example files under `dir`; returns `dir`. */
export function writeSpecFiles(dir: string, files: readonly SpecFile[]): string {
  for (const f of files) {
    const to = join(dir, f.path);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, f.text);
  }
  return dir;
}
