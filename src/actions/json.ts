/**
 * Reading JSON someone hands you (a proposal, claims, a saved grounding, a grading input) without
 * ambiguity: `JSON.parse` silently keeps the last of two equal keys, another reader may keep the
 * first, so the approver and whoever acts on the file could see different values. A duplicate key
 * is an error naming the path of the object that holds it.
 * @module
 */
import { TesseraError } from "../platform/errors.js";

type Frame =
  | { readonly array: false; readonly keys: Set<string>; key: string; expectKey: boolean }
  | { readonly array: true; index: number };

function pathOf(stack: readonly Frame[]): string {
  let out = "";
  for (const f of stack.slice(0, -1)) out += f.array ? `[${f.index}]` : out === "" ? f.key : `.${f.key}`;
  return out === "" ? "(root)" : out;
}

/**
 * The first duplicate key of a valid JSON text, with the path of its object (`fields[0]`, `(root)`),
 * or null. The text must already have parsed: this scan does not validate syntax.
 */
export function findDuplicateKey(text: string): { readonly path: string; readonly key: string } | null {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (top !== undefined && !top.array && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        top.key = key;
        if (top.keys.has(key)) return { path: pathOf(stack), key };
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    } else if (c === "{") stack.push({ array: false, keys: new Set(), key: "", expectKey: true });
    else if (c === "[") stack.push({ array: true, index: 0 });
    else if (c === "}" || c === "]") stack.pop();
    else if (c === "," && top !== undefined) {
      if (top.array) top.index++;
      else top.expectKey = true;
    }
  }
  return null;
}

/**
 * `JSON.parse`, except that a duplicate key throws `TesseraError` (`duplicate_key`) with the message
 * `<path>: duplicate key \`k\``. Invalid syntax throws `JSON.parse`'s own `SyntaxError`.
 */
export function parseJsonStrict(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const dup = findDuplicateKey(text);
  if (dup !== null) throw new TesseraError("duplicate_key", `duplicate key \`${dup.key}\``, dup.path);
  return value;
}

/** A parser's error as one line of ours: its first line, lower-cased first letter, no trailing period or colon (ours as they are). */
export function parseErrorLine(err: unknown): string {
  if (err instanceof TesseraError) return err.message; // its path may start with an upper-case key
  // yaml ends the first line with ":" before its excerpt of the source
  const line = String(err instanceof Error ? err.message : err)
    .split("\n")[0]!
    .trim()
    .replace(/[.:]$/, "");
  return line.charAt(0).toLowerCase() + line.slice(1);
}
