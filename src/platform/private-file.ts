/**
 * Store files that hold a secret (the keyed-digest key) and held calls' arguments are readable by
 * their owner only: created 0600 before SQLite opens them, so its `-wal` and `-shm` files, which
 * take the database file's mode, are private too.
 * @module
 */
import { closeSync, constants, openSync } from "node:fs";

/** Create `file` with mode 0600 when it does not exist; an existing file keeps its mode. */
export function ensurePrivateFile(file: string): void {
  try {
    closeSync(openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}
