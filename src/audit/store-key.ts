/**
 * A store's own secret, the key of its argument and context digests (adr/0071): 32 random bytes
 * made when the store is first opened, kept in the store beside the queue and the audit log, and
 * never printed, exported or put in a message. The review queue and the audit log of one store read
 * the same key, so an approval and the events about it carry the same digests.
 * @module
 */
import { randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import type pg from "pg";

/** How many random bytes a store's key has. */
export const STORE_KEY_BYTES = 32;

/** The store's key in a SQLite file, made now if the file has none (one write transaction). */
export function sqliteStoreKey(db: Database.Database): Buffer {
  return db
    .transaction(() => {
      db.exec(
        "CREATE TABLE IF NOT EXISTS tessera_store_key (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL)",
      );
      // the first opener's key wins; every later one (or a racing one) reads it
      db.prepare("INSERT INTO tessera_store_key (id, secret) VALUES (1, ?) ON CONFLICT DO NOTHING").run(
        randomBytes(STORE_KEY_BYTES),
      );
      return db.prepare("SELECT secret FROM tessera_store_key WHERE id = 1").pluck().get() as Buffer;
    })
    .immediate();
}

/** The store's key in a Postgres schema, made now if it has none; run inside `ensureSchema`'s locked transaction. */
export async function pgStoreKey(client: pg.PoolClient, schema: string): Promise<Buffer> {
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.store_key (id INTEGER PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL)`,
  );
  await client.query(`INSERT INTO ${schema}.store_key (id, secret) VALUES (1, $1) ON CONFLICT DO NOTHING`, [
    randomBytes(STORE_KEY_BYTES),
  ]);
  const r = await client.query<{ secret: Buffer }>(`SELECT secret FROM ${schema}.store_key WHERE id = 1`);
  return r.rows[0]!.secret;
}
