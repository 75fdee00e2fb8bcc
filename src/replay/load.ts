import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseDocument } from "yaml";
import { TesseraError } from "../platform/errors.js";
import type { CaseDoc } from "./types.js";
import { isObject } from "../platform/objects.js";

/** Every `*.yaml` / `*.yml` file under the given files and folders, sorted, without duplicates. */
export function findCaseFiles(paths: readonly string[], cwd: string): string[] {
  const found = new Set<string>();
  const walk = (p: string): void => {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new TesseraError("case_not_found", `no such file or folder \`${p}\``);
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) {
        const child = join(p, name);
        if (statSync(child).isDirectory() || /\.ya?ml$/.test(name)) walk(child);
      }
    } else {
      found.add(p);
    }
  };
  for (const p of paths) walk(resolve(cwd, p));
  return [...found].sort();
}

/** Parse one case file and check the keys every kind shares; kind-specific keys are the runner's. */
export function parseCase(text: string, file: string, kinds: readonly string[]): CaseDoc {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = e.linePos?.[0]?.line;
    throw new TesseraError(
      "case_invalid",
      `${file}${line ? `:${line}` : ""}: invalid yaml: ${e.message.split("\n")[0]}`,
    );
  }
  const value: unknown = doc.toJS();
  if (!isObject(value)) {
    throw new TesseraError("case_invalid", `${file}: a case is a mapping with \`note\`, \`kind\` and \`want\``);
  }
  const v = value as Record<string, unknown>;
  if (typeof v.note !== "string" || v.note.trim() === "")
    throw new TesseraError("case_invalid", `${file}: note: a case needs a non-empty \`note\``);
  if (typeof v.kind !== "string" || !kinds.includes(v.kind)) {
    throw new TesseraError(
      "case_invalid",
      `${file}: kind: expected one of ${kinds.map((k) => `\`${k}\``).join(", ")}, got \`${String(v.kind)}\``,
    );
  }
  if (!Object.hasOwn(v, "want")) throw new TesseraError("case_invalid", `${file}: want: a case needs \`want\``);
  return v as CaseDoc;
}

/** Read and parse one case file. */
export function loadCase(file: string, kinds: readonly string[]): CaseDoc {
  return parseCase(readFileSync(file, "utf8"), file, kinds);
}
