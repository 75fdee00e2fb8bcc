/**
 * Times and reasons in the words the review page uses: ISO instants, ages and time left, and the
 * one line that says why a call is held.
 * @module
 */
import { printable } from "../../platform/printable.js";
import type { ReviewRecord } from "../types.js";

/** An instant as ISO-8601, or the empty string. */
export function iso(ms: number | null): string {
  return ms === null ? "" : new Date(ms).toISOString();
}

/** A length of time in its two largest units: `3d 4h`, `15m 2s`, `40s`. */
export function span(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), "d"],
    [Math.floor(s / 3_600) % 24, "h"],
    [Math.floor(s / 60) % 60, "m"],
    [s % 60, "s"],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first < 0) return "0s";
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n}${u}`)
    .join(" ");
}

/** How long ago `then` was. */
export function ago(then: number, now: number): string {
  return `${span(now - then)} ago`;
}

/** How long until `until`, or that it has passed. */
export function left(until: number, now: number): string {
  return until <= now ? "expired" : `${span(until - now)} left`;
}

const KIND_WORDS = {
  needs_judgment: "needs judgment",
  verification_unavailable: "verification unavailable",
} as const;

/**
 * Why a review is held, in one line: the first holding check's kind, argument, Source and what
 * failed, and how many more checks held it. Control and bidi characters are shown escaped.
 */
export function oneLineReason(r: ReviewRecord): string {
  const first = r.reasons[0];
  if (first === undefined) return "held";
  const what = first.message ?? first.codes.join(", ");
  const more = r.reasons.length > 1 ? ` (+${r.reasons.length - 1} more)` : "";
  return printable(
    `${KIND_WORDS[first.kind]}: ${first.argument} check ${first.check}${first.source ? ` (${first.source})` : ""} — ${what}${more}`,
  );
}
