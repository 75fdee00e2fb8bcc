import { isObject } from "../platform/objects.js";
/**
 * `want` matching shared by every case kind: objects match when every key of `want` matches the
 * same key of `got` (extra keys in `got` are ignored); arrays match element by element and must
 * have the same length; scalars must be identical.
 */
export function compareWant(want: unknown, got: unknown, path = "want"): string[] {
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return [`${path}: want a list, got ${show(got)}`];
    if (want.length !== got.length) return [`${path}: want ${want.length} items, got ${got.length}`];
    return want.flatMap((w, i) => compareWant(w, got[i], `${path}[${i}]`));
  }
  if (want !== null && typeof want === "object") {
    if (!isObject(got)) return [`${path}: want an object, got ${show(got)}`];
    return Object.entries(want).flatMap(([k, w]) =>
      Object.hasOwn(got, k)
        ? compareWant(w, (got as Record<string, unknown>)[k], `${path}.${k}`)
        : [`${path}.${k}: missing`],
    );
  }
  return Object.is(want, got) ? [] : [`${path}: want ${show(want)}, got ${show(got)}`];
}

function show(v: unknown): string {
  const s = JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
  return `\`${s === undefined ? "undefined" : s.length > 120 ? `${s.slice(0, 117)}...` : s}\``;
}
