/**
 * What changed between a tool's pinned definition and the one the upstream offers now, as line
 * diffs a reviewer can read: the description (split at sentence ends too, so one injected sentence
 * in a one-line description shows as one added line), the input schema and any other keys, each
 * as sorted, indented JSON. `tessera review tools --diff` and the review page both show this.
 * @module
 */
import { isObject } from "../platform/objects.js";

/** One line of a diff: in both definitions, only in the pinned one, or only in the new one. */
export type DiffOp = "same" | "removed" | "added";

/** A line and what the change did to it. */
export interface DiffLine {
  readonly op: DiffOp;
  readonly text: string;
}

/** The change to one tool definition, part by part. */
export interface ToolDefinitionDiff {
  readonly tool: string;
  readonly description: readonly DiffLine[];
  readonly inputSchema: readonly DiffLine[];
  /** Every other key of the definition (title, annotations, output schema, …); empty when there are none. */
  readonly other: readonly DiffLine[];
}

/**
 * Above this many line pairs the diff does not search for common lines and shows the old part
 * removed and the new part added: bounded work for a definition an upstream made huge.
 */
const MAX_PAIRS = 4_000_000;

/** The diff between the pinned and the pending definition of `tool`. */
export function diffToolDefinitions(tool: string, pinned: unknown, pending: unknown): ToolDefinitionDiff {
  const a = partsOf(pinned);
  const b = partsOf(pending);
  return {
    tool,
    description: diffLines(a.description, b.description),
    inputSchema: diffLines(a.inputSchema, b.inputSchema),
    other: diffLines(a.other, b.other),
  };
}

/** Whether a diff shows any change at all. */
export function hasChanges(diff: ToolDefinitionDiff): boolean {
  return [diff.description, diff.inputSchema, diff.other].some((part) => part.some((l) => l.op !== "same"));
}

interface Parts {
  readonly description: readonly string[];
  readonly inputSchema: readonly string[];
  readonly other: readonly string[];
}

function partsOf(definition: unknown): Parts {
  if (!isObject(definition)) return { description: [], inputSchema: [], other: prettyLines(definition) };
  const { name: _name, description, inputSchema, ...rest } = definition;
  return {
    description: typeof description === "string" ? sentenceLines(description) : prettyLines(description),
    inputSchema: prettyLines(inputSchema),
    other: Object.keys(rest).length === 0 ? [] : prettyLines(rest),
  };
}

/** A description's lines, each long line broken after its sentences' ends. */
function sentenceLines(text: string): string[] {
  if (text === "") return [];
  return text.split(/\r\n|\n|\r/).flatMap((line) => line.split(/(?<=[.!?])\s+(?=\S)/));
}

/** Sorted, two-space indented JSON, one line per entry; absent is no lines. */
function prettyLines(value: unknown): string[] {
  if (value === undefined) return [];
  const lines: string[] = [];
  pretty(value, "", "", lines);
  return lines;
}

function pretty(value: unknown, indent: string, prefix: string, out: string[]): void {
  if (Array.isArray(value)) {
    if (value.length === 0) return void out.push(`${indent}${prefix}[]`);
    out.push(`${indent}${prefix}[`);
    value.forEach((v, i) => {
      pretty(v, `${indent}  `, "", out);
      if (i < value.length - 1) out[out.length - 1] += ",";
    });
    return void out.push(`${indent}]`);
  }
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    if (keys.length === 0) return void out.push(`${indent}${prefix}{}`);
    out.push(`${indent}${prefix}{`);
    keys.forEach((k, i) => {
      pretty(value[k], `${indent}  `, `${JSON.stringify(k)}: `, out);
      if (i < keys.length - 1) out[out.length - 1] += ",";
    });
    return void out.push(`${indent}}`);
  }
  out.push(`${indent}${prefix}${value === undefined ? "null" : JSON.stringify(value)}`);
}

/** A shortest line diff (longest common subsequence), removals before additions at each change. */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((text): DiffLine => ({ op: "same", text }));
  const tail = a.slice(endA).map((text): DiffLine => ({ op: "same", text }));
  return [...head, ...middle(a.slice(start, endA), b.slice(start, endB)), ...tail];
}

function middle(a: readonly string[], b: readonly string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ op: "removed", text });
  const added = (text: string): DiffLine => ({ op: "added", text });
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_PAIRS) return [...a.map(removed), ...b.map(added)];
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..], in one flat array
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: "same", text: a[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) out.push(removed(a[i++]!));
    else out.push(added(b[j++]!));
  }
  while (i < a.length) out.push(removed(a[i++]!));
  while (j < b.length) out.push(added(b[j++]!));
  return out;
}
