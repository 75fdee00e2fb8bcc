/**
 * Open the gateway's store — review queue, tool pins and audit log — from one `--store` value:
 * a SQLite file (default `.tessera/gateway.db`; the queue and the audit log share the file) or a
 * `postgres://…[?schema=name]` URL shared by several gateway instances.
 * @module
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { openAuditLog, readAuditEvents } from "../audit/log.js";
import type { AuditQuery } from "../audit/query.js";
import { TesseraError } from "../platform/errors.js";
import type { ReviewStore } from "./types.js";

/** The environment variable naming the store when `--store` is not given. */
export const STORE_ENV = "TESSERA_STORE";
/** The store used when neither `--store` nor `TESSERA_STORE` is set, relative to the working directory. */
export const DEFAULT_STORE = ".tessera/gateway.db";

/** Where events go: SQLite commits the events queued during one callback of the event loop together (adr/0114). */
export interface EventLog {
  /** Append one event of `type`; resolves once it is committed. */
  append(type: string, payload: Record<string, unknown>): unknown;
  /** Release the log. */
  close(): unknown;
}

/** An open store: the queue and the audit log over one location. */
export interface GatewayStore {
  readonly kind: "sqlite" | "postgres";
  /** The SQLite file, or the Postgres URL (as given). */
  readonly location: string;
  readonly reviews: ReviewStore;
  readonly audit: EventLog;
  /** Close the queue and the audit log. */
  close(): Promise<void>;
}

/** True for `postgres://` and `postgresql://` store values. */
export function isPostgres(store: string): boolean {
  return /^postgres(ql)?:\/\//i.test(store);
}

/**
 * The store a command uses: `--store`, else `TESSERA_STORE`, else `.tessera/gateway.db` (files
 * resolve against `cwd`).
 */
export function resolveStore(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string {
  const given =
    flag !== undefined && flag !== ""
      ? flag
      : env[STORE_ENV] !== undefined && env[STORE_ENV] !== ""
        ? env[STORE_ENV]!
        : DEFAULT_STORE;
  return isPostgres(given) ? given : resolve(cwd, given);
}

/**
 * Open the queue and the audit log at `store`, creating their tables when needed. With
 * `mustExist`, a store that is not there — a SQLite file, or a Postgres schema without the queue
 * and the log — is `store_missing` (a mistyped `--store` or `?schema=`; the CLI's `--create` lifts it).
 */
export async function openGatewayStore(
  store: string,
  options: { clock?: () => number; mustExist?: boolean } = {},
): Promise<GatewayStore> {
  const clock = options.clock ?? Date.now;
  if (isPostgres(store)) {
    const [{ openPgReviewStore }, { openPgAuditLog }] = await Promise.all([
      import("./postgres.js"),
      import("../audit/postgres.js"),
    ]);
    const mustExist = options.mustExist === true;
    const reviews = await openPgReviewStore(store, { mustExist });
    let audit;
    try {
      audit = await openPgAuditLog(store, { clock, mustExist });
    } catch (err) {
      await reviews.close();
      throw err;
    }
    return {
      kind: "postgres",
      location: store,
      reviews,
      audit,
      async close() {
        await reviews.close();
        await audit.close();
      },
    };
  }
  if (options.mustExist && !existsSync(store)) {
    throw new TesseraError(
      "store_missing",
      `no gateway store \`${store}\` (give the gateway's \`--store\`, or set ${STORE_ENV}; \`--create\` creates it)`,
    );
  }
  mkdirSync(dirname(store), { recursive: true });
  const { openSqliteReviewStore } = await import("./sqlite.js");
  const reviews = openSqliteReviewStore(store);
  const log = openAuditLog(store, { clock: () => new Date(clock()) });
  // the gateway's appends: one transaction per turn of the event loop however many calls are in
  // flight, each caller waiting until its event has committed (adr/0114)
  const audit: EventLog = { append: (type, payload) => log.appendGrouped(type, payload), close: () => log.close() };
  return {
    kind: "sqlite",
    location: store,
    reviews,
    audit,
    async close() {
      await reviews.close();
      audit.close();
    },
  };
}

/** The audit events at `store`, oldest first (every one, or those `query` selects), as one JSON text each. */
export async function readAuditLines(store: string, query: AuditQuery = {}): Promise<string[]> {
  if (isPostgres(store)) {
    const { readPgAuditLines } = await import("../audit/postgres.js");
    return readPgAuditLines(store, query);
  }
  return readAuditEvents(store, query).map((e) => JSON.stringify(e));
}
