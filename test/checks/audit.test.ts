// The audit log: WAL-mode SQLite, versioned events `{type, id, at, ...payload}`, an injectable
// clock, and decision events that keep ids and digests but no values unless asked.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { DECISION_EVENT, openAuditLog, readAuditEvents } from "../../src/audit/index.js";
import { loadPolicy } from "../../src/checks/index.js";
import { digestOf } from "../../src/platform/digest.js";
import { createGate } from "../../src/gate.js";

const tmp = () => mkdtempSync(join(tmpdir(), "tessera-audit-"));
const fixedClock = () => {
  let t = Date.UTC(2026, 10, 30, 12, 0, 0);
  return () => new Date((t += 1000));
};
const policyFile = new URL("../../examples/refunds/policy.yaml", import.meta.url).pathname;

describe("openAuditLog", () => {
  it("appends versioned events in WAL mode with the injected clock and ids", () => {
    const file = join(tmp(), "nested", "audit.db");
    let n = 0;
    const log = openAuditLog(file, { clock: fixedClock(), newId: () => `evt-${++n}` });
    const a = log.append("tessera.decision.v1", { tool: "t", decision: "allow" });
    const b = log.append("tessera.review.approved.v1", { review_id: "r-1" });
    log.close();
    log.close();
    expect(a).toEqual({
      type: "tessera.decision.v1",
      id: "evt-1",
      at: "2026-11-30T12:00:01.000Z",
      tool: "t",
      decision: "allow",
    });
    expect(readAuditEvents(file)).toEqual([a, b]);
    expect(readAuditEvents(file, "tessera.review.approved.v1")).toEqual([b]);
    const db = new Database(file, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("refuses malformed types, envelope keys in the payload and appends after close", () => {
    const log = openAuditLog(join(tmp(), "a.db"));
    expect(() => log.append("decision", {})).toThrow("event type `decision` is not of the form `tessera.<what>.v<n>`");
    expect(() => log.append("tessera.decision.v1", { at: "yesterday" })).toThrow(
      "payload key `at` is reserved for the envelope",
    );
    log.close();
    expect(() => log.append("tessera.decision.v1", {})).toThrow("is closed");
  });

  it("reopens an existing log and keeps appending", () => {
    const file = join(tmp(), "a.db");
    openAuditLog(file).append("tessera.x.v1", { n: 1 });
    const log = openAuditLog(file);
    log.append("tessera.x.v1", { n: 2 });
    log.close();
    expect(readAuditEvents(file).map((e) => e.n)).toEqual([1, 2]);
  });
});

describe("decision events", () => {
  const call = { tool: "refund_order", arguments: { order_id: 1001, amount_cents: 4999 } };
  const context = { customer_id: "c-2", session: "s-77" };

  it("keep ids and digests, never values, by default", async () => {
    const file = join(tmp(), "audit.db");
    const policy = await loadPolicy(policyFile);
    const gate = createGate(policy, { audit: file, clock: fixedClock() });
    const d = await gate.check(call, context, { explain: "values" });
    await gate.close();
    const [e] = readAuditEvents(file);
    const log = openAuditLog(file); // its key: the digests are keyed, never a plain SHA-256 (adr/0071)
    expect(e).toMatchObject({
      type: DECISION_EVENT,
      at: "2026-11-30T12:00:01.000Z",
      tool: "refund_order",
      decision: "block",
      policy_digest: policy.digest,
      arguments_digest: log.digest(call.arguments),
      context_digest: log.digest(context),
    });
    log.close();
    expect(e!.arguments_digest).not.toBe(digestOf(call.arguments));
    expect(e!.checks).toEqual(
      d.checks.map(({ value: _v, ...c }) => ({
        ...c,
        conditions: c.conditions.map(({ expected: _e, actual: _a, ...x }) => x),
      })),
    );
    const { id: _i, policy_digest: _p, arguments_digest: _d, context_digest: _c, ...rest } = e!; // random or hex: may contain anything
    const text = JSON.stringify(rest);
    for (const v of ["c-1", "c-2", "s-77", "1001", "4999"]) expect(text).not.toContain(v);
  });

  it("keep values when the policy's audit asks for them, without adding them to the caller's decision", async () => {
    const dir = tmp();
    const policy = { ...(await loadPolicy(policyFile)), audit: { path: join(dir, "audit.db"), values: true } };
    const gate = createGate(policy, { clock: fixedClock() });
    const d = await gate.check(call, context);
    await gate.close();
    expect(JSON.stringify(d)).not.toContain('"actual"');
    const [e] = readAuditEvents(join(dir, "audit.db"));
    expect(e).toMatchObject({
      arguments: call.arguments,
      context,
      checks: [{ value: 1001, conditions: [{ expected: "c-2", actual: "c-1" }, {}] }, {}, {}],
    });
  });

  it("records allow decisions and unlisted tools too", async () => {
    const file = join(tmp(), "audit.db");
    const gate = createGate(await loadPolicy(policyFile), { audit: file });
    await gate.check(call, { customer_id: "c-1" });
    await gate.check({ tool: "lookup_order", arguments: {} });
    await gate.close();
    expect(readAuditEvents(file).map((e) => [e.decision, e.reason ?? null])).toEqual([
      ["allow", null],
      ["allow", "unlisted_tool"],
    ]);
  });
});
