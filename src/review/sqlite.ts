/**
 * The review queue over SQLite (the default store): WAL, `synchronous=FULL`, each mutation one
 * transaction, so a crash never leaves half a review. The file may be shared with the audit log.
 * @module
 */
import Database from "better-sqlite3";
import { sqliteStoreKey } from "../audit/store-key.js";
import { keyedDigestOf } from "../platform/digest.js";
import { TesseraError } from "../platform/errors.js";
import { ensurePrivateFile } from "../platform/private-file.js";
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

const REVIEW_COLUMNS =
  "id, state, tool, arguments_digest, policy_digest, effective_digest, context_digest, arguments_json, reasons_json, approval_ttl_ms, created_at, decided_at, decided_by, decision_reason, expires_at, consumed_at, explained_json";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS gateway_reviews (
  id TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN (${STORED_STATES})),
  tool TEXT NOT NULL,
  arguments_digest TEXT NOT NULL,
  policy_digest TEXT NOT NULL,
  effective_digest TEXT NOT NULL DEFAULT '',
  context_digest TEXT NOT NULL DEFAULT '',
  arguments_json TEXT NOT NULL,
  reasons_json TEXT NOT NULL,
  approval_ttl_ms INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  decided_at INTEGER,
  decided_by TEXT,
  decision_reason TEXT,
  expires_at INTEGER,
  consumed_at INTEGER,
  explained_json TEXT
);
CREATE TABLE IF NOT EXISTS gateway_tool_pins (
  tool TEXT PRIMARY KEY,
  digest TEXT NOT NULL,
  definition_json TEXT NOT NULL,
  pinned_at INTEGER NOT NULL,
  pending_digest TEXT,
  pending_definition_json TEXT,
  changed_at INTEGER
);`;

// Tables from before pending reviews expired cannot store `expired`: SQLite cannot change a CHECK
// in place, so the table is rebuilt (its indexes go with the old one and are made again below).
const ALLOW_EXPIRED = `
ALTER TABLE gateway_reviews RENAME TO gateway_reviews_before_expiry;
${SCHEMA}
INSERT INTO gateway_reviews (${REVIEW_COLUMNS}) SELECT ${REVIEW_COLUMNS} FROM gateway_reviews_before_expiry;
DROP TABLE gateway_reviews_before_expiry;`;

// Tables from before approvals were bound to the trusted context gain the column; their rows keep
// '' and so can never match a call again (fail closed).
const INDEXES = `
DROP INDEX IF EXISTS gateway_reviews_one_pending;
DROP INDEX IF EXISTS gateway_reviews_by_call;
CREATE UNIQUE INDEX IF NOT EXISTS gateway_reviews_one_pending_call
  ON gateway_reviews (tool, arguments_digest, policy_digest, effective_digest, context_digest) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS gateway_reviews_by_call_state
  ON gateway_reviews (tool, arguments_digest, policy_digest, effective_digest, context_digest, state);
CREATE INDEX IF NOT EXISTS gateway_reviews_by_state_deadline ON gateway_reviews (state, ${DEADLINE}, expires_at);
CREATE INDEX IF NOT EXISTS gateway_reviews_by_state_created ON gateway_reviews (state, created_at, id);
CREATE INDEX IF NOT EXISTS gateway_reviews_by_created ON gateway_reviews (created_at, id);`;

// Without statistics SQLite would walk a state in listing order even where most of its stored rows
// read as another state by now (pending and approved rows past their deadline): those two are read
// by their deadline, the states a row keeps once stored in listing order, and `expired` as the
// listing-order merge of its three kinds of row (stored so, pending or approved past the deadline).
const BY_DEADLINE = "gateway_reviews INDEXED BY gateway_reviews_by_state_deadline";
const BY_STATE = "gateway_reviews INDEXED BY gateway_reviews_by_state_created";
const ARMS: Readonly<Record<ReviewState, readonly (readonly [string, string])[]>> = {
  pending: [[BY_DEADLINE, stateCondition("pending", "@now")]],
  approved: [[BY_DEADLINE, stateCondition("approved", "@now")]],
  denied: [[BY_STATE, stateCondition("denied", "@now")]],
  consumed: [[BY_STATE, stateCondition("consumed", "@now")]],
  expired: [
    [BY_STATE, "state = 'expired'"],
    [BY_STATE, `state = 'pending' AND ${DEADLINE} <= @now`],
    [BY_STATE, `state = 'approved' AND expires_at IS NOT NULL AND ${DEADLINE} <= @now`],
  ],
};

/** The listing (or count) of `state` (every state when undefined), after a cursor and up to a limit. */
function listingSql(state: ReviewState | undefined, after: boolean, limit: boolean, count: boolean): string {
  const arms =
    state === undefined ? [["gateway_reviews INDEXED BY gateway_reviews_by_created", ""] as const] : ARMS[state];
  // a count reads the deadline index alone (it holds state, deadline and expiry: no row is read)
  const selects = arms.map(([listFrom, condition]) => {
    const from = count && state !== undefined ? BY_DEADLINE : listFrom;
    const where = [
      ...(condition === "" ? [] : [condition]),
      ...(after ? ["(created_at, id) > (@after_at, @after_id)"] : []),
    ];
    return `SELECT ${count ? "count(*) AS n" : "*"} FROM ${from}${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`}`;
  });
  if (count) return `SELECT sum(n) FROM (${selects.join(" UNION ALL ")})`;
  return `${selects.join(" UNION ALL ")} ORDER BY created_at, id${limit ? " LIMIT @limit" : ""}`;
}

// indexes from before approvals were bound to the effective policy lack its column: made again
const INDEXES_WITHOUT_EFFECTIVE = `
DROP INDEX IF EXISTS gateway_reviews_one_pending_call;
DROP INDEX IF EXISTS gateway_reviews_by_call_state;`;

/** Open (creating if needed) the review queue in a SQLite file. */
export function openSqliteReviewStore(file: string): ReviewStore {
  let db: Database.Database;
  let key: Buffer;
  try {
    if (file !== ":memory:") ensurePrivateFile(file);
    db = new Database(file, { timeout: 10_000 });
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    // one write transaction, so instances opening one file together migrate it once
    db.transaction(() => {
      db.exec(SCHEMA);
      const columns = db.pragma("table_info(gateway_reviews)") as { name: string }[];
      if (!columns.some((c) => c.name === "context_digest"))
        db.exec("ALTER TABLE gateway_reviews ADD COLUMN context_digest TEXT NOT NULL DEFAULT ''");
      // from before approvals were bound to the effective policy: old rows keep '' and never match
      if (!columns.some((c) => c.name === "effective_digest"))
        db.exec("ALTER TABLE gateway_reviews ADD COLUMN effective_digest TEXT NOT NULL DEFAULT ''");
      // from before denials carried a reason
      if (!columns.some((c) => c.name === "decision_reason"))
        db.exec("ALTER TABLE gateway_reviews ADD COLUMN decision_reason TEXT");
      // from before holds kept their explained checks (adr/0116): old rows show codes only
      if (!columns.some((c) => c.name === "explained_json"))
        db.exec("ALTER TABLE gateway_reviews ADD COLUMN explained_json TEXT");
      const table = db
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'gateway_reviews'")
        .pluck()
        .get() as string;
      if (!table.includes("'expired'")) db.exec(ALLOW_EXPIRED);
      const pendingIndex = db
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'gateway_reviews_one_pending_call'")
        .pluck()
        .get() as string | undefined;
      if (pendingIndex !== undefined && !pendingIndex.includes("effective_digest")) db.exec(INDEXES_WITHOUT_EFFECTIVE);
      db.exec(INDEXES);
    }).immediate();
    key = sqliteStoreKey(db);
  } catch (err) {
    throw new TesseraError(
      "store_unavailable",
      `cannot open review store \`${file}\`: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const insert = db.prepare(
    `INSERT INTO gateway_reviews (${HOLD_COLUMNS}, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending') ON CONFLICT DO NOTHING`,
  );
  // a pending review nobody decided in time steps aside, so the same call can be held anew
  const expirePending = db.prepare(
    `UPDATE gateway_reviews SET state = 'expired'
     WHERE tool = ? AND arguments_digest = ? AND policy_digest = ? AND effective_digest = ? AND context_digest = ? AND state = 'pending' AND ${DEADLINE} <= ?`,
  );
  const pendingOf = db.prepare(
    `SELECT * FROM gateway_reviews WHERE tool = ? AND arguments_digest = ? AND policy_digest = ? AND effective_digest = ? AND context_digest = ? AND state = 'pending'`,
  );
  const byId = db.prepare(`SELECT * FROM gateway_reviews WHERE id = ?`);
  const latestOf = db.prepare(
    `SELECT * FROM gateway_reviews WHERE tool = ? AND arguments_digest = ? AND policy_digest = ? AND effective_digest = ? AND context_digest = ?
     ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  );
  // one statement: SQLite runs it atomically, so two callers can never consume one approval
  const consume = db.prepare(
    `UPDATE gateway_reviews SET state = 'consumed', consumed_at = ?
     WHERE id = (SELECT id FROM gateway_reviews
                 WHERE tool = ? AND arguments_digest = ? AND policy_digest = ? AND effective_digest = ? AND context_digest = ? AND state = 'approved' AND expires_at > ?
                 ORDER BY decided_at, id LIMIT 1)
     RETURNING *`,
  );
  const approve = db.prepare(
    `UPDATE gateway_reviews SET state = 'approved', decided_at = ?, decided_by = ?, expires_at = ?
     WHERE id = ? AND state = 'pending' AND ${DEADLINE} > ? RETURNING *`,
  );
  const deny = db.prepare(
    `UPDATE gateway_reviews SET state = 'denied', decided_at = ?, decided_by = ?, decision_reason = ?, expires_at = NULL
     WHERE id = ? AND (state = 'pending' OR (state = 'approved' AND ? = 0)) AND ${DEADLINE} > ? RETURNING *`,
  );
  // what the review page polls: it moves when a review is held, decided or used, or a pin changes
  const stamp = db
    .prepare(
      `SELECT (SELECT count(*) || ':' || COALESCE(max(created_at), 0) || ':' || COALESCE(max(decided_at), 0) || ':' || COALESCE(max(consumed_at), 0) FROM gateway_reviews)
       || '/' || (SELECT count(*) || ':' || COALESCE(max(pinned_at), 0) || ':' || COALESCE(max(changed_at), 0) FROM gateway_tool_pins)`,
    )
    .pluck();
  const cursorOf = db.prepare(`SELECT created_at, id FROM gateway_reviews WHERE id = ?`);
  // one statement per (state, page) shape, each over the index ARMS names, so no row is loaded that is not returned
  const listings = new Map<string, Database.Statement>();
  const listing = (state: ReviewState | undefined, after: boolean, limit: boolean, count: boolean) => {
    const shape = `${state ?? "all"}/${after}/${limit}/${count}`;
    let statement = listings.get(shape);
    if (statement === undefined) {
      statement = db.prepare(listingSql(state, after, limit, count));
      if (count) statement.pluck();
      listings.set(shape, statement);
    }
    return statement;
  };
  const pin = db.prepare(`SELECT * FROM gateway_tool_pins WHERE tool = ?`);
  // read on every call: the digest alone, not the definitions' JSON
  const pinDigest = db.prepare(`SELECT digest FROM gateway_tool_pins WHERE tool = ?`).pluck();
  const insertPin = db.prepare(
    `INSERT INTO gateway_tool_pins (tool, digest, definition_json, pinned_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const markChanged = db.prepare(
    `UPDATE gateway_tool_pins SET pending_digest = ?, pending_definition_json = ?, changed_at = ? WHERE tool = ? AND pending_digest IS NOT ?`,
  );
  const acceptPin = db.prepare(
    `UPDATE gateway_tool_pins SET digest = pending_digest, definition_json = pending_definition_json, pinned_at = ?,
       pending_digest = NULL, pending_definition_json = NULL, changed_at = NULL
     WHERE tool = ? AND pending_digest = ? RETURNING *`,
  );

  const seeTool = db.transaction((tool: string, digest: string, definition: unknown, now: number): PinCheck => {
    if (insertPin.run(tool, digest, JSON.stringify(definition), now).changes === 1) {
      return { status: "pinned", pinned_digest: digest, newly_changed: false };
    }
    const row = pin.get(tool) as PinRow;
    if (row.digest === digest) return { status: "matches", pinned_digest: digest, newly_changed: false };
    const changed = markChanged.run(digest, JSON.stringify(definition), now, tool, digest).changes === 1;
    return { status: "changed", pinned_digest: row.digest, newly_changed: changed };
  });

  // insert-or-find in one transaction, so the pending row cannot change in between
  const hold = db.transaction((input: NewHold, now: number) => {
    expirePending.run(
      input.tool,
      input.arguments_digest,
      input.policy_digest,
      input.effective_digest ?? "",
      input.context_digest,
      now,
    );
    const created = insert.run(...holdValues(input, now)).changes === 1;
    const row = pendingOf.get(
      input.tool,
      input.arguments_digest,
      input.policy_digest,
      input.effective_digest ?? "",
      input.context_digest,
    ) as ReviewRow;
    return { review: reviewOf(row, now), created };
  });

  const store: ReviewStore = {
    kind: "sqlite",
    digest: (value) => keyedDigestOf(key, value),
    async hold(input: NewHold, now: number) {
      return hold.immediate(input, now);
    },
    async consume(key: CallKey, now: number) {
      const row = consume.get(
        now,
        key.tool,
        key.arguments_digest,
        key.policy_digest,
        key.effective_digest ?? "",
        key.context_digest,
        now,
      ) as ReviewRow | undefined;
      return row === undefined ? null : reviewOf(row, now);
    },
    async get(id: string, now: number) {
      const row = byId.get(id) as ReviewRow | undefined;
      return row === undefined ? null : reviewOf(row, now);
    },
    async latest(key: CallKey, now: number) {
      const row = latestOf.get(
        key.tool,
        key.arguments_digest,
        key.policy_digest,
        key.effective_digest ?? "",
        key.context_digest,
      ) as ReviewRow | undefined;
      return row === undefined ? null : reviewOf(row, now);
    },
    waitForDecision(id: string, options: WaitOptions) {
      return pollDecision(store.get, id, options);
    },
    async list(now: number, state?: ReviewState, page: ListPage = {}) {
      const params: Record<string, unknown> = {};
      if (state !== undefined) params.now = now;
      if (page.limit !== undefined) params.limit = checkLimit(page.limit);
      if (page.after !== undefined) {
        const cursor = cursorOf.get(page.after) as { created_at: number; id: string } | undefined;
        if (cursor === undefined) throw unknownCursor(page.after);
        params.after_at = cursor.created_at;
        params.after_id = cursor.id;
      }
      const rows = listing(state, page.after !== undefined, page.limit !== undefined, false).all(params) as ReviewRow[];
      return rows.map((r) => reviewOf(r, now));
    },
    async count(now: number, state?: ReviewState) {
      return (listing(state, false, false, true).get(state === undefined ? {} : { now }) as number | null) ?? 0;
    },
    async queue(now: number, query: QueueQuery) {
      const q = checkQueueQuery(query);
      const where = [
        q.state === undefined ? "1 = 1" : stateCondition(q.state, "@now"),
        q.tool === undefined ? "1 = 1" : "tool = @tool",
      ].join(" AND ");
      const params = { now, tool: q.tool ?? null, limit: q.limit, offset: q.offset };
      const rows = db
        .prepare(
          `SELECT ${QUEUE_COLUMNS} FROM gateway_reviews WHERE ${where} ORDER BY created_at, id LIMIT @limit OFFSET @offset`,
        )
        .all(params) as ReviewRow[];
      const total = db.prepare(`SELECT count(*) FROM gateway_reviews WHERE ${where}`).pluck().get(params) as number;
      return { reviews: rows.map((r) => reviewOf(r, now)), total };
    },
    async stamp() {
      return stamp.get() as string;
    },
    async approve(id: string, by: string, now: number, ttlMs?: number) {
      const current = byId.get(id) as ReviewRow | undefined;
      const ttl = checkTtl(ttlMs ?? Number(current?.approval_ttl_ms ?? 1));
      const row = approve.get(now, by, now + ttl, id, now) as ReviewRow | undefined;
      if (row === undefined) throw notActionable(current === undefined ? null : reviewOf(current, now), id, "approve");
      return reviewOf(row, now);
    },
    async deny(id: string, by: string, now: number, reason?: string, options?: DenyOptions) {
      const pendingOnly = options?.pendingOnly === true ? 1 : 0;
      const row = deny.get(now, by, checkDenyReason(reason), id, pendingOnly, now) as ReviewRow | undefined;
      if (row === undefined) {
        const current = byId.get(id) as ReviewRow | undefined;
        throw notActionable(current === undefined ? null : reviewOf(current, now), id, "deny");
      }
      return reviewOf(row, now);
    },
    async seeTool(tool: string, digest: string, definition: unknown, now: number) {
      return seeTool.immediate(tool, digest, definition, now);
    },
    async pinnedDigest(tool: string) {
      return (pinDigest.get(tool) as string | undefined) ?? null;
    },
    async tools(): Promise<ToolPin[]> {
      return (db.prepare(`SELECT * FROM gateway_tool_pins ORDER BY tool`).all() as PinRow[]).map(pinOf);
    },
    async approveTool(tool: string, digest: string, now: number) {
      const row = acceptPin.get(now, tool, digest) as PinRow | undefined;
      if (row === undefined) throw notApprovable(tool, digest, (pin.get(tool) as PinRow | undefined) ?? null);
      return pinOf(row);
    },
    async close() {
      if (db.open) db.close();
    },
  };
  return store;
}
