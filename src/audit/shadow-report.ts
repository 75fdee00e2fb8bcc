/**
 * What shadow mode would have stopped (adr/0128): the `tessera.decision.v1` events marked
 * `enforced: false`, counted per tool and per check by the outcome the policy gave. Pure over the
 * events, so the SQLite log, the Postgres store and a test all count alike.
 * @module
 */

/** One check (or, for a decision no check made, its reason) of one tool, and what it would have done. */
export interface ShadowCheckCount {
  /** `argument[index]` of the check, or `(reason)` for a decision no check made (`(unlisted_tool)`). */
  readonly check: string;
  readonly source: string | null;
  readonly would_block: number;
  readonly would_hold: number;
  /** The distinct codes of its failures, sorted. */
  readonly codes: readonly string[];
}

/** One tool's shadow decisions. */
export interface ShadowToolCount {
  readonly tool: string;
  readonly decisions: number;
  readonly would_block: number;
  readonly would_hold: number;
  readonly checks: readonly ShadowCheckCount[];
}

/** The report `tessera audit shadow` prints. */
export interface ShadowReport {
  /** Decision events made in shadow mode. */
  readonly decisions: number;
  readonly allowed: number;
  readonly would_block: number;
  readonly would_hold: number;
  readonly tools: readonly ShadowToolCount[];
}

interface EventCheck {
  readonly argument?: unknown;
  readonly check?: unknown;
  readonly source?: unknown;
  readonly outcome?: unknown;
  readonly error?: { readonly code?: unknown };
  readonly conditions?: readonly { readonly ok?: unknown; readonly code?: unknown }[];
}

function codesOf(c: EventCheck): string[] {
  if (typeof c.error?.code === "string") return [c.error.code];
  const failed = (c.conditions ?? []).filter((x) => x.ok === false && typeof x.code === "string");
  return failed.map((x) => x.code as string);
}

interface Tally {
  source: string | null;
  block: number;
  hold: number;
  codes: Set<string>;
}

/** Count the shadow-mode decision events among `events` (any other event is skipped). */
export function shadowReport(events: Iterable<Readonly<Record<string, unknown>>>): ShadowReport {
  const tools = new Map<string, { decisions: number; block: number; hold: number; checks: Map<string, Tally> }>();
  let decisions = 0;
  let allowed = 0;
  let block = 0;
  let hold = 0;
  for (const e of events) {
    if (e.type !== "tessera.decision.v1" || e.enforced !== false || typeof e.tool !== "string") continue;
    decisions++;
    const outcome = e.decision;
    const t = tools.get(e.tool) ?? { decisions: 0, block: 0, hold: 0, checks: new Map() };
    tools.set(e.tool, t);
    t.decisions++;
    if (outcome === "block") {
      block++;
      t.block++;
    } else if (outcome === "hold") {
      hold++;
      t.hold++;
    } else {
      allowed++;
    }
    const tally = (key: string, source: string | null, o: unknown, codes: readonly string[]) => {
      if (o !== "block" && o !== "hold") return;
      const x = t.checks.get(key) ?? { source, block: 0, hold: 0, codes: new Set<string>() };
      t.checks.set(key, x);
      if (o === "block") x.block++;
      else x.hold++;
      for (const c of codes) x.codes.add(c);
    };
    const checks = Array.isArray(e.checks) ? (e.checks as EventCheck[]) : [];
    if (checks.length === 0 && typeof e.reason === "string") tally(`(${e.reason})`, null, outcome, [e.reason]);
    for (const c of checks) {
      const key = `${String(c.argument)}[${String(c.check)}]`;
      tally(key, typeof c.source === "string" ? c.source : null, c.outcome, codesOf(c));
    }
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    decisions,
    allowed,
    would_block: block,
    would_hold: hold,
    tools: [...tools.entries()]
      .sort(([a], [b]) => byName(a, b))
      .map(([tool, t]) => ({
        tool,
        decisions: t.decisions,
        would_block: t.block,
        would_hold: t.hold,
        checks: [...t.checks.entries()]
          .sort(([a], [b]) => byName(a, b))
          .map(([check, x]) => ({
            check,
            source: x.source,
            would_block: x.block,
            would_hold: x.hold,
            codes: [...x.codes].sort(byName),
          })),
      })),
  };
}
