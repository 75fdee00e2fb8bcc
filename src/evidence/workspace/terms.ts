/**
 * The log-line term index (adr/0111): every distinct token of every stored log line of a run that
 * has a run file, so the search for a failure signature in earlier logs reads the postings of one
 * rare token, newest run first, instead of every stored log line.
 * @module
 */
import { containsNormalized, type EvidenceRecord } from "../../core/index.js";
import { type StoreContext, toRecord } from "./store.js";

/** Longer tokens are indexed by their first this-many characters (a shared prefix only adds candidates). */
const MAX_TERM_LENGTH = 200;

/** The distinct index terms of a normalized text (its space-separated tokens). */
export function termsOf(norm: string): Set<string> {
  const out = new Set<string>();
  for (const tok of norm.split(" "))
    if (tok !== "") out.add(tok.length > MAX_TERM_LENGTH ? tok.slice(0, MAX_TERM_LENGTH) : tok);
  return out;
}

/**
 * Index the stored log lines of `run`, when it has both a run row and log lines (called when
 * either arrives; the other may come in a later refresh). Idempotent.
 */
export function indexRunLog(s: StoreContext, run: string): void {
  eachPosting(s, run, (term, created, seq) => {
    if (s.q.insertTerm.run(term, created, run.length, run, seq).changes > 0) count(s, term, 1);
  });
}

/** Rebuild the whole index from the stored records (a migrated store). */
export function indexAllLogs(s: StoreContext): void {
  s.db.exec("DELETE FROM log_terms; DELETE FROM term_counts");
  const runs = s.db.prepare<[], { run: string }>("SELECT run FROM logs ORDER BY run").all();
  for (const { run } of runs) indexRunLog(s, run);
  flushTermCounts(s);
}

/**
 * Drop the postings of the runs whose run file or log is `file`, before its rows go. They are
 * recomputed from the same rows they were made from, so no index by run is needed.
 */
export function dropTermsOf(s: StoreContext, file: string): void {
  for (const { run } of s.q.runsOfFile.all(file, file))
    eachPosting(s, run, (term, created, seq) => {
      if (s.q.deleteTerm.run(term, created, run.length, run, seq).changes > 0) count(s, term, -1);
    });
}

/** Every posting the run's current rows give: each distinct term of each stored log line, with the run's time. */
function eachPosting(s: StoreContext, run: string, fn: (term: string, created: string, seq: number) => void): void {
  const created = s.q.runCreated.get(run)?.created_at;
  if (created === undefined) return;
  for (const { seq, norm } of s.q.logNorms.all(run)) for (const term of termsOf(norm)) fn(term, created, seq);
}

const count = (s: StoreContext, term: string, by: number): void => {
  s.termCounts.set(term, (s.termCounts.get(term) ?? 0) + by);
};

/** Write the term counts gathered since the last flush (in the same transaction as their postings). */
export function flushTermCounts(s: StoreContext): void {
  for (const [term, by] of s.termCounts) if (by !== 0) s.q.countTerm.run(term, by);
  s.termCounts.clear();
}

/** The fragment's term in the fewest lines (ties go to the longest); none in any line gives no answer. */
function rarestTerm(s: StoreContext, terms: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestN = Number.POSITIVE_INFINITY;
  for (const t of terms) {
    const n = s.q.termProbe.get(t)?.n ?? 0;
    if (n < bestN || (n === bestN && best !== undefined && t.length > best.length)) {
      best = t;
      bestN = n;
      if (n === 0) break;
    }
  }
  return best;
}

/**
 * The first stored log line (by line number) containing the normalized fragment `f`
 * (token-bounded) of each run ordered before (`createdAt`, `id`), most recent run first, at most
 * `limit` runs. A line containing `f` contains each of its tokens, so the postings of any one
 * token are a superset of the answer; each candidate is then checked as the full scan checked it.
 */
export function earlierLines(
  s: StoreContext,
  f: string,
  createdAt: string,
  id: string,
  limit: number,
): EvidenceRecord[] {
  const term = rarestTerm(s, termsOf(f));
  if (term === undefined) return [];
  const out: EvidenceRecord[] = [];
  let run: string | undefined;
  let first: EvidenceRecord | undefined;
  for (const r of s.q.earlierByTerm.iterate(term, createdAt, id.length, id)) {
    if (r.owner !== run) {
      if (first !== undefined) {
        out.push(first);
        if (out.length >= limit) return out;
      }
      run = r.owner;
      first = undefined;
    }
    // lines come last to first within a run: the last match seen is its first line
    if (containsNormalized(f, r.norm)) first = toRecord(r);
  }
  if (first !== undefined) out.push(first);
  return out;
}
