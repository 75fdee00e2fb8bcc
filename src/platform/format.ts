/**
 * Output helpers shared by the CLI and the MCP layer: terminal styles, tables and contract JSON.
 * They live below both so a library never imports the CLI.
 */

/** What `styles` reads of a command's streams and environment (the CLI's `Io` has it). */
export interface StyleTarget {
  readonly stdout: { readonly isTTY?: boolean };
  readonly stderr: { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Terminal styles; each is the identity unless stdout is a TTY and `NO_COLOR` is unset. */
export interface Styles {
  readonly bold: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly red: (s: string) => string;
  readonly green: (s: string) => string;
  readonly yellow: (s: string) => string;
  readonly cyan: (s: string) => string;
}

const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string) => s;

/** Colour only on a TTY, and never when `NO_COLOR` is set or `FORCE_COLOR=0`. */
export function styles(io: StyleTarget, stream: "stdout" | "stderr" = "stdout"): Styles {
  const on = io[stream].isTTY === true && !io.env.NO_COLOR && io.env.FORCE_COLOR !== "0";
  if (!on) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

const ANSI = /\u001b\[[0-9;]*m/g;
const visibleWidth = (s: string) => [...s.replace(ANSI, "")].length;

/** Left-aligned columns separated by two spaces; cells may carry colour codes. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat(widths[i]! - visibleWidth(c))))
      .join("  ")
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join("\n")}\n`;
}

/** Contract JSON as printed by `--json`: insertion key order, two-space indent, trailing newline. */
export function jsonOut(value: unknown): string {
  return `${JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`;
}

export { printable } from "./printable.js";
