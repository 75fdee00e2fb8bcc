// Rebuild examples/refunds/billing.db from billing.sql (the committed .db is this script's output;
// test/checks/examples.test.ts checks that the two agree). Usage: node examples/refunds/build-db.mjs [out.db]
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "billing.db"));
rmSync(out, { force: true });
const db = new Database(out);
db.pragma("journal_mode = DELETE");
db.exec(readFileSync(join(here, "billing.sql"), "utf8"));
db.exec("VACUUM");
db.close();
process.stderr.write(`wrote ${out}\n`);
