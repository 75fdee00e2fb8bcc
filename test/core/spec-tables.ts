// Reads the example tables and JSON blocks out of specs/*.md so tests can pin every row.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const specsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "specs");

/** One Markdown table: the heading above it, its header cells and its rows (cells trimmed). */
export interface SpecTable {
  readonly heading: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** Split a table line into cells; `\|` is a literal pipe. */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replaceAll("\\|", "|"));
}

/** The text of specs/<name>. */
export function specText(name: string): string {
  return readFileSync(join(specsDir, name), "utf8");
}

/** Every table of specs/<name>, each under its nearest preceding heading. */
export function specTables(name: string): SpecTable[] {
  const lines = specText(name).split("\n");
  const tables: SpecTable[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = /^#+\s+(.*)$/.exec(line);
    if (h) heading = h[1]!.trim();
    if (line.trimStart().startsWith("|") && /^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? "")) {
      const header = cells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && lines[i]!.trimStart().startsWith("|")) rows.push(cells(lines[i++]!));
      i--;
      tables.push({ heading, header, rows });
    }
  }
  return tables;
}

/** The one table under `heading`; throws when it is missing, so deleting a table fails its test. */
export function specTable(name: string, heading: string): SpecTable {
  const found = specTables(name).filter((t) => t.heading === heading);
  if (found.length !== 1)
    throw new Error(`specs/${name}: expected one table under "${heading}", found ${found.length}`);
  return found[0]!;
}

/** The contents of the fenced ```json block that follows `heading`. */
export function specJsonBlock(name: string, heading: string): unknown {
  const text = specText(name);
  const at = text.search(new RegExp(`^#+\\s+${heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*$`, "m"));
  if (at < 0) throw new Error(`specs/${name}: no heading "${heading}"`);
  const m = /```json\n([\s\S]*?)```/.exec(text.slice(at));
  if (!m) throw new Error(`specs/${name}: no json block under "${heading}"`);
  return JSON.parse(m[1]!, bigintReviver);
}

function bigintReviver(_key: string, v: unknown): unknown {
  return typeof v === "string" && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v;
}

/**
 * A table cell holding a value in code: `` `<json>` `` or `` `<digits>n` `` for a bigint.
 * Strings are JSON strings, so escapes such as `\t`, `\u0000` and lone surrogates are exact.
 */
export function value(cell: string): unknown {
  const m = /^`(.*)`$/.exec(cell);
  if (!m) throw new Error(`not a code cell: ${cell}`);
  const src = m[1]!;
  if (/^-?\d+n$/.test(src)) return BigInt(src.slice(0, -1));
  return JSON.parse(src, bigintReviver);
}

/** A yes/no cell. */
export function yes(cell: string): boolean {
  if (cell === "yes") return true;
  if (cell === "no") return false;
  throw new Error(`expected yes or no, got ${cell}`);
}

/** A cell that is either a code span holding a word, or a dash for none. */
export function word(cell: string): string | undefined {
  if (cell === "—" || cell === "-" || cell === "") return undefined;
  return cell.replace(/^`|`$/g, "");
}
