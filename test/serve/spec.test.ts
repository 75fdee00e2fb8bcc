// Pins specs/serve.md: the routes table is the router's, the refusals table is every error code
// with its status, and each refusal with an example request is sent to a running `tessera serve`
// (the refunds example, --max-body 4096) and answered with that code, status and message.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../src/serve/errors.js";
import { ROUTES } from "../../src/serve/router.js";
import { specTable } from "../core/spec-tables.js";
import { refundsPolicy, request, root, runCli, type ServeProcess, startServeProcess, tempDir } from "./harness.js";

describe("specs/serve.md", () => {
  it("lists exactly the routes of the router", () => {
    const t = specTable("serve.md", "Routes");
    expect(t.header).toEqual(["method", "path", "caller", "body", "200 answers"]);
    expect(t.rows.map((r) => [r[0], r[1], r[2] === "yes"])).toEqual(ROUTES.map((r) => [r.method, r.path, r.auth]));
  });

  it("lists every refusal code with its status", () => {
    const t = specTable("serve.md", "Refusals");
    expect(t.header).toEqual(["code", "status", "request", "message starts with"]);
    expect(Object.fromEntries(t.rows.map((r) => [r[0], Number(r[1])]))).toEqual(ERROR_STATUS);
  });

  describe("against a running tessera serve", () => {
    const t = tempDir("tessera-serve-spec");
    let serving: ServeProcess;
    beforeAll(async () => {
      serving = await startServeProcess([
        "--policy",
        refundsPolicy,
        "--store",
        join(t.dir, "store.db"),
        "--max-body",
        "4096",
      ]);
    });
    afterAll(async () => {
      serving.child.kill("SIGTERM");
      await serving.exited;
      t.cleanup();
    });

    const rows = specTable("serve.md", "Refusals").rows.filter((r) => !r[2]!.startsWith("—"));
    it("has an example for every refusal a request alone can cause", () => {
      expect(rows.length).toBe(15);
    });

    for (const [code, status, req, starts] of rows) {
      it(`${code}: ${req}`, async () => {
        const m = /^(GET|POST) (\S+)(?: \(([^)]*)\))?(?: (.*))?$/.exec(req!);
        expect(m, req).not.toBeNull();
        const [, method, path, modifier, body] = m!;
        let sent: string | undefined = body;
        let token: string | null | undefined;
        let contentType: string | undefined;
        if (modifier === "no token") token = null;
        else if (modifier === "text/plain") contentType = "text/plain";
        else if (modifier === "5000 bytes") sent = JSON.stringify({ tool: "refund_order", pad: "x".repeat(4970) });
        else if (modifier === "a proposal")
          sent = JSON.stringify({
            proposal: JSON.parse(readFileSync(join(root, "examples/proposals/incident-7001-tampered.json"), "utf8")),
          });
        else expect(modifier, req).toBeUndefined();
        const got = await request(serving.url, method!, path!, {
          ...(sent === undefined ? {} : { body: sent }),
          ...(token === undefined ? {} : { token }),
          ...(contentType === undefined ? {} : { contentType }),
        });
        expect(got.status, got.text).toBe(Number(status));
        const error = (got.json as { error: { code: string; message: string } }).error;
        expect(error.code).toBe(code);
        expect(error.message.startsWith(starts!.replaceAll("`", "`")), error.message).toBe(true);
        expect(error.message).not.toMatch(/\n/);
        expect(got.headers.get("content-type")).toBe("application/json; charset=utf-8");
      });
    }

    it("writes decision events with exactly the keys of the audit table", async () => {
      const got = await request(serving.url, "POST", "/v1/check", {
        body: { tool: "refund_order", arguments: { order_id: 1001, amount_cents: 5 }, context: { customer_id: "c-1" } },
      });
      const audit = await runCli([
        "audit",
        "export",
        "--jsonl",
        "--type",
        "tessera.decision.v1",
        "--store",
        join(t.dir, "store.db"),
      ]);
      const event = audit.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((e) => e.call_id === got.headers.get("tessera-call-id"));
      expect(event).toBeDefined();
      const table = specTable("serve.md", "Audit and store");
      expect(table.header).toEqual(["key", "value"]);
      const keys = table.rows.flatMap((r) => r[0]!.split(", ").map((k) => k.replace(/\?$/, "")));
      const optional = table.rows.flatMap((r) =>
        r[0]!
          .split(", ")
          .filter((k) => k.endsWith("?"))
          .map((k) => k.slice(0, -1)),
      );
      const envelope = ["type", "id", "at"];
      expect(Object.keys(event!).filter((k) => !envelope.includes(k))).toEqual(
        keys.filter((k) => !optional.includes(k) || k in event!),
      );
      expect([event!.action, event!.caller, event!.decision]).toEqual([
        got.headers.get("tessera-action"),
        "default",
        "allow",
      ]);
    });

    it("names the allowed methods and the bearer scheme", async () => {
      const wrong = await request(serving.url, "DELETE", "/v1/check");
      expect([wrong.status, wrong.headers.get("allow")]).toEqual([405, "POST"]);
      const bad = await request(serving.url, "POST", "/v1/check", {
        body: { tool: "x" },
        token: "not-the-token-0123456789",
      });
      expect(bad.status).toBe(401);
      expect((bad.json as { error: { message: string } }).error.message).toBe("authorization: wrong bearer token");
      expect(bad.headers.get("www-authenticate")).toMatch(/^Bearer /);
    });

    it("decides an unlisted tool as tessera check does, and answers HEAD as GET", async () => {
      const got = await request(serving.url, "POST", "/v1/check", { body: { tool: "lookup_order" } });
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ decision: "allow", reason: "unlisted_tool", checks: [] });
      expect(got.headers.get("tessera-action")).toBe("run");
      const shadow = await request(serving.url, "POST", "/v1/check", { body: { tool: "refund-order" } });
      expect(shadow.json).toMatchObject({ decision: "block", reason: "tool_name_shadows" });
      expect(shadow.headers.get("tessera-action")).toBe("refuse");
      const head = await request(serving.url, "HEAD", "/healthz", { token: null });
      expect([head.status, head.text]).toEqual([200, ""]);
    });
  });
});
