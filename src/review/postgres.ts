/**
 * The review queue over Postgres, so several gateway instances share one queue: each mutation is
 * one statement or transaction, and consuming an approval locks its row (`FOR UPDATE SKIP LOCKED`)
 * so two instances can never forward one approved call twice.
 * @module
 */
import type pg from "pg";
import { ensureSchema, openStorePool, pgLocation, redact, storeQuery } from "../audit/pg-store.js";
import { keyedDigestOf } from "../platform/digest.js";
import { TesseraError } from "../platform/errors.js";
import {
  checkDenyReason,
  checkLimit,
  checkTtl,
  DEADLINE,
  HOLD_COLUMNS,
  holdValues,
  notActionable,
  notApprovable,
  type PinRow,
  pinOf,
  reviewOf,
  type ReviewRow,
  STORED_STATES,
  stateCondition,
  unknownCursor,
} from "./records.js";
import { checkQueueQuery, QUEUE_COLUMNS } from "./queue-sql.js";
import type {
  CallKey,
  DenyOptions,
  ListPage,
  NewHold,
  PinCheck,
  QueueQuery,
  ReviewState,
  ReviewStore,
  ToolPin,
  WaitOptions,
} from "./types.js";
import { pollDecision } from "./wait.js";

/** The queue and pin tables (the audit table lives in src/audit/postgres.ts). */
function schemaSql(s: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.reviews (
  id TEXT PRIMARY KEY,
  state TEXT NOT NULL CONSTRAINT reviews_state CHECK (state IN (${STORED_STATES})),
  tool TEXT NOT NULL,
  arguments_digest TEXT NOT NULL,
  policy_digest TEXT NOT NULL,
  effective_digest TEXT NOT NULL DEFAULT '',
  context_digest TEXT NOT NULL DEFAULT '',
  arguments_json TEXT NOT NULL,
  reasons_json TEXT NOT NULL,
  approval_ttl_ms BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  decided_at BIGINT,
  decided_by TEXT,
  decision_reason TEXT,
  expires_at BIGINT,
  consumed_at BIGINT,
  explained_json TEXT
);
-- tables from before approvals were bound to the trusted context: old rows keep '' and never match
ALTER TABLE ${s}.reviews ADD COLUMN IF NOT EXISTS context_digest TEXT NOT NULL DEFAULT '';
-- tables from before approvals were bound to the effective policy: old rows keep '' and never match
ALTER TABLE ${s}.reviews ADD COLUMN IF NOT EXISTS effective_digest TEXT NOT NULL DEFAULT '';
-- tables from before denials carried a reason
ALTER TABLE ${s}.reviews ADD COLUMN IF NOT EXISTS decision_reason TEXT;
-- tables from before holds kept their explained checks (adr/0116): old rows show codes only
ALTER TABLE ${s}.reviews ADD COLUMN IF NOT EXISTS explained_json TEXT;
-- tables from before pending reviews expired: their state check (named by Postgres) lacks 'expired'
ALTER TABLE ${s}.reviews DROP CONSTRAINT IF EXISTS reviews_state_check;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'reviews_state' AND conrelid = '${s}.reviews'::regclass) THEN
    ALTER TABLE ${s}.reviews ADD CONSTRAINT reviews_state CHECK (state IN (${STORED_STATES}));
  END IF;
END $$;
DROP INDEX IF EXISTS ${s}.reviews_one_pending;
DROP INDEX IF EXISTS ${s}.reviews_by_call;
-- indexes from before approvals were bound to the effective policy lack its column: made again
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = '${s}' AND indexname = 'reviews_one_pending_call' AND indexdef NOT LIKE '%effective_digest%') THEN
    DROP INDEX ${s}.reviews_one_pending_call;
    DROP INDEX IF EXISTS ${s}.reviews_by_call_state;
  END IF;
END $$;
CREATE UNIQUE INDEX IF NOT EXISTS reviews_one_pending_call ON ${s}.reviews (tool, arguments_digest, policy_digest, effective_digest, context_digest) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS reviews_by_call_state ON ${s}.reviews (tool, arguments_digest, policy_digest, effective_digest, context_digest, state);
CREATE INDEX IF NOT EXISTS reviews_by_state_deadline ON ${s}.reviews (state, (${DEADLINE}));
CREATE INDEX IF NOT EXISTS reviews_by_state_created ON ${s}.reviews (state, created_at, id);
CREATE INDEX IF NOT EXISTS reviews_by_created ON ${s}.reviews (created_at, id);
CREATE TABLE IF NOT EXISTS ${s}.tool_pins (
  tool TEXT PRIMARY KEY,
  digest TEXT NOT NULL,
  definition_json TEXT NOT NULL,
  pinned_at BIGINT NOT NULL,
  pending_digest TEXT,
  pending_definition_json TEXT,
  changed_at BIGINT
);`;
}

/**
 * Open the review queue in a Postgres schema, creating its tables when needed; with `mustExist`,
 * a schema without the queue is `store_missing` and nothing is created.
 */
export async function openPgReviewStore(
  storeUrl: string,
  options: { readonly mustExist?: boolean } = {},
): Promise<ReviewStore> {
  const { url, schema: s } = pgLocation(storeUrl);
  const pool = openStorePool(url);
  let key: Buffer;
  try {
    key = await ensureSchema(pool, s, schemaSql(s), {
      storeUrl,
      ...(options.mustExist ? { mustExist: "reviews" } : {}),
    });
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof TesseraError) throw err;
    throw new TesseraError(
      "store_unavailable",
      `cannot open review store \`${redact(storeUrl)}\`: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const query = storeQuery(pool, "review store", storeUrl);
  const one = async <R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R | undefined> =>
    (await query<R>(sql, params)).rows[0];
  const byId = (id: string) => one<ReviewRow>(`SELECT * FROM ${s}.reviews WHERE id = $1`, [id]);
  const pinRow = (tool: string) => one<PinRow>(`SELECT * FROM ${s}.tool_pins WHERE tool = $1`, [tool]);

  const store: ReviewStore = {
    kind: "postgres",
    digest: (value) => keyedDigestOf(key, value),
    async hold(input: NewHold, now: number) {
      for (;;) {
        // a pending review nobody decided in time steps aside, so the same call can be held anew
        await query(
          `UPDATE ${s}.reviews SET state = 'expired'
           WHERE tool = $1 AND arguments_digest = $2 AND policy_digest = $3 AND context_digest = $4 AND effective_digest = $6 AND state = 'pending' AND ${DEADLINE} <= $5`,
          [
            input.tool,
            input.arguments_digest,
            input.policy_digest,
            input.context_digest,
            now,
            input.effective_digest ?? "",
          ],
        );
        const inserted = await one<ReviewRow>(
          `INSERT INTO ${s}.reviews (${HOLD_COLUMNS}, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending')
           ON CONFLICT (tool, arguments_digest, policy_digest, effective_digest, context_digest) WHERE state = 'pending' DO NOTHING RETURNING *`,
          holdValues(input, now),
        );
        if (inserted !== undefined) return { review: reviewOf(inserted, now), created: true };
        const existing = await one<ReviewRow>(
          `SELECT * FROM ${s}.reviews WHERE tool = $1 AND arguments_digest = $2 AND policy_digest = $3 AND context_digest = $4 AND effective_digest = $5 AND state = 'pending'`,
          [input.tool, input.arguments_digest, input.policy_digest, input.context_digest, input.effective_digest ?? ""],
        );
        // a reviewer acted between the two statements: try again
        if (existing !== undefined) return { review: reviewOf(existing, now), created: false };
      }
    },
    async consume(key: CallKey, now: number) {
      const row = await one<ReviewRow>(
        `UPDATE ${s}.reviews SET state = 'consumed', consumed_at = $5
         WHERE id = (SELECT id FROM ${s}.reviews
                     WHERE tool = $1 AND arguments_digest = $2 AND policy_digest = $3 AND context_digest = $6 AND effective_digest = $7 AND state = 'approved' AND expires_at > $4
                     ORDER BY decided_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
           AND state = 'approved'
         RETURNING *`,
        [key.tool, key.arguments_digest, key.policy_digest, now, now, key.context_digest, key.effective_digest ?? ""],
      );
      return row === undefined ? null : reviewOf(row, now);
    },
    async get(id: string, now: number) {
      const row = await byId(id);
      return row === undefined ? null : reviewOf(row, now);
    },
    async latest(key: CallKey, now: number) {
      const row = await one<ReviewRow>(
        `SELECT * FROM ${s}.reviews WHERE tool = $1 AND arguments_digest = $2 AND policy_digest = $3 AND effective_digest = $4 AND context_digest = $5
         ORDER BY created_at DESC, id DESC LIMIT 1`,
        [key.tool, key.arguments_digest, key.policy_digest, key.effective_digest ?? "", key.context_digest],
      );
      return row === undefined ? null : reviewOf(row, now);
    },
    waitForDecision(id: string, options: WaitOptions) {
      return pollDecision(store.get, id, options);
    },
    async list(now: number, state?: ReviewState, page: ListPage = {}) {
      // the state's condition uses reviews_by_state_deadline; a listing of every state walks reviews_by_created
      const params: unknown[] = [];
      const where: string[] = [];
      // a stored state's condition names no time, and Postgres refuses a parameter it cannot type
      if (state !== undefined) {
        const condition = stateCondition(state, `$${params.length + 1}::bigint`);
        if (condition.includes("$")) params.push(now);
        where.push(condition);
      }
      if (page.after !== undefined) {
        const cursor = await one<{ created_at: string; id: string }>(
          `SELECT created_at, id FROM ${s}.reviews WHERE id = $1`,
          [page.after],
        );
        if (cursor === undefined) throw unknownCursor(page.after);
        params.push(cursor.created_at, cursor.id);
        where.push(`(created_at, id) > ($${params.length - 1}::bigint, $${params.length})`);
      }
      let limit = "";
      if (page.limit !== undefined) {
        params.push(checkLimit(page.limit));
        limit = ` LIMIT $${params.length}`;
      }
      const condition = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
      const rows = (
        await query<ReviewRow>(`SELECT * FROM ${s}.reviews${condition} ORDER BY created_at, id${limit}`, params)
      ).rows;
      return rows.map((r) => reviewOf(r, now));
    },
    async count(now: number, state?: ReviewState) {
      const condition = state === undefined ? "" : ` WHERE ${stateCondition(state, "$1::bigint")}`;
      const r = await query<{ n: string }>(
        `SELECT count(*) AS n FROM ${s}.reviews${condition}`,
        condition.includes("$") ? [now] : [],
      );
      return Number(r.rows[0]!.n);
    },
    async queue(now: number, asked: QueueQuery) {
      const q = checkQueueQuery(asked);
      // $1 is typed here, since a state without a deadline (denied, consumed) does not use it
      const where = `$1::bigint IS NOT NULL AND ${q.state === undefined ? "TRUE" : stateCondition(q.state, "$1")} AND ($2::text IS NULL OR tool = $2)`;
      const [page, count] = await Promise.all([
        query<ReviewRow>(
          `SELECT ${QUEUE_COLUMNS} FROM ${s}.reviews WHERE ${where} ORDER BY created_at, id LIMIT $3 OFFSET $4`,
          [now, q.tool ?? null, q.limit, q.offset],
        ),
        query<{ n: string }>(`SELECT count(*) AS n FROM ${s}.reviews WHERE ${where}`, [now, q.tool ?? null]),
      ]);
      return { reviews: page.rows.map((r) => reviewOf(r, now)), total: Number(count.rows[0]!.n) };
    },
    async stamp() {
      // what the review page polls: it moves when a review is held, decided or used, or a pin changes
      const r = await query<{ stamp: string }>(
        `SELECT (SELECT count(*) || ':' || COALESCE(max(created_at), 0) || ':' || COALESCE(max(decided_at), 0) || ':' || COALESCE(max(consumed_at), 0) FROM ${s}.reviews)
           || '/' || (SELECT count(*) || ':' || COALESCE(max(pinned_at), 0) || ':' || COALESCE(max(changed_at), 0) FROM ${s}.tool_pins) AS stamp`,
      );
      return r.rows[0]!.stamp;
    },
    async approve(id: string, by: string, now: number, ttlMs?: number) {
      const current = await byId(id);
      const ttl = checkTtl(ttlMs ?? Number(current?.approval_ttl_ms ?? 1));
      const row = await one<ReviewRow>(
        `UPDATE ${s}.reviews SET state = 'approved', decided_at = $1, decided_by = $2, expires_at = $3
         WHERE id = $4 AND state = 'pending' AND ${DEADLINE} > $1 RETURNING *`,
        [now, by, now + ttl, id],
      );
      if (row === undefined) throw notActionable(current === undefined ? null : reviewOf(current, now), id, "approve");
      return reviewOf(row, now);
    },
    async deny(id: string, by: string, now: number, reason?: string, options?: DenyOptions) {
      const row = await one<ReviewRow>(
        `UPDATE ${s}.reviews SET state = 'denied', decided_at = $1, decided_by = $2, decision_reason = $4, expires_at = NULL
         WHERE id = $3 AND (state = 'pending' OR (state = 'approved' AND NOT $5::boolean)) AND ${DEADLINE} > $1 RETURNING *`,
        [now, by, id, checkDenyReason(reason), options?.pendingOnly === true],
      );
      if (row === undefined) {
        const current = await byId(id);
        throw notActionable(current === undefined ? null : reviewOf(current, now), id, "deny");
      }
      return reviewOf(row, now);
    },
    async seeTool(tool: string, digest: string, definition: unknown, now: number): Promise<PinCheck> {
      const inserted = await one<PinRow>(
        `INSERT INTO ${s}.tool_pins (tool, digest, definition_json, pinned_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING *`,
        [tool, digest, JSON.stringify(definition), now],
      );
      if (inserted !== undefined) return { status: "pinned", pinned_digest: digest, newly_changed: false };
      const row = (await pinRow(tool))!;
      if (row.digest === digest) return { status: "matches", pinned_digest: digest, newly_changed: false };
      const changed = await one<PinRow>(
        `UPDATE ${s}.tool_pins SET pending_digest = $1, pending_definition_json = $2, changed_at = $3
         WHERE tool = $4 AND digest <> $1 AND pending_digest IS DISTINCT FROM $1 RETURNING *`,
        [digest, JSON.stringify(definition), now, tool],
      );
      return { status: "changed", pinned_digest: row.digest, newly_changed: changed !== undefined };
    },
    async pinnedDigest(tool: string) {
      // read on every call: the digest alone, not the definitions' JSON
      const r = await query<{ digest: string }>(`SELECT digest FROM ${s}.tool_pins WHERE tool = $1`, [tool]);
      return r.rows[0]?.digest ?? null;
    },
    async tools(): Promise<ToolPin[]> {
      return (await query<PinRow>(`SELECT * FROM ${s}.tool_pins ORDER BY tool`)).rows.map(pinOf);
    },
    async approveTool(tool: string, digest: string, now: number) {
      const row = await one<PinRow>(
        `UPDATE ${s}.tool_pins SET digest = pending_digest, definition_json = pending_definition_json, pinned_at = $1,
           pending_digest = NULL, pending_definition_json = NULL, changed_at = NULL
         WHERE tool = $2 AND pending_digest = $3 RETURNING *`,
        [now, tool, digest],
      );
      if (row === undefined) throw notApprovable(tool, digest, (await pinRow(tool)) ?? null);
      return pinOf(row);
    },
    async close() {
      await pool.end().catch(() => undefined);
    },
  };
  return store;
}
