/**
 * MCP tool-call templates: `"{name}"` in a check's `arguments` passes the typed scalar, `{name}`
 * inside a longer string interpolates as text. Kept apart from mcp.ts so recorded replays bind
 * arguments without loading the MCP SDK.
 * @module
 */
import type { Scalar } from "../core/index.js";

const WHOLE = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const INNER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A tool call compiled once per check. */
export interface McpTemplate {
  /** Binding names the arguments read, in order of first appearance. */
  readonly parameters: readonly string[];
  /** The tool's arguments with every placeholder bound. */
  bind(params: Readonly<Record<string, Scalar>>): Record<string, unknown>;
}

/** A typed scalar as JSON can carry it: a bigint beyond 2^53 travels as its decimal digits. */
function typed(v: Scalar): unknown {
  if (typeof v !== "bigint") return v;
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

function text(v: Scalar): string {
  return v === null ? "null" : typeof v === "string" ? v : String(v);
}

/**
 * Compile a check's `arguments`: a string that is exactly `"{name}"` becomes the typed value;
 * `{name}` inside a longer string is replaced by the value's text; objects and lists are walked.
 * @example
 * compileMcpArguments({ id: "{value}", note: "order {value}" }).bind({ value: 7 }) // { id: 7, note: "order 7" }
 */
export function compileMcpArguments(args: Readonly<Record<string, unknown>>): McpTemplate {
  const parameters: string[] = [];
  const note = (name: string): void => {
    if (!parameters.includes(name)) parameters.push(name);
  };
  type Node = (p: Readonly<Record<string, Scalar>>) => unknown;
  const compile = (v: unknown): Node => {
    if (typeof v === "string") {
      const whole = WHOLE.exec(v);
      if (whole !== null) {
        const name = whole[1]!;
        note(name);
        return (p) => typed(p[name] as Scalar);
      }
      const names = [...v.matchAll(INNER)].map((m) => m[1]!);
      if (names.length === 0) return () => v;
      names.forEach(note);
      return (p) => v.replace(INNER, (_m, name: string) => text(p[name] as Scalar));
    }
    if (Array.isArray(v)) {
      const items = v.map(compile);
      return (p) => items.map((f) => f(p));
    }
    if (v !== null && typeof v === "object") {
      const entries = Object.entries(v).map(([k, x]) => [k, compile(x)] as const);
      return (p) => Object.fromEntries(entries.map(([k, f]) => [k, f(p)]));
    }
    return () => v;
  };
  const root = compile(args);
  return { parameters, bind: (p) => root(p) as Record<string, unknown> };
}
