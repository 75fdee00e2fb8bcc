import { describe, expect, it } from "vitest";
import { evidenceDigest } from "../../src/grading/bundle.js";
import { DEFAULT_DELIVERY_POLICY, deliveryPolicy } from "../../src/grading/delivery.js";
import { gradeAnswer, gradeAnswerAudited } from "../../src/grading/grade.js";
import type { GradeInput } from "../../src/grading/types.js";
import { gradeAnswer as rootGradeAnswer } from "../../src/index.js";

const HR = {
  id: "hr-home-office",
  revision: "2026-04",
  title: "Home Office Policy",
  text: "A chair may be reimbursed up to USD 500 with manager approval. Desks are not reimbursed.",
};
const FAQ = { id: "hr-equipment-faq", revision: "2025-11", text: "Ergonomic chairs are reimbursed up to USD 300." };
const base: GradeInput = {
  request_id: "req-7f84",
  query: "How much can I claim for a home-office chair?",
  answer: "A chair may be reimbursed up to USD 500 with manager approval [hr-home-office].",
  evidence: [HR, FAQ],
};

describe("gradeAnswer", () => {
  it("pins the grading record's keys and their order", () => {
    expect(JSON.stringify(gradeAnswer(base))).toBe(
      '{"state":"supported","score":1,"threshold":1,"reason":"support_rule_passed","evidence_ids":["hr-equipment-faq","hr-home-office"],' +
        '"evaluator":{"name":"builtin","version":"1"},"delivery":"deliver"}',
    );
  });

  it("is exported from the package root", () => {
    expect(rootGradeAnswer).toBe(gradeAnswer);
  });

  it("gives byte-identical JSON for the same input, whatever the evidence order", () => {
    const a = JSON.stringify(gradeAnswerAudited(base));
    const b = JSON.stringify(gradeAnswerAudited({ ...base, evidence: [FAQ, HR] }));
    expect(b).toBe(a);
  });

  it("compares the generation digest with the evaluated bundle's digest", () => {
    expect(gradeAnswer({ ...base, generation_digest: evidenceDigest([FAQ, HR]) }).state).toBe("supported");
    const other = evidenceDigest([HR]);
    expect(gradeAnswer({ ...base, generation_digest: other })).toMatchObject({
      state: "unavailable",
      reason: "evidence_mismatch",
      score: null,
      threshold: null,
    });
  });

  it("turns a timeout into unavailable even with a passing result in hand", () => {
    const r = gradeAnswer({
      ...base,
      evaluator: { name: "generic" },
      result: { score: 1, threshold: 0.5, unsupported_detected: false },
      timed_out: true,
    });
    expect(r).toMatchObject({ state: "unavailable", reason: "evaluator_timeout", delivery: "withhold" });
  });

  it("lets the option override the input's evaluator name", () => {
    const input: GradeInput = {
      ...base,
      evaluator: { name: "generic", version: "1" },
      result: { score: 0.9, threshold: 0.7, unsupported_detected: false },
    };
    expect(gradeAnswer(input).evaluator).toEqual({ name: "generic", version: "1" });
    expect(gradeAnswer(input, { evaluator: "builtin" }).evaluator).toEqual({ name: "builtin", version: "1" });
  });

  it("is unavailable for an unknown evaluator or an invalid application threshold", () => {
    expect(gradeAnswer({ ...base, evaluator: { name: "nope" as "generic" } })).toMatchObject({
      state: "unavailable",
      reason: "unknown_evaluator",
      evaluator: { name: "nope", version: "unknown" },
    });
    expect(gradeAnswer({ ...base, evaluator: { name: "builtin", threshold: 1.5 } }).reason).toBe("invalid_threshold");
    expect(gradeAnswer({ ...base, evaluator: { name: "builtin", threshold: Number.NaN } }).reason).toBe(
      "invalid_threshold",
    );
  });

  it("never throws on a hostile response", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("boom");
        },
        get: () => {
          throw new Error("boom");
        },
      },
    );
    for (const name of ["generic", "bedrock", "azure"] as const) {
      expect(gradeAnswer({ ...base, evaluator: { name }, result: hostile }).state).toBe("unavailable");
    }
  });
});

describe("delivery policy", () => {
  it("withholds unsupported and unavailable by default", () => {
    expect(DEFAULT_DELIVERY_POLICY).toEqual({ supported: "deliver", unsupported: "withhold", unavailable: "withhold" });
    expect(gradeAnswer({ ...base, answer: "Chairs cost USD 900." }).delivery).toBe("withhold");
  });

  it("applies per-state overrides", () => {
    const policy = { unavailable: "deliver_with_notice" as const };
    expect(gradeAnswer({ ...base, timed_out: true }, { policy }).delivery).toBe("deliver_with_notice");
    expect(gradeAnswer(base, { policy }).delivery).toBe("deliver");
  });

  it("rejects an unknown action as a configuration error", () => {
    expect(() => deliveryPolicy({ unsupported: "shrug" as "withhold" })).toThrow(
      /policy\.unsupported: expected one of/,
    );
  });
});

describe("audit record", () => {
  it("keeps ids, revisions, digests, evaluator, sanitized result and decision — never document text", () => {
    const { audit } = gradeAnswerAudited({ ...base, answer: "Desks are not reimbursed. Chairs cost USD 900." });
    expect(Object.keys(audit)).toEqual([
      "request_id",
      "evidence",
      "evidence_digest",
      "generation_digest",
      "authorization",
      "answer_digest",
      "evaluator",
      "raw_result",
      "state",
      "reason",
      "delivery",
    ]);
    expect(audit.evidence).toEqual([
      { id: "hr-equipment-faq", revision: "2025-11" },
      { id: "hr-home-office", revision: "2026-04" },
    ]);
    expect(audit.answer_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const json = JSON.stringify(audit);
    for (const text of [HR.text, FAQ.text, "Desks are not reimbursed", "USD", "Home Office Policy"])
      expect(json).not.toContain(text);
  });

  it("drops secrets and unknown fields from a raw response", () => {
    const raw = {
      score: 0.9,
      threshold: 0.7,
      unsupported_detected: false,
      api_key: "sk-live-123",
      note: "the chair is USD 500",
    };
    const { audit } = gradeAnswerAudited({ ...base, evaluator: { name: "generic" }, result: raw });
    expect(audit.raw_result).toEqual({ score: 0.9, threshold: 0.7, unsupported_detected: false });
  });

  it("records a malformed value by its type, not its content", () => {
    const { audit } = gradeAnswerAudited({
      ...base,
      evaluator: { name: "generic" },
      result: { score: "secret-ish text", threshold: 0.7, unsupported_detected: false },
    });
    expect(audit.raw_result).toEqual({ score: "<string>", threshold: 0.7, unsupported_detected: false });
    expect(audit.reason).toBe("invalid_score");
  });
});

describe("audit record of a builtin grade", () => {
  it("never copies a caller's ignored `result`, nor unresolved citations, into the record", () => {
    const leaky = {
      score: 1,
      note: "password hunter2",
      verdicts: [{ index: 0, supported: true, reason: "contained_in_cited", citations: [{ text: "x" }] }],
    };
    const timedOut = gradeAnswerAudited({ ...base, result: leaky, timed_out: true }).audit;
    expect(JSON.stringify(timedOut)).not.toContain("hunter2");
    expect(JSON.stringify(timedOut)).not.toContain('"text"');

    const { audit } = gradeAnswerAudited({
      ...base,
      answer: "Desks are not reimbursed [my card is 4111-1111]. Desks are not reimbursed [hr-home-office].",
    });
    expect(JSON.stringify(audit)).not.toContain("4111");
    expect((audit.raw_result as { verdicts: unknown[] }).verdicts).toEqual([
      { index: 0, supported: false, reason: "unknown_citation", citations: "<omitted>" },
      { index: 1, supported: true, reason: "contained_in_cited", citations: ["hr-home-office"] },
    ]);
  });

  it("sees a document whose text changed between grades (cached normalization is guarded by the text)", () => {
    const doc = { id: "d", revision: "1", text: "Desks are not reimbursed." };
    const input: GradeInput = { ...base, answer: "Desks are reimbursed.", evidence: [doc] };
    expect(gradeAnswer(input).state).toBe("unsupported");
    (doc as { text: string }).text = "Desks are reimbursed.";
    expect(gradeAnswer(input).state).toBe("supported");
  });
});
