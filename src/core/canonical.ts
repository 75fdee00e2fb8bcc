/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace. Digests are computed over
 * this text outside the core (the core has no hashing).
 * @module
 */

/**
 * Serialize a JSON-like value canonically. `undefined` object members are dropped (as JSON does);
 * bigints are written as decimal strings (as `--json` prints them); non-finite numbers, functions
 * and symbols are programmer errors.
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out, new Set());
  return out.join("");
}

function write(v: unknown, out: string[], seen: Set<object>): void {
  if (v === null) {
    out.push("null");
    return;
  }
  switch (typeof v) {
    case "string":
      out.push(JSON.stringify(v));
      return;
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "bigint":
      out.push(JSON.stringify(v.toString()));
      return; // as --json prints it
    case "number":
      if (!Number.isFinite(v)) throw new TypeError(`canonical json cannot represent \`${v}\``);
      out.push(JSON.stringify(v));
      return;
    case "object":
      break;
    default:
      throw new TypeError(`canonical json cannot represent a ${typeof v}`);
  }
  const obj = v as object;
  if (seen.has(obj)) throw new TypeError("canonical json cannot represent a cycle");
  seen.add(obj);
  if (Array.isArray(obj)) {
    out.push("[");
    for (let i = 0; i < obj.length; i++) {
      // indexed, not forEach: a hole is written as null, as JSON.stringify does
      if (i > 0) out.push(",");
      const item: unknown = obj[i];
      write(item === undefined ? null : item, out, seen);
    }
    out.push("]");
  } else {
    const json = (obj as { toJSON?: () => unknown }).toJSON;
    if (typeof json === "function") {
      write(json.call(obj), out, seen); // still in `seen`: a toJSON returning its own object is a cycle
      seen.delete(obj);
      return;
    }
    const keys = Object.keys(obj)
      .filter((k) => (obj as Record<string, unknown>)[k] !== undefined)
      .sort(byCodeUnits);
    out.push("{");
    keys.forEach((k, i) => {
      if (i > 0) out.push(",");
      out.push(JSON.stringify(k), ":");
      write((obj as Record<string, unknown>)[k], out, seen);
    });
    out.push("}");
  }
  seen.delete(obj);
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
