// Property: for random policies (1–3 protected arguments × 1–3 checks, random on_fail, on_error and
// attempts) over scripted Sources, the engine's decision, every check's status and outcome, and the
// exact number of requests per check equal a deliberately naive reference model of specs/match-semantics.md.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createEngine, parsePolicy, type Source, SourceError } from "../../src/checks/index.js";

type Step = "match" | "mismatch" | "error";
interface CheckSpec {
  onFail: "block" | "hold";
  onError: "block" | "hold" | "allow";
  attempts: number;
  script: Step[];
}
interface ArgSpec {
  present: boolean;
  checks: CheckSpec[];
}

const checkSpec: fc.Arbitrary<CheckSpec> = fc.record({
  onFail: fc.constantFrom("block", "hold"),
  onError: fc.constantFrom("block", "hold", "allow"),
  attempts: fc.integer({ min: 0, max: 3 }),
  script: fc.array(fc.constantFrom<Step>("match", "mismatch", "error", "error"), { minLength: 1, maxLength: 5 }),
});
const argSpec: fc.Arbitrary<ArgSpec> = fc.record({
  present: fc.constantFrom(true, true, true, false),
  checks: fc.array(checkSpec, { minLength: 1, maxLength: 3 }),
});

const RANK = { allow: 0, hold: 1, block: 2 } as const;

/** The reference: walk the script; the first answer decides; errors exhaust attempts + 1 requests. */
function reference(args: ArgSpec[]) {
  const checks = args.flatMap((a) =>
    a.checks.map((c) => {
      if (!a.present) return { status: "error", outcome: "block", requests: 0 };
      for (let i = 0; i <= c.attempts; i++) {
        const step = c.script[Math.min(i, c.script.length - 1)]!;
        if (step === "match") return { status: "matched", outcome: "allow", requests: i + 1 };
        if (step === "mismatch") return { status: "mismatch", outcome: c.onFail, requests: i + 1 };
      }
      return { status: "error", outcome: c.onError, requests: c.attempts + 1 };
    }),
  );
  const decision = checks.reduce<"allow" | "hold" | "block">(
    (w, c) => (RANK[c.outcome as keyof typeof RANK] > RANK[w] ? (c.outcome as "hold" | "block") : w),
    "allow",
  );
  return { decision, checks };
}

function policyText(args: ArgSpec[]): string {
  const lines = [
    "version: 1",
    "sources:",
    "  s: { kind: sqlite, path: ./unused.db }",
    "tools:",
    "  t:",
    "    arguments:",
  ];
  args.forEach((a, ai) => {
    lines.push(`      a${ai}:`, "        ground:", "          checks:");
    a.checks.forEach((c, ci) => {
      lines.push(
        `            - source: s`,
        `              query: "SELECT v FROM t WHERE id = :value AND k = '${ai}.${ci}'"`,
        `              match: [ { column: v, value: 1 } ]`,
        `              on_fail: ${c.onFail}`,
        `              retry: { attempts: ${c.attempts}, on_error: ${c.onError} }`,
      );
    });
  });
  return `${lines.join("\n")}\n`;
}

describe("engine against a reference model", () => {
  it("decides, reports and counts requests exactly as the reference", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(argSpec, { minLength: 1, maxLength: 3 }), async (args) => {
        const requests = new Map<string, number>();
        const source: Source = {
          kind: "script",
          timeoutMs: 5000,
          prepare: (req) => {
            const key = /'(\d+\.\d+)'/.exec(req.query!)![1]!;
            const [ai, ci] = key.split(".").map(Number) as [number, number];
            const script = args[ai]!.checks[ci]!.script;
            return {
              parameters: ["value"],
              run: async () => {
                const n = requests.get(key) ?? 0;
                requests.set(key, n + 1);
                const step = script[Math.min(n, script.length - 1)]!;
                if (step === "error") throw new SourceError("source_unreachable", "scripted");
                return { rows: [{ v: step === "match" ? 1 : 2 }] };
              },
            };
          },
          close: async () => undefined,
        };
        const gate = createEngine(parsePolicy(policyText(args), "p.yaml", { env: {} }), async () => source);
        const callArgs = Object.fromEntries(args.flatMap((a, ai) => (a.present ? [[`a${ai}`, ai]] : [])));
        const d = await gate.check({ tool: "t", arguments: callArgs });
        const want = reference(args);
        expect(d.decision).toBe(want.decision);
        const keys = args.flatMap((a, ai) => a.checks.map((_c, ci) => `${ai}.${ci}`));
        expect(
          d.checks.map((c, i) => ({
            status: c.status,
            outcome: c.outcome,
            requests: requests.get(keys[i]!) ?? 0,
            attempts: c.attempts,
          })),
        ).toEqual(want.checks.map((c) => ({ ...c, attempts: c.requests })));
      }),
      { numRuns: 300 },
    );
  });
});
