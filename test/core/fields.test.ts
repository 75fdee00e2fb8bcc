import { describe, expect, it } from "vitest";
import { verifyField } from "../../src/core/index.js";
import { claim, record } from "./records.js";

const sig = record(
  "log-7",
  "build\ttest\t2026-11-01T10:00:00Z Error: connect ECONNREFUSED 127.0.0.1:5432 while running migrations",
);
const other = record("log-8", "build\ttest\t2026-11-01T10:00:01Z the database was deleted by the cleanup job");
const c = claim("Error: connect ECONNREFUSED 127.0.0.1:5432", sig, other);

describe("verifyField", () => {
  it("verifies the claim's own text", () => {
    expect(verifyField(c.text, c)).toStrictEqual({
      verified: true,
      faithful: true,
      supported: true,
      reason: "identical_to_claim",
    });
  });

  it("verifies a fragment of one cited record", () => {
    expect(verifyField("ECONNREFUSED 127.0.0.1:5432 while running migrations", c)).toStrictEqual({
      verified: true,
      faithful: true,
      supported: true,
      reason: "fragment_of_record",
    });
  });

  it("does not verify the same value with an unsupported tail", () => {
    expect(verifyField(`${c.text} and the database was deleted`, c)).toStrictEqual({
      verified: false,
      faithful: false,
      supported: true,
      reason: "not_faithful",
    });
  });

  it("does not verify a value spliced across two cited records", () => {
    const spliced = "while running migrations the database was deleted";
    expect(verifyField("while running migrations", c).verified).toBe(true);
    expect(verifyField("the database was deleted", c).verified).toBe(true);
    expect(verifyField(spliced, c)).toMatchObject({ verified: false, faithful: false, reason: "not_faithful" });
  });

  it("does not verify one changed token", () => {
    expect(verifyField("Error: connect ECONNREFUSED 127.0.0.1:5433", c).verified).toBe(false);
  });

  it("does not verify a faithful value whose claim is unsupported", () => {
    const bad = claim("the cleanup job deleted production", sig, other);
    expect(verifyField(bad.text, bad)).toStrictEqual({
      verified: false,
      faithful: true,
      supported: false,
      reason: "claim_unsupported",
    });
    expect(verifyField("the database was deleted", bad)).toStrictEqual({
      verified: false,
      faithful: true,
      supported: false,
      reason: "claim_unsupported",
    });
  });

  it("does not verify an empty value or a non-string", () => {
    expect(verifyField("", c)).toMatchObject({ verified: false, faithful: false, reason: "empty_value" });
    expect(verifyField(" -- ", c)).toMatchObject({ verified: false, reason: "empty_value" });
    expect(verifyField(42 as unknown as string, c)).toMatchObject({ verified: false, reason: "empty_value" });
  });

  it("does not verify against a claim with no support", () => {
    const none = claim("Error: connect ECONNREFUSED 127.0.0.1:5432");
    expect(verifyField(none.text, none)).toStrictEqual({
      verified: false,
      faithful: true,
      supported: false,
      reason: "claim_unsupported",
    });
  });
});
