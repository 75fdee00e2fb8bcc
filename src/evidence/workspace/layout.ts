/**
 * The workspace layout: which folders Tessera reads and which reader each file belongs to
 * (specs/workspace.md).
 * @module
 */
import { type Dirent, lstatSync, readdirSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";

/** The reader a workspace file belongs to. */
export type WorkspaceFileKind = "run" | "log" | "pr" | "diff" | "ticket" | "tickets" | "commit" | "commit-diff";

/** Which reader a workspace path belongs to, or null for a file in a known folder that no reader takes. */
export function workspaceFileKind(rel: string): WorkspaceFileKind | null {
  const [dir, name, ...rest] = rel.split("/");
  if (rest.length > 0 || name === undefined) return rel === "tickets.json" ? "tickets" : null;
  const ext = extname(name);
  switch (dir) {
    case "runs":
      return ext === ".json" ? "run" : null;
    case "logs":
      return ext === ".log" || ext === ".txt" ? "log" : null;
    case "prs":
      return ext === ".json" ? "pr" : ext === ".diff" || ext === ".patch" ? "diff" : null;
    case "tickets":
      return ext === ".json" ? "ticket" : null;
    case "commits":
      return ext === ".json" ? "commit" : ext === ".diff" || ext === ".patch" ? "commit-diff" : null;
    default:
      return null;
  }
}

/** The folders of the layout, under the workspace root. */
export const FOLDERS: readonly string[] = ["runs", "logs", "prs", "tickets", "commits"];

/**
 * Every file of the layout under `dir`, sorted; links count when their target is a file (and are
 * reported to `onLink`).
 */
export function listFiles(dir: string, onLink: (rel: string) => void = () => {}): string[] {
  const out: string[] = [];
  for (const folder of FOLDERS) {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, folder), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const name = e.name;
      if (name.startsWith(".")) continue;
      const rel = `${folder}/${name}`;
      if (e.isFile()) out.push(rel);
      else if (e.isSymbolicLink()) {
        onLink(rel);
        // the entry type says nothing about a link's target: stat it, as for every file before
        try {
          if (statSync(join(dir, rel)).isFile()) out.push(rel);
        } catch {
          // vanished between readdir and stat, or a dangling link: it is simply not there
        }
      }
    }
  }
  try {
    if (lstatSync(join(dir, "tickets.json")).isSymbolicLink()) onLink("tickets.json");
    if (statSync(join(dir, "tickets.json")).isFile()) out.push("tickets.json");
  } catch {
    // no tickets.json
  }
  return out.sort();
}

/** A file's name without its folder and extension: the id it gives its records. */
export const stem = (rel: string): string => basename(rel, extname(rel));
