// The gateway's store holds the keyed-digest secret and held calls' arguments: the SQLite review
// queue and audit log it creates are readable by their owner only, whatever the umask.
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openAuditLog } from "../../src/audit/log.js";
import { ensurePrivateFile } from "../../src/platform/private-file.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-private-"));
const mode = (f: string) => statSync(f).mode & 0o777;

describe("store files are private", () => {
  it("creates the review queue and the audit log 0600, with their WAL files", async () => {
    const previous = process.umask(0o022);
    try {
      const file = join(dir, "gateway.db");
      const reviews = openSqliteReviewStore(file);
      const audit = openAuditLog(file);
      audit.append("tessera.test.v1", { n: 1 });
      expect(mode(file)).toBe(0o600);
      expect(mode(`${file}-wal`)).toBe(0o600);
      audit.close();
      await reviews.close();
    } finally {
      process.umask(previous);
    }
  });

  it("leaves an existing file's mode as it is", () => {
    const file = join(dir, "existing.db");
    writeFileSync(file, "");
    const before = mode(file);
    ensurePrivateFile(file);
    expect(mode(file)).toBe(before);
  });
});
