/**
 * Durations as the CLI takes them: `500ms`, `30s`, `15m`, `2h`, `1d`.
 * @module
 */
import { UsageError } from "../platform/errors.js";

const UNIT: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The longest duration any option takes: a year and a day. An approval or a wait past it is a typo,
 * and an expiry computed from a larger one could fall past the dates JavaScript can represent.
 */
export const MAX_DURATION_MS = 366 * UNIT.d!;

/** Milliseconds of a duration such as `15m`; a usage error naming `flag` otherwise. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  const ms = m === null ? NaN : Number(m[1]) * UNIT[m[2]!]!;
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new UsageError(
      `\`--${flag}\` takes a positive duration such as \`15m\`, \`30s\` or \`500ms\`, got \`${text}\``,
    );
  if (ms > MAX_DURATION_MS) throw new UsageError(`\`--${flag}\` is at most 366d, got \`${text}\``);
  return ms;
}

/** A duration in its largest whole unit: `900000` → `15m`. */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"] as const) if (ms % UNIT[unit]! === 0) return `${ms / UNIT[unit]!}${unit}`;
  return `${ms}ms`;
}
