/**
 * Errors that stop a command: bad usage, bad configuration, bad input. Each carries a stable
 * snake_case code and, where there is one, the path of the offending value (`tools.x.arguments`).
 * The CLI prints them as one line and exits 2; they are never stack traces for the user.
 */
export class TesseraError extends Error {
  readonly code: string;
  readonly path: string | undefined;

  constructor(code: string, message: string, path?: string) {
    super(path ? `${path}: ${message}` : message);
    this.name = "TesseraError";
    this.code = code;
    this.path = path;
  }
}

/** A command line that cannot be run as written. */
export class UsageError extends TesseraError {
  constructor(message: string) {
    super("usage_error", message);
    this.name = "UsageError";
  }
}
