// OpenTelemetry (adr/0129) with the SDK's in-memory exporter and a metric reader registered the way
// a host registers them: a `tessera.decision` span per decision with a `tessera.check` span per
// Source request under it, a `tools/call` span per gateway forward, the decision, Source-error and
// duration metrics, semantic-convention attribute names, and no argument or context value anywhere.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { metrics, trace } from "@opentelemetry/api";
import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decisionPayload } from "../../src/audit/decision.js";
import { openAuditLog } from "../../src/audit/log.js";
import type { Gate } from "../../src/checks/engine.js";
import { createEngine } from "../../src/checks/engine.js";
import { loadPolicy, parsePolicy } from "../../src/checks/load.js";
import { createGate, registryOpener } from "../../src/gate.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { startGateway, tempDir } from "../gateway/harness.js";
import { CONTEXT as GATEWAY_CONTEXT, writePolicy } from "../gateway/policy.js";

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const root = new URL("../../", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "tessera-otel-"));
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const reader = new TestReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const CONTEXT = { customer_id: "c-1" };
let gate: Gate;

/** Every attribute value of every span, as text: none may be an argument or context value. */
const attributeValues = (spans: readonly ReadableSpan[]) =>
  spans.flatMap((s) => Object.values(s.attributes).map((v) => String(v)));

async function metricPoints(name: string): Promise<{ attributes: Record<string, unknown>; value: unknown }[]> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (found?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, value: p.value }));
}

beforeAll(async () => {
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  copyFileSync(join(root, "examples/refunds/billing.db"), join(dir, "billing.db"));
  const text = readFileSync(join(root, "examples/refunds/policy.yaml"), "utf8");
  writeFileSync(join(dir, "policy.yaml"), text);
  gate = createGate(parsePolicy(text, join(dir, "policy.yaml"), { env: {} }));
});

afterAll(async () => {
  await gate?.close();
  trace.disable();
  metrics.disable();
});

describe("OpenTelemetry", () => {
  it("a decision span per decision, and a check span per Source request under it", async () => {
    exporter.reset();
    const d = await gate.check({ tool: "refund_order", arguments: { order_id: 1003, amount_cents: 2222 } }, CONTEXT);
    expect(d.decision).toBe("block");
    const spans = exporter.getFinishedSpans();
    const decision = spans.find((s) => s.name === "tessera.decision")!;
    const checks = spans.filter((s) => s.name.startsWith("tessera.check "));
    expect(spans).toHaveLength(1 + d.checks.length);
    expect(decision.attributes).toEqual({
      "gen_ai.tool.name": "refund_order",
      "tessera.decision": "block",
      "tessera.policy.digest": d.policy_digest,
      "tessera.enforced": true,
      "tessera.checks": 3,
    });
    expect(checks.map((s) => s.parentSpanContext?.spanId)).toEqual(checks.map(() => decision.spanContext().spanId));
    const first = checks.find(
      (s) => s.attributes["tessera.check.argument"] === "order_id" && s.attributes["tessera.check.index"] === 0,
    )!;
    expect(first.name).toBe("tessera.check billing");
    expect(first.attributes).toEqual({
      "tessera.source.name": "billing",
      "tessera.source.kind": "sqlite",
      "db.system.name": "sqlite",
      "tessera.check.argument": "order_id",
      "tessera.check.index": 0,
      "tessera.check.attempt": 1,
      "tessera.check.status": "mismatch",
      "db.response.returned_rows": 1,
    });
    for (const v of attributeValues(spans)) expect(["1003", "2222", "c-1", "c-2"]).not.toContain(v);
  });

  it("a Source error is the check span's error.type, a Source-error count, and each retry is its own span", async () => {
    exporter.reset();
    const text = readFileSync(join(root, "examples/refunds/policy.yaml"), "utf8").replace(
      "path: ./billing.db",
      "path: ./no-such.db",
    );
    const broken = createGate(parsePolicy(text, join(dir, "broken.yaml"), { env: {} }));
    try {
      const d = await broken.check({ tool: "cancel_order", arguments: { order_id: 1003 } }, CONTEXT);
      expect(d.checks[0]!.error?.code).toBe("source_unreachable");
    } finally {
      await broken.close();
    }
    const failedChecks = exporter.getFinishedSpans().filter((s) => s.attributes["error.type"] === "source_unreachable");
    // cancel_order has two checks, each with `retry.attempts: 1` from defaults: two requests each
    expect(failedChecks.map((s) => s.attributes["tessera.check.attempt"]).sort()).toEqual([1, 1, 2, 2]);
    for (const s of failedChecks) expect(s.status.code).toBe(2); // SpanStatusCode.ERROR
    const errors = await metricPoints("tessera.source.errors");
    expect(errors).toEqual([
      {
        attributes: {
          "tessera.source.name": "billing",
          "tessera.source.kind": "sqlite",
          "db.system.name": "sqlite",
          "error.type": "source_unreachable",
        },
        value: 4,
      },
    ]);
  });

  it("counts decisions by outcome and times them", async () => {
    const before = await metricPoints("tessera.decisions");
    const count = (points: typeof before, decision: string) =>
      Number(points.find((p) => p.attributes["tessera.decision"] === decision)?.value ?? 0);
    await gate.check({ tool: "refund_order", arguments: { order_id: 1001, amount_cents: 100 } }, CONTEXT);
    await gate.check({ tool: "cancel_order", arguments: { order_id: 1002 } }, CONTEXT);
    await gate.check({ tool: "lookup_order", arguments: {} }, CONTEXT);
    const after = await metricPoints("tessera.decisions");
    expect(count(after, "allow") - count(before, "allow")).toBe(3);
    expect(count(after, "block") - count(before, "block")).toBe(0);
    expect(after.every((p) => p.attributes["tessera.enforced"] === true)).toBe(true);
    const durations = await metricPoints("tessera.decision.duration");
    const allowCount = (durations.find((p) => p.attributes["tessera.decision"] === "allow")?.value as { count: number })
      .count;
    expect(allowCount).toBe(count(after, "allow"));
  });
});

describe("OpenTelemetry in the gateway", () => {
  let t: ReturnType<typeof tempDir>;
  beforeAll(() => {
    t = tempDir("otel-gw");
  });
  afterAll(() => t.cleanup());

  it("a tools/call span per forward, with the keyed arguments digest and never a value", async () => {
    writePolicy(t.dir, 8);
    const policy = await loadPolicy("policy.yaml", { env: {}, cwd: t.dir });
    const engine = createEngine(policy, registryOpener(policy));
    const log = openAuditLog(join(t.dir, "audit.db"));
    const reviews = openSqliteReviewStore(join(t.dir, "gateway.db"));
    const gw = await startGateway({
      dir: t.dir,
      decide: (call) => engine.check(call, GATEWAY_CONTEXT),
      describe: (d, call, digest) =>
        decisionPayload(d as Parameters<typeof decisionPayload>[0], call, GATEWAY_CONTEXT, { digest }),
      reviews,
      audit: log,
    });
    try {
      exporter.reset();
      await gw.call("refund_order", { order_id: 1 }); // allowed: forwarded
      await gw.call("refund_order", { order_id: 2 }); // blocked: never forwarded
      const spans = exporter.getFinishedSpans();
      const forwards = spans.filter((s) => s.name.startsWith("tools/call "));
      expect(forwards).toHaveLength(1);
      const [f] = forwards;
      expect(f!.name).toBe("tools/call refund_order");
      expect(Object.keys(f!.attributes).sort()).toEqual(
        [
          "gen_ai.operation.name",
          "gen_ai.tool.name",
          "mcp.method.name",
          "tessera.arguments.digest",
          "tessera.call.id",
          "tessera.forward.outcome",
          "tessera.policy.digest",
        ].sort(),
      );
      expect(f!.attributes["mcp.method.name"]).toBe("tools/call");
      expect(f!.attributes["tessera.arguments.digest"]).toBe(reviews.digest({ order_id: 1 }));
      expect(f!.attributes["tessera.forward.outcome"]).toBe("ok");
      expect(spans.filter((s) => s.name === "tessera.decision").map((s) => s.attributes["tessera.decision"])).toEqual([
        "allow",
        "block",
      ]);
      // order ids 1 and 2 collide with attempt numbers, so only text attributes are compared here
      const texts = spans.flatMap((s) => Object.values(s.attributes).filter((v) => typeof v === "string"));
      for (const v of texts) expect(["1", "2", "c-1"]).not.toContain(v);
    } finally {
      await gw.close();
      await reviews.close();
      log.close();
      await engine.close();
    }
  });
});
