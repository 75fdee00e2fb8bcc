/** A JSON object: not null, not a list (a class instance passes too; JSON input never holds one). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
