// A version-3 store (before the term index, adr/0111) opened by this code gains the index from
// its stored records, in place: the same answers as a store built afresh, without re-reading files.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openWorkspace } from "../../src/evidence/index.js";
import { MIGRATABLE_SCHEMA_VERSION, SCHEMA_VERSION } from "../../src/evidence/workspace/store.js";
import { ghLog, makeWorkspace, runJson } from "./helpers.js";

const SIG = "E   ConnectionRefusedError: [Errno 111] Connection refused";

function workspace(): string {
  const files: Record<string, string> = {};
  for (let i = 0; i < 6; i++) {
    const id = 9100 + i;
    files[`runs/${id}.json`] = runJson(id, "failure", `2026-11-0${i + 1}T10:00:00Z`);
    files[`logs/${id}.log`] = ghLog([
      i % 2 ? SIG : "FAIL test/a.test.ts",
      "##[error]Process completed with exit code 1.",
    ]);
  }
  return makeWorkspace(files);
}

/** Turn the store into what version 3 wrote: no log_terms or term_counts table, no store id, the old schema name. */
function downgrade(dir: string): void {
  const db = new Database(join(dir, ".tessera", "evidence.db"));
  db.exec("DROP TABLE log_terms; DROP TABLE term_counts; DELETE FROM meta WHERE key <> 'schema'");
  db.prepare("UPDATE meta SET value = ? WHERE key = 'schema'").run(MIGRATABLE_SCHEMA_VERSION);
  db.close();
}

describe("migrating a version-3 evidence store", () => {
  it("builds the term index from the stored records and answers as a fresh store does", async () => {
    const dir = workspace();
    const fresh = await openWorkspace(dir);
    const expected = fresh.findInEarlierLogs(SIG, "9105", 3);
    fresh.close();
    expect(expected.map((r) => r.id)).toEqual(["log:9103:1", "log:9101:1"]);
    downgrade(dir);
    // a corrupted log that the migration must not read: the answer comes from the stored records
    writeFileSync(join(dir, "logs", "9103.log"), "\u0000");
    const migrated = await openWorkspace(dir, { refresh: false });
    try {
      expect(migrated.findInEarlierLogs(SIG, "9105", 3)).toEqual(expected);
    } finally {
      migrated.close();
    }
    const db = new Database(join(dir, ".tessera", "evidence.db"), { readonly: true });
    try {
      const meta = Object.fromEntries(
        (db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((r) => [
          r.key,
          r.value,
        ]),
      );
      expect(meta.schema).toBe(SCHEMA_VERSION);
      expect(meta.store).toMatch(/^[0-9a-f-]{36}$/);
      expect((db.prepare("SELECT count(*) AS n FROM log_terms").get() as { n: number }).n).toBeGreaterThan(0);
      // migrated, not rebuilt: the corrupted log was never ingested
      expect(db.prepare("SELECT skipped FROM files WHERE path = 'logs/9103.log'").get()).toEqual({ skipped: 0 });
    } finally {
      db.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("rebuilds a store of any other version", async () => {
    const dir = workspace();
    (await openWorkspace(dir)).close();
    downgrade(dir);
    const db = new Database(join(dir, ".tessera", "evidence.db"));
    db.prepare("UPDATE meta SET value = 'tessera-evidence-2' WHERE key = 'schema'").run();
    db.prepare("DELETE FROM records WHERE type = 'log'").run();
    db.close();
    const ws = await openWorkspace(dir, { refresh: false });
    try {
      expect(ws.summary.read).toBe(12);
      // the rebuild re-read every file, so the lines deleted above are back
      expect(ws.findInEarlierLogs(SIG, "9105", 3).map((r) => r.id)).toEqual(["log:9103:1", "log:9101:1"]);
    } finally {
      ws.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });
});
