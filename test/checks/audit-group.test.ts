// The audit log's group commit (adr/0114): the events queued in one turn of the event loop commit
// in one transaction, in order, and each waiter resolves only once its event is on disk; a failed
// commit writes none of its events and rejects every waiter; close commits what is still queued.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openAuditLog, readAuditEvents } from "../../src/audit/index.js";

const fileIn = () => join(mkdtempSync(join(tmpdir(), "tessera-audit-group-")), "audit.db");

describe("appendGrouped", () => {
  it("commits the events of one turn together, in order, before any of their waiters resolves", async () => {
    const file = fileIn();
    let n = 0;
    const log = openAuditLog(file, { newId: () => `evt-${++n}` });
    const waits = [1, 2, 3].map((k) => log.appendGrouped("tessera.decision.v1", { k }));
    expect(readAuditEvents(file)).toEqual([]); // queued, not yet written
    const seenAtFirst = waits[0]!.then(() => readAuditEvents(file).map((e) => e.id));
    expect(await seenAtFirst).toEqual(["evt-1", "evt-2", "evt-3"]);
    expect((await Promise.all(waits)).map((e) => e.k)).toEqual([1, 2, 3]);
    // a later turn is its own transaction, after the first
    await log.appendGrouped("tessera.forward.v1", { k: 4 });
    expect(readAuditEvents(file).map((e) => e.k)).toEqual([1, 2, 3, 4]);
    log.close();
  });

  it("writes none of a batch whose commit fails, and rejects every waiter", async () => {
    const file = fileIn();
    const log = openAuditLog(file, { newId: () => "the-same-id" }); // the second insert breaks UNIQUE(id)
    const waits = [1, 2].map((k) => log.appendGrouped("tessera.decision.v1", { k }));
    for (const w of waits) await expect(w).rejects.toMatchObject({ code: "audit_write_failed" });
    expect(readAuditEvents(file)).toEqual([]);
    log.close();
  });

  it("refuses an invalid event at once, queueing nothing", async () => {
    const file = fileIn();
    const log = openAuditLog(file);
    expect(() => log.appendGrouped("not a type", {})).toThrow(expect.objectContaining({ code: "audit_type_invalid" }));
    expect(() => log.appendGrouped("tessera.decision.v1", { id: "x" })).toThrow(
      expect.objectContaining({ code: "audit_payload_invalid" }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(readAuditEvents(file)).toEqual([]);
    log.close();
  });

  it("commits what is still queued when the log is closed", async () => {
    const file = fileIn();
    const log = openAuditLog(file);
    const wait = log.appendGrouped("tessera.decision.v1", { k: 1 });
    log.close();
    expect(readAuditEvents(file).map((e) => e.k)).toEqual([1]);
    expect((await wait).k).toBe(1);
    expect(() => log.appendGrouped("tessera.decision.v1", {})).toThrow(
      expect.objectContaining({ code: "audit_closed" }),
    );
  });
});
