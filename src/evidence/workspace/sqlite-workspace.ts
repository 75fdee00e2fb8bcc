/**
 * A workspace over its SQLite store: a refresh ingests and summarizes, the queries read records,
 * runs, logs, pull requests, tickets and commits back.
 * @module
 */
import type Database from "better-sqlite3";
import { containsNormalized, type EvidenceRecord, normalize } from "../../core/index.js";
import type { RunInfo } from "../readers.js";
import type { LineTier, ScoreReason, SignatureBasis } from "../signatures.js";
import { summarize } from "./diagnostics.js";
import { refreshStore } from "./ingest.js";
import { prepareStatements, type StoreContext, type StoreStamp, toRecord } from "./store.js";
import { earlierLines } from "./terms.js";
import type { IngestSummary, LogLine, RankedRecord, RefreshInfo, RunSignature, Workspace } from "./types.js";
import { watchOf } from "./watch.js";

const sameStore = (a: StoreStamp, b: StoreStamp): boolean =>
  a.store !== "" && a.store === b.store && a.generation === b.generation;

/** A `Workspace` over an open store. */
export class SqliteWorkspace implements Workspace {
  readonly dir: string;
  lastRefresh: RefreshInfo = { mode: "none", statted: 0 };
  private readonly s: StoreContext;

  constructor(dir: string, db: Database.Database) {
    this.dir = dir;
    this.s = { dir, db, q: prepareStatements(db), prefetch: undefined, storedMtime: (m) => m, termCounts: new Map() };
  }

  private found: IngestSummary | undefined;

  /** The last refresh's summary; before any, the store as found (read when first asked: it reads every file row). */
  get summary(): IngestSummary {
    this.found ??= summarize(this.s, 0, null, 0);
    return this.found;
  }

  private set summary(value: IngestSummary) {
    this.found = value;
  }

  refresh(): IngestSummary {
    return this.fullRefresh().summary;
  }

  private fullRefresh(): { summary: IngestSummary; linked: boolean } {
    const { read, unchanged, removed, statted, linked } = refreshStore(this.s);
    this.summary = summarize(this.s, read, unchanged, removed);
    this.lastRefresh = { mode: "full", statted };
    return { summary: this.summary, linked };
  }

  async refreshChanged(): Promise<IngestSummary> {
    const watch = watchOf(this.dir);
    const clean = watch.clean;
    if (clean !== undefined && (await watch.unchanged()) && sameStore(this.stamp(), clean.stamp)) {
      const c = clean.summary;
      this.summary = { ...c, read: 0, unchanged: c.files - c.skipped, removed: 0 };
      this.lastRefresh = { mode: "watched", statted: 0 };
      return this.summary;
    }
    // armed before the scan, so a change made while it runs is an event for the next call
    const armed = watch.arm();
    const { summary, linked } = this.fullRefresh();
    if (armed && !linked) watch.clean = { stamp: this.stamp(), summary };
    else watch.invalidate();
    return summary;
  }

  private stamp(): StoreStamp {
    const r = this.s.q.stamp.get();
    return { store: r?.store ?? "", generation: Number(r?.generation ?? 0) };
  }

  getRecord(id: string): EvidenceRecord | undefined {
    const r = this.s.q.record.get(id);
    return r === undefined ? undefined : toRecord(r);
  }

  getRun(id: string): RunInfo | undefined {
    const r = this.s.q.run.get(id);
    return r === undefined ? undefined : (JSON.parse(r.info) as RunInfo);
  }

  listRuns(): RunInfo[] {
    return this.s.q.runs.all().map((r) => JSON.parse(r.info) as RunInfo);
  }

  hasLog(run: string): boolean {
    return this.s.q.log.get(run) !== undefined;
  }

  logLines(run: string): LogLine[] {
    return this.s.q.logLines
      .all(run)
      .map((r) => ({ record: toRecord(r), line: r.seq, tier: (r.tier as LineTier | null) ?? null, rule: r.rule }));
  }

  signature(run: string): RunSignature | undefined {
    const l = this.s.q.log.get(run);
    if (l === undefined || l.signature === null) return undefined;
    const rec = this.getRecord(l.signature);
    if (rec === undefined) return undefined;
    const ranked: RankedRecord[] = [];
    for (const r of JSON.parse(l.ranking ?? "[]") as {
      id: string;
      rule: string;
      score: number;
      reasons: ScoreReason[];
    }[]) {
      const record = this.getRecord(r.id);
      if (record !== undefined) ranked.push({ record, rule: r.rule, score: r.score, reasons: r.reasons });
    }
    return { record: rec, basis: l.basis as SignatureBasis, ranked };
  }

  findInEarlierLogs(fragment: string, before: string, limit: number): EvidenceRecord[] {
    const f = normalize(fragment);
    const run = this.getRun(before);
    if (f === "" || run === undefined || limit <= 0) return [];
    return earlierLines(this.s, f, run.createdAt, run.id, limit);
  }

  search(type: "pr" | "ticket" | "commit", fragment: string): EvidenceRecord[] {
    const f = normalize(fragment);
    if (f === "") return [];
    return this.s.q.search
      .all(type, f)
      .filter((r) => containsNormalized(f, r.norm))
      .map(toRecord);
  }

  getPr(n: string): EvidenceRecord | undefined {
    return this.getRecord(`pr:${n}`);
  }

  listPrs(): EvidenceRecord[] {
    return this.s.q.byType.all("pr").map(toRecord);
  }

  hunks(owner: string): EvidenceRecord[] {
    return this.s.q.byOwner.all("hunk", owner).map(toRecord);
  }

  listTickets(): EvidenceRecord[] {
    return this.s.q.byType.all("ticket").map(toRecord);
  }

  getCommit(shaOrPrefix: string): EvidenceRecord | undefined {
    const p = shaOrPrefix.toLowerCase();
    if (!/^[0-9a-f]{7,64}$/.test(p)) return undefined;
    const rows = this.s.q.commits.all(p, p);
    return rows.length === 1 ? toRecord(rows[0]!) : undefined;
  }

  listCommits(): EvidenceRecord[] {
    return this.s.q.byType.all("commit").map(toRecord);
  }

  close(): void {
    if (this.s.db.open) this.s.db.close();
  }
}
