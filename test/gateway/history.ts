// A review queue's history, generated in one INSERT … SELECT (a recursive CTE in SQLite,
// generate_series in Postgres), so a test can fill its own store with a million rows in seconds.
// Row i (1…n) was held at `now - (n - i) s`; its state cycles through every stored state and every
// way a row reads differently from how it is stored: pending rows past their deadline (with and
// without `expires_at`), approvals past theirs, approvals without one, and deadlines exactly at `now`.

export const DAY = 86_400_000;

/** The SELECT list of row `i` (an integer column `i`), in the column order of `HISTORY_COLUMNS`. */
function rowOf(now: number, n: number, hex: string): string {
  const created = `(${now} - (${n} - i) * 1000)`;
  const k = "(i % 20)";
  const state = `CASE WHEN ${k} < 10 OR ${k} = 19 THEN 'consumed' WHEN ${k} < 13 THEN 'denied' WHEN ${k} < 15 THEN 'expired'
    WHEN ${k} < 17 THEN 'pending' ELSE 'approved' END`;
  const decided = `CASE WHEN ${k} < 13 OR ${k} > 16 THEN ${created} + 500 END`;
  // pending 15: a deadline a day after it was held; pending 16: none (an older gateway's row);
  // approved 17: a minute; approved 18: none on every 50th such row, a day on the others
  const expires = `CASE WHEN ${k} < 10 OR ${k} = 19 THEN ${created} + 900000 WHEN ${k} < 13 THEN NULL
    WHEN ${k} < 16 THEN ${created} + ${DAY} WHEN ${k} = 16 THEN NULL WHEN ${k} = 17 THEN ${created} + 60000
    WHEN i % 1000 = 18 THEN NULL ELSE ${created} + ${DAY} END`;
  const consumed = `CASE WHEN ${k} < 10 OR ${k} = 19 THEN ${created} + 600 END`;
  return `'rv_' || ${hex}, ${state}, 'tool_' || (i % 7), 'sha256:a' || ${hex}, 'sha256:policy', '', 'sha256:context',
    '{"order_id":' || i || '}', '[{"kind":"needs_judgment","argument":"order_id","check":1,"source":"billing","status":"mismatch","codes":["not_equal"],"message":null}]',
    60000, ${created}, ${decided}, CASE WHEN ${decided} IS NOT NULL THEN 'ada' END, ${expires}, ${consumed}`;
}

export const HISTORY_COLUMNS =
  "id, state, tool, arguments_digest, policy_digest, effective_digest, context_digest, arguments_json, reasons_json, approval_ttl_ms, created_at, decided_at, decided_by, expires_at, consumed_at";

/** The statement that adds rows 1…n to SQLite's `gateway_reviews`. */
export function sqliteHistory(n: number, now: number): string {
  return `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${n})
    INSERT INTO gateway_reviews (${HISTORY_COLUMNS}) SELECT ${rowOf(now, n, "printf('%012x', i)")} FROM seq`;
}

/** The statement that adds rows 1…n to Postgres's `<schema>.reviews`. */
export function pgHistory(schema: string, n: number, now: number): string {
  return `INSERT INTO ${schema}.reviews (${HISTORY_COLUMNS})
    SELECT ${rowOf(now, n, "lpad(to_hex(i), 12, '0')")} FROM generate_series(1::bigint, ${n}::bigint) AS g(i)`;
}
