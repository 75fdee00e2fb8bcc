import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gradeAnswer, gradeAnswerAudited } from "../../src/grading/grade.js";
import { EVALUATORS, findEvaluator } from "../../src/grading/evaluators/index.js";
import type { EvaluatorName, GradeInput } from "../../src/grading/types.js";

const FIXTURES = join(import.meta.dirname, "../fixtures/evaluators");
const read = (path: string): unknown => JSON.parse(readFileSync(join(FIXTURES, path), "utf8"));

interface Manifest {
  evaluator: EvaluatorName;
  version: string;
  documentation: string[];
  provenance: string;
  fixtures: {
    file: string;
    /** The application's threshold (`evaluator.threshold`) the fixture is graded with, if any. */
    threshold?: number;
    expect: { state: string; reason: string; score: number | null; threshold: number | null };
  }[];
}

const EVIDENCE = [
  { id: "hr-home-office", revision: "2026-04", text: "A chair may be reimbursed up to USD 500 with manager approval." },
];
const input = (name: EvaluatorName, version: string, result: unknown, threshold?: number): GradeInput => ({
  request_id: "req-1",
  query: "How much for a chair?",
  answer: "Employees may claim up to USD 500 for a chair.",
  evidence: EVIDENCE,
  evaluator: { name, version, ...(threshold === undefined ? {} : { threshold }) },
  result,
});

for (const [dir, version] of [
  ["bedrock", "2023-09-30"],
  ["azure", "2024-02-15-preview"],
  ["generic", "1"],
] as const) {
  describe(`${dir} ${version} fixtures`, () => {
    const manifest = read(`${dir}/${version}/manifest.json`) as Manifest;

    it("has a manifest that names the documented shape and says the fixtures are not live", () => {
      expect(manifest.evaluator).toBe(dir);
      expect(manifest.version).toBe(version);
      expect(findEvaluator(dir, version)?.version).toBe(version);
      expect(manifest.documentation.length).toBeGreaterThan(0);
      expect(manifest.provenance).toMatch(/NOT live evaluations/);
    });

    for (const f of manifest.fixtures) {
      it(`${f.file}${f.threshold === undefined ? "" : ` at ${f.threshold}`} → ${f.expect.state} (${f.expect.reason})`, () => {
        const r = gradeAnswer(input(dir, version, read(`${dir}/${version}/${f.file}`), f.threshold));
        expect({ state: r.state, reason: r.reason, score: r.score, threshold: r.threshold }).toEqual(f.expect);
      });
    }

    it("sanitizes the raw result: no answer or document text, no free text from the provider", () => {
      for (const f of manifest.fixtures) {
        const raw = read(`${dir}/${version}/${f.file}`);
        const { audit } = gradeAnswerAudited(input(dir, version, raw));
        const json = JSON.stringify(audit);
        expect(json).not.toMatch(/"text"|"reason":"(?!support_rule|invalid|missing)|USD|@example|Sorry/);
      }
    });
  });
}

describe("the registry", () => {
  it("pins one adapter per evaluator version and defaults to the first", () => {
    expect(Object.keys(EVALUATORS).sort()).toEqual(["azure", "bedrock", "builtin", "generic"]);
    expect(findEvaluator("bedrock")?.version).toBe("2023-09-30");
    expect(findEvaluator("bedrock", "2099-01-01")).toBeUndefined();
    expect(findEvaluator("toString")).toBeUndefined();
  });
});

describe("bedrock details", () => {
  const base = read("bedrock/2023-09-30/grounded.json") as Record<string, unknown>;
  const withFilters = (filters: unknown[]) => ({ ...base, assessments: [{ contextualGroundingPolicy: { filters } }] });
  const grade = (raw: unknown, threshold?: number) =>
    gradeAnswer({
      ...input("bedrock", "2023-09-30", raw),
      evaluator: { name: "bedrock", ...(threshold === undefined ? {} : { threshold }) },
    });

  it("takes the weakest grounding score against the strictest threshold over several assessments", () => {
    const raw = {
      ...base,
      assessments: [
        {
          contextualGroundingPolicy: {
            filters: [{ type: "GROUNDING", threshold: 0.6, score: 0.9, action: "NONE", detected: false }],
          },
        },
        {
          contextualGroundingPolicy: {
            filters: [{ type: "GROUNDING", threshold: 0.8, score: 0.85, action: "NONE", detected: false }],
          },
        },
      ],
    };
    expect(grade(raw)).toMatchObject({ state: "supported", score: 0.85, threshold: 0.8 });
  });

  it("applies the application's threshold when it is stricter", () => {
    expect(grade(base, 0.99)).toMatchObject({ state: "unsupported", score: 0.98, threshold: 0.99 });
    expect(grade(base, 0.5)).toMatchObject({ state: "supported", threshold: 0.7 });
  });

  it("treats BLOCKED without `detected` as a finding, and a missing `detected` as allowed", () => {
    expect(grade(withFilters([{ type: "GROUNDING", threshold: 0.7, score: 0.9, action: "BLOCKED" }])).state).toBe(
      "unsupported",
    );
    expect(grade(withFilters([{ type: "GROUNDING", threshold: 0.7, score: 0.9, action: "NONE" }])).state).toBe(
      "supported",
    );
  });

  it("rejects unknown filter types, actions and top-level shapes", () => {
    expect(grade(withFilters([{ type: "GROUNDEDNESS", threshold: 0.7, score: 0.9, action: "NONE" }])).reason).toBe(
      "invalid_response",
    );
    expect(grade(withFilters([{ type: "GROUNDING", threshold: 0.7, score: 0.9, action: "ALLOW" }])).reason).toBe(
      "invalid_finding",
    );
    expect(
      grade(withFilters([{ type: "GROUNDING", threshold: 0.7, score: 0.9, action: "NONE", detected: "no" }])).reason,
    ).toBe("invalid_finding");
    expect(grade(withFilters([{ type: "GROUNDING", threshold: Number.NaN, score: 0.9, action: "NONE" }])).reason).toBe(
      "invalid_threshold",
    );
    expect(grade({ ...base, action: undefined }).reason).toBe("invalid_response");
    expect(grade({ ...base, assessments: {} }).reason).toBe("invalid_response");
    expect(grade("GUARDRAIL_INTERVENED").reason).toBe("invalid_response");
    expect(grade(null).reason).toBe("missing_result");
  });

  it("keeps grounding separate from other policies: a PII intervention with passing grounding is supported", () => {
    expect(grade(read("bedrock/2023-09-30/grounded-pii-anonymized.json")).state).toBe("supported");
  });
});

describe("azure details", () => {
  const grade = (raw: unknown, threshold?: number) =>
    gradeAnswer({
      ...input("azure", "2024-02-15-preview", raw),
      evaluator: { name: "azure", ...(threshold === undefined ? {} : { threshold }) },
    });

  it("scores 1 - ungroundedPercentage against the application's threshold (default 1)", () => {
    expect(grade({ ungroundedDetected: false, ungroundedPercentage: 0.2 })).toMatchObject({
      state: "unsupported",
      score: 0.8,
      threshold: 1,
    });
    expect(grade({ ungroundedDetected: false, ungroundedPercentage: 0.2 }, 0.75)).toMatchObject({
      state: "supported",
      score: 0.8,
      threshold: 0.75,
    });
    expect(grade({ ungroundedDetected: true, ungroundedPercentage: 0.2 }, 0.75)).toMatchObject({
      state: "unsupported",
    });
  });

  it("rejects malformed details", () => {
    expect(grade({ ungroundedDetected: false, ungroundedPercentage: 0, ungroundedDetails: "none" }).reason).toBe(
      "invalid_response",
    );
    expect(grade({ ungroundedDetected: false, ungroundedPercentage: 0, ungroundedDetails: [1] }).reason).toBe(
      "invalid_response",
    );
    expect(grade([]).reason).toBe("invalid_response");
  });
});

describe("builtin fixtures", () => {
  it("matches the pinned computed results", () => {
    const g = read("builtin/1/grades.json") as {
      documents: GradeInput["evidence"];
      cases: { note: string; answer: string; expect: Record<string, unknown> & { reasons: string[] } }[];
    };
    for (const c of g.cases) {
      const { audit } = gradeAnswerAudited({ request_id: "r", query: "q", answer: c.answer, evidence: g.documents });
      const raw = audit.raw_result as { verdicts: { reason: string }[] } & Record<string, unknown>;
      const { reasons, ...rest } = c.expect;
      expect(
        raw.verdicts.map((v) => v.reason),
        c.note,
      ).toEqual(reasons);
      for (const [k, v] of Object.entries(rest)) expect(raw[k], `${c.note}: ${k}`).toEqual(v);
    }
  });
});
