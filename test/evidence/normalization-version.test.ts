// The evidence store keeps each record's normalized text; a store written under another
// normalization contract must be rebuilt, never searched with its old normalized text.
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { NORMALIZATION_VERSION, normalize } from "../../src/core/index.js";
import { openWorkspace } from "../../src/evidence/index.js";
import { ghLog, makeWorkspace, runJson } from "./helpers.js";

describe("the evidence store and the normalization contract", () => {
  it("rebuilds a store whose normalized text was written under an earlier contract", async () => {
    const dir = makeWorkspace({
      "runs/9001.json": runJson(9001, "failure", "2026-11-01T10:00:00Z"),
      "logs/9001.log": ghLog([
        "probe dropped to -40 degrees and stayed < 30",
        "##[error]Process completed with exit code 1.",
      ]),
    });
    (await openWorkspace(dir)).close();
    // what a store of the first contract held: the same schema, signs and operators dropped
    const db = new Database(join(dir, ".tessera", "evidence.db"));
    db.prepare("UPDATE meta SET value = 'tessera-evidence-2' WHERE key = 'schema'").run();
    db.prepare("UPDATE records SET norm = replace(replace(norm, '-', ''), ' <', '')").run();
    db.close();

    (await openWorkspace(dir)).close();
    const after = new Database(join(dir, ".tessera", "evidence.db"), { readonly: true });
    try {
      const rows = after.prepare("SELECT text, norm FROM records").all() as { text: string; norm: string }[];
      expect(rows.some((r) => r.norm.includes("-40 degrees and stayed < 30"))).toBe(true);
      for (const r of rows) expect(r.norm).toBe(normalize(r.text));
      const schema = after.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string };
      expect(schema.value).toContain(`norm-${NORMALIZATION_VERSION}`);
    } finally {
      after.close();
    }
  });
});
