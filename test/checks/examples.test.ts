// examples/refunds: the committed billing.db is what billing.sql builds, so a fresh clone works
// and the data cannot drift from its readable source.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

const here = new URL("../../examples/refunds/", import.meta.url).pathname;

function dump(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare(
        "SELECT name, sql FROM sqlite_schema WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string; sql: string }[];
    return tables.map((t) => ({
      ...t,
      rows: t.sql.startsWith("CREATE TABLE") ? db.prepare(`SELECT * FROM "${t.name}" ORDER BY 1`).all() : null,
    }));
  } finally {
    db.close();
  }
}

describe("examples/refunds", () => {
  it("billing.db holds exactly what billing.sql builds", () => {
    const out = join(mkdtempSync(join(tmpdir(), "tessera-example-")), "billing.db");
    execFileSync(process.execPath, [join(here, "build-db.mjs"), out], { stdio: "ignore" });
    expect(dump(join(here, "billing.db"))).toEqual(dump(out));
  });
});
