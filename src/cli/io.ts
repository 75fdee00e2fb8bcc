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

/** The exit codes (specs/cli.md); they live in platform/ so errors can carry them. */
export { EXIT, type ExitCode } from "../platform/error-codes.js";

/** A `tessera <name>` subcommand. `run` returns the exit code; a `TesseraError` it throws exits with the error's `exitCode`. */
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
