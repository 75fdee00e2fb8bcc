/**
 * What a command may touch: its streams, environment and working directory. Commands take an `Io`
 * so tests can run them in-process and read what they printed.
 */
export interface Io {
  readonly stdout: { write(chunk: string): unknown; isTTY?: boolean };
  readonly stderr: { write(chunk: string): unknown; isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** Exit codes of DESIGN.md §10. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  hold: 3,
  unavailable: 4,
} as const;

/** A `tessera <name>` subcommand. `run` returns the exit code; it throws `TesseraError` for exit 2. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  run(args: readonly string[], io: Io): Promise<number>;
}

/** The process's own streams and environment. */
export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}
