// The reference for the earlier-log search: the full scan the store ran before the term index
// (adr/0111) — every stored log line of every earlier run, filtered by substring and then by
// token-bounded containment, first line per run, most recent run first. Obvious, and linear.
import type Database from "better-sqlite3";
import { containsNormalized, type EvidenceRecord, normalize } from "../../src/core/index.js";

interface Row {
  id: string;
  source: string;
  loc_kind: string;
  loc_parts: string;
  text: string;
  revision: string | null;
  owner: string;
  norm: string;
}

/** `findInEarlierLogs` as a scan of the store file at `db`. */
export function naiveEarlier(db: Database.Database, fragment: string, before: string, limit: number): EvidenceRecord[] {
  const f = normalize(fragment);
  const run = db.prepare<[string], { created_at: string }>("SELECT created_at FROM runs WHERE id = ?").get(before);
  if (f === "" || run === undefined || limit <= 0) return [];
  const rows = db
    .prepare<unknown[], Row>(
      `SELECT r.id, r.source, r.loc_kind, r.loc_parts, r.text, r.revision, r.owner, r.norm
         FROM records r CROSS JOIN runs u ON u.id = r.owner
        WHERE r.type = 'log' AND instr(r.norm, ?) > 0 AND (u.created_at < ? OR (u.created_at = ? AND (length(u.id) < length(?) OR (length(u.id) = length(?) AND u.id < ?))))
        ORDER BY u.created_at DESC, length(u.id) DESC, u.id DESC, r.seq`,
    )
    .all(f, run.created_at, run.created_at, before, before, before);
  const out: EvidenceRecord[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.owner) || !containsNormalized(f, r.norm)) continue;
    seen.add(r.owner);
    const locator = { kind: r.loc_kind, parts: JSON.parse(r.loc_parts) as [string, string][] };
    out.push(
      r.revision === null
        ? { id: r.id, source: r.source, locator, text: r.text }
        : { id: r.id, source: r.source, locator, text: r.text, revision: r.revision },
    );
    if (out.length >= limit) break;
  }
  return out;
}
