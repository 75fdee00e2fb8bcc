import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/core/normalize.js";
import { gradeAnswer } from "../../src/grading/grade.js";
import { AFTER_MATCH, BEFORE_MATCH } from "../../src/grading/negation.js";
import { splitSentences } from "../../src/grading/sentences.js";
import type { EvaluatorName, EvidenceDocument, GradeInput } from "../../src/grading/types.js";

// Reference models of "valid and passing", written from the provider docs and specs/grading.md,
// independently of the adapters. A response may be `supported` only when its model says so.

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const unit = (v: unknown): v is number => typeof v === "number" && !Number.isNaN(v) && v >= 0 && v <= 1;
const has = (o: Record<string, unknown>, k: string) => Object.hasOwn(o, k);

const junk = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -2, max: 3 }),
  fc.constant(null),
  fc.constant(Number.NaN),
  fc.constant(Infinity),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);
const num = fc.oneof(
  { weight: 5, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, 0.7, -0.01, 1.01) },
  { weight: 1, arbitrary: junk },
);
const maybeApp = fc.option(
  fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(1, 0.8, 0.7, 0.59, 0)),
  { nil: undefined },
);

const EVIDENCE: EvidenceDocument[] = [{ id: "d1", revision: "1", text: "A chair may be reimbursed up to USD 500." }];
const input = (name: EvaluatorName, result: unknown, threshold: number | undefined): GradeInput => ({
  request_id: "r",
  query: "q",
  answer: "A chair may be reimbursed up to USD 500.",
  evidence: EVIDENCE,
  evaluator: { name, ...(threshold === undefined ? {} : { threshold }) },
  result,
});

function genericPasses(raw: unknown, app: number | undefined): boolean {
  if (!isObj(raw) || Object.keys(raw).length === 0) return false;
  const { score, threshold, unsupported_detected } = raw;
  if (
    !has(raw, "score") ||
    !has(raw, "threshold") ||
    !unit(score) ||
    !unit(threshold) ||
    unsupported_detected !== false
  )
    return false;
  return score >= Math.max(threshold, app ?? 1); // the application's threshold defaults to 1
}

function bedrockPasses(raw: unknown, app: number | undefined): boolean {
  if (
    !isObj(raw) ||
    !["GUARDRAIL_INTERVENED", "NONE"].includes(raw.action as string) ||
    !Array.isArray(raw.assessments)
  )
    return false;
  const filters: Record<string, unknown>[] = [];
  for (const a of raw.assessments) {
    if (!isObj(a)) return false;
    if (!has(a, "contextualGroundingPolicy")) continue;
    const p = a.contextualGroundingPolicy;
    if (!isObj(p) || !Array.isArray(p.filters)) return false;
    for (const f of p.filters) {
      if (!isObj(f) || !["GROUNDING", "RELEVANCE"].includes(f.type as string) || !unit(f.score) || !unit(f.threshold))
        return false;
      if (!["BLOCKED", "NONE"].includes(f.action as string)) return false;
      if (has(f, "detected") && f.detected !== undefined && typeof f.detected !== "boolean") return false;
      filters.push(f);
    }
  }
  const grounding = filters.filter((f) => f.type === "GROUNDING");
  if (grounding.length === 0) return false;
  if (
    filters.some((f) => f.detected === true || f.action === "BLOCKED" || (f.score as number) < (f.threshold as number))
  )
    return false;
  const score = Math.min(...grounding.map((f) => f.score as number));
  const threshold = Math.max(...grounding.map((f) => f.threshold as number), app ?? 0);
  return score >= threshold;
}

function azurePasses(raw: unknown, app: number | undefined): boolean {
  if (!isObj(raw) || raw.ungroundedDetected !== false || !unit(raw.ungroundedPercentage)) return false;
  const details = raw.ungroundedDetails;
  if (has(raw, "ungroundedDetails") && details !== undefined && !(Array.isArray(details) && details.length === 0))
    return false;
  // 1 - pct >= threshold on the decimals the numbers are written as, all scaled to integers
  return 10n ** BigInt(SCALE) - scaled(raw.ungroundedPercentage) >= scaled(app ?? 1);
}

// every number in [0, 1] written as a decimal (`4e-13`, `0.41`) is an integer once multiplied by 10^400
const SCALE = 400;
function scaled(x: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x))!;
  return BigInt(m[1]! + (m[2] ?? "")) * 10n ** BigInt(Number(m[3] ?? 0) - (m[2] ?? "").length + SCALE);
}

const genericResponse = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      { score: num, threshold: num, unsupported_detected: fc.oneof(fc.boolean(), junk) },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.anything() },
);
// biased towards passing filters, so that one failing filter among passing ones is common
const bedrockFilter = fc.record(
  {
    type: fc.oneof({ weight: 6, arbitrary: fc.constantFrom("GROUNDING", "RELEVANCE") }, { weight: 1, arbitrary: junk }),
    threshold: fc.oneof(
      { weight: 3, arbitrary: fc.double({ min: 0, max: 0.6, noNaN: true }) },
      { weight: 2, arbitrary: num },
    ),
    score: fc.oneof(
      { weight: 3, arbitrary: fc.double({ min: 0.6, max: 1, noNaN: true }) },
      { weight: 2, arbitrary: num },
    ),
    action: fc.oneof(
      { weight: 8, arbitrary: fc.constant("NONE") },
      { weight: 2, arbitrary: fc.constant("BLOCKED") },
      { weight: 1, arbitrary: junk },
    ),
    detected: fc.oneof(
      { weight: 8, arbitrary: fc.constant(false) },
      { weight: 2, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: junk },
    ),
  },
  { requiredKeys: ["type", "threshold", "score", "action"] },
);
const bedrockResponse = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        action: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom("GUARDRAIL_INTERVENED", "NONE") },
          { weight: 1, arbitrary: junk },
        ),
        outputs: fc.constant([]),
        assessments: fc.oneof(
          {
            weight: 8,
            arbitrary: fc.array(
              fc.record(
                {
                  contextualGroundingPolicy: fc.oneof(
                    { weight: 8, arbitrary: fc.record({ filters: fc.array(bedrockFilter, { maxLength: 3 }) }) },
                    { weight: 1, arbitrary: junk },
                  ),
                },
                { requiredKeys: [] },
              ),
              { maxLength: 3 },
            ),
          },
          { weight: 1, arbitrary: junk },
        ),
      },
      { requiredKeys: ["outputs"] },
    ),
  },
  { weight: 1, arbitrary: fc.anything() },
);
const azureResponse = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        ungroundedDetected: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, { weight: 1, arbitrary: junk }),
        // tiny shares, and shares whose complement is a threshold written as a decimal
        ungroundedPercentage: fc.oneof(
          num,
          fc.constantFrom(0, 4e-13, 1e-17, 5e-324, 0.2, 0.3, 0.41, 0.30000000000000004),
        ),
        ungroundedDetails: fc.oneof(
          fc.constant([]),
          fc.array(fc.record({ text: fc.string({ maxLength: 8 }) }), { minLength: 1, maxLength: 2 }),
          junk,
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.anything() },
);

const cases = [
  ["generic", genericResponse, genericPasses],
  ["bedrock", bedrockResponse, bedrockPasses],
  ["azure", azureResponse, azurePasses],
] as const;

describe("random evaluator responses", () => {
  for (const [name, arb, passes] of cases) {
    it(`${name}: supported if and only if the response is valid and passing`, () => {
      let supported = 0;
      fc.assert(
        fc.property(arb, maybeApp, (raw, app) => {
          const r = gradeAnswer(input(name, raw, app));
          expect(r.state === "supported").toBe(passes(raw, app));
          if (r.state === "supported") supported++;
          if (r.state === "unavailable") expect([r.score, r.threshold]).toEqual([null, null]);
        }),
        { numRuns: 1000 },
      );
      expect(supported).toBeGreaterThan(0); // the generator reaches the interesting side
    });

    it(`${name}: a timeout or a digest mismatch is never supported, whatever the response`, () => {
      fc.assert(
        fc.property(arb, maybeApp, fc.boolean(), (raw, app, timeout) => {
          const i = input(name, raw, app);
          const r = gradeAnswer(
            timeout ? { ...i, timed_out: true } : { ...i, generation_digest: `sha256:${"0".repeat(64)}` },
          );
          expect(r.state).toBe("unavailable");
          expect(r.reason).toBe(timeout ? "evaluator_timeout" : "evidence_mismatch");
        }),
        { numRuns: 100 },
      );
    });
  }
});

describe("builtin on random answers", () => {
  const word = fc.constantFrom(
    "chair",
    "desk",
    "usd",
    "500",
    "50",
    "approval",
    "may",
    "be",
    "the",
    "not",
    "é",
    "Ünïcode",
  );
  const text = fc.array(word, { minLength: 1, maxLength: 12 }).map((ws) => ws.join(" "));
  const docs = fc.uniqueArray(
    fc.record({ id: fc.constantFrom("a", "b", "c"), revision: fc.constantFrom("1", "2"), text }),
    { minLength: 0, maxLength: 3, selector: (d) => d.id },
  );
  const sentence = fc.record({
    body: text,
    cites: fc.array(fc.constantFrom("a", "b", "c", "z", "a@1", "a@2"), { maxLength: 2 }),
    end: fc.constantFrom(".", "!", "?", "\n"),
  });
  const answerOf = (ss: { body: string; cites: string[]; end: string }[]) =>
    ss.map((s) => `${s.body}${s.cites.map((c) => ` [${c}]`).join("")}${s.end}`).join(" ");

  it("does not support a sentence whose only occurrence follows a negation (a counterexample fast-check found)", () => {
    const evidence = [{ id: "a", revision: "1", text: "not be chair" }];
    expect(gradeAnswer({ request_id: "r", query: "q", answer: "be.", evidence }).state).toBe("unsupported");
    expect(gradeAnswer({ request_id: "r", query: "q", answer: "be chair.", evidence }).state).toBe("unsupported");
  });

  it("is supported only when every sentence is contained (naive token match, no negation beside it) in a cited, or any, document", () => {
    let supported = 0;
    fc.assert(
      fc.property(docs, fc.array(sentence, { minLength: 0, maxLength: 4 }), fc.boolean(), (evidence, ss, copy) => {
        // half the time, copy document text into the answer so support is reachable
        const answer =
          copy && evidence.length > 0 ? `${evidence[0]!.text} [${evidence[0]!.id}]. ${answerOf(ss)}` : answerOf(ss);
        const r = gradeAnswer({ request_id: "r", query: "q", answer, evidence });
        const sentences = splitSentences(answer);
        // token by token: an occurrence counts unless a negating token stands right before or after it (adr/0101)
        const naive = (s: string, d: EvidenceDocument) => {
          const doc = normalize(d.text).split(" ");
          const want = s.split(" ");
          for (let i = 0; i + want.length <= doc.length; i++) {
            if (!want.every((w, k) => doc[i + k] === w)) continue;
            if (!BEFORE_MATCH.has(doc[i - 1] ?? "") && !AFTER_MATCH.has(doc[i + want.length] ?? "")) return true;
          }
          return false;
        };
        const ok =
          sentences.length > 0 &&
          sentences.every((s) => {
            if (s.normalized === "") return false;
            if (s.citations.length === 0) return evidence.some((d) => naive(s.normalized, d));
            const cited = s.citations.map((c) => evidence.filter((d) => d.id === c || `${d.id}@${d.revision}` === c));
            return cited.every((list) => list.length > 0) && cited.flat().some((d) => naive(s.normalized, d));
          });
        expect(r.state === "supported").toBe(ok);
        expect(r.state).not.toBe("unavailable");
        if (r.state === "supported") supported++;
      }),
      { numRuns: 300 },
    );
    expect(supported).toBeGreaterThan(0);
  });
});
