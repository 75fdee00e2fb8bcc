/**
 * The deterministic question router of specs/question-routing.md: which run or change a question names, and so
 * which answer path (`rca`, `summary`) serves it — or why none does.
 * @module
 */

/** What a question names. */
export type RouteTarget =
  | { readonly kind: "rca"; readonly run: string }
  | { readonly kind: "summary"; readonly change: { readonly kind: "pr" | "commit"; readonly id: string } }
  | { readonly kind: "none"; readonly reason: string };

const PR = /\b(?:PR|pull[\s-]+request)\s*(?:#|-|number\s+|no\.?\s*)?\s*(\d+)\b/gi;
const HASH_PR = /(?<![\w&])#(\d+)\s+(?:PR|pull[\s-]+request)\b/gi;
const COMMIT = /\bcommit\s+([0-9a-f]{7,64})\b/gi;
const RUN = /\brun\s*(?:#|id\s+|number\s+)?\s*(\d+)\b/gi;
const HASH = /(?<![\w&])#(\d+)\b/g;
const BARE = /(?<![\w.#/:@+-])(\d+)(?![\w.:/@+-]|,\d)/g;

/** Collect the first group of every match and blank the matched text so later patterns skip it. */
function take(q: { text: string }, re: RegExp, norm: (s: string) => string = (s) => s): string[] {
  const found: string[] = [];
  q.text = q.text.replace(re, (m, id: string) => {
    found.push(norm(id));
    return " ".repeat(m.length);
  });
  return [...new Set(found)];
}

const stripZeros = (s: string): string => s.replace(/^0+(?=\d)/, "");

/**
 * Route a question: a change is named as `PR <n>`, `PR-<n>`, `PR #<n>`, `pull request <n>`, `#<n> PR`
 * or `commit <sha>`; a run as `run <id>`, `#<id>` or a bare id. Naming both, or two of either, is
 * refused rather than guessed.
 * @example routeQuestion("why did run 7003 fail?") // { kind: "rca", run: "7003" }
 */
export function routeQuestion(question: string): RouteTarget {
  const q = { text: question };
  const prs = [...new Set([...take(q, PR, stripZeros), ...take(q, HASH_PR, stripZeros)])];
  const commits = take(q, COMMIT, (s) => s.toLowerCase());
  const explicitRuns = [...new Set([...take(q, RUN, stripZeros), ...take(q, HASH, stripZeros)])];
  const changes = prs.length + commits.length;
  if (changes > 1) return { kind: "none", reason: "more than one change named" };
  if (changes === 1 && explicitRuns.length > 0) return { kind: "none", reason: "both a run and a change named" };
  if (prs.length === 1) return { kind: "summary", change: { kind: "pr", id: prs[0]! } };
  if (commits.length === 1) return { kind: "summary", change: { kind: "commit", id: commits[0]! } };
  if (explicitRuns.length > 1) return { kind: "none", reason: "more than one run named" };
  if (explicitRuns.length === 1) return { kind: "rca", run: explicitRuns[0]! };
  const bare = take(q, BARE, stripZeros);
  if (bare.length > 1) return { kind: "none", reason: "more than one run named" };
  if (bare.length === 1) return { kind: "rca", run: bare[0]! };
  return { kind: "none", reason: "no run or change named" };
}
