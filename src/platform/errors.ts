/**
 * Errors that stop a command: bad usage, bad configuration, bad input, a Source or upstream that
 * cannot be reached. Each carries a stable snake_case code (platform/error-codes.ts), the exit code
 * the CLI ends with and, where there is one, the path of the offending value (`tools.x.arguments`).
 * The CLI prints them as one line; they are never stack traces for the user.
 */
import { EXIT, type ExitCode, type TesseraErrorCode } from "./error-codes.js";

export type { ExitCode, TesseraErrorCode } from "./error-codes.js";

/** What a `TesseraError` may carry besides its code, message and path. */
export interface TesseraErrorOptions {
  /** The exit code of a command this error stops (default 2, a usage or configuration error). */
  readonly exitCode?: ExitCode;
  readonly cause?: unknown;
}

/**
 * An error that stops a command: its `code` (platform/error-codes.ts), the `path` of the offending
 * value when there is one (prefixed to the message), and the `exitCode` the CLI ends with (2 unless
 * it says otherwise).
 */
export class TesseraError extends Error {
  readonly code: TesseraErrorCode;
  readonly path: string | undefined;
  readonly exitCode: ExitCode;

  constructor(code: TesseraErrorCode, message: string, path?: string, options: TesseraErrorOptions = {}) {
    super(path ? `${path}: ${message}` : message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TesseraError";
    this.code = code;
    this.path = path;
    this.exitCode = options.exitCode ?? EXIT.usage;
  }
}

/** A command line that cannot be run as written. */
export class UsageError extends TesseraError {
  constructor(message: string) {
    super("usage_error", message);
    this.name = "UsageError";
  }
}
