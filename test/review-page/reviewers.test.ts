// The reviewers of the page: the file of named tokens and TESSERA_REVIEW_TOKEN, each problem one
// precise line, and a token identifies its reviewer (only its reviewer).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadReviewersFile, reviewerFromEnv } from "../../src/review/web/reviewers.js";
import { tempDir } from "../gateway/harness.js";

const { dir, cleanup } = tempDir("reviewers");
afterAll(cleanup);
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("--reviewers <file>", () => {
  it("names each reviewer by their own token", () => {
    const r = loadReviewersFile(
      file("ok.json", JSON.stringify({ alice: "alice-token-0123456789", "bob.b": "bob-token-01234567890" })),
    );
    expect(r.size).toBe(2);
    expect(r.identify("alice-token-0123456789")).toBe("alice");
    expect(r.identify("bob-token-01234567890")).toBe("bob.b");
    expect(r.identify("alice-token-012345678")).toBeNull();
    expect(r.identify("")).toBeNull();
  });

  it.each([
    ["not-json.json", "{alice:", /^.*not-json\.json: not valid JSON: /, "input_invalid"],
    ["array.json", "[]", /array\.json: must be a JSON object of reviewer name → token$/, "input_invalid"],
    ["empty.json", "{}", /empty\.json: names no reviewer$/, "input_invalid"],
    [
      "short.json",
      '{"alice": "short"}',
      /short\.json: "alice": a token must be at least 16 characters$/,
      "token_too_short",
    ],
    ["number.json", '{"alice": 12}', /number\.json: "alice": a token must be a non-empty string$/, "token_missing"],
    [
      "name.json",
      '{"<b>": "alice-token-0123456789"}',
      /name\.json: "<b>": a reviewer name is 1 to 64/,
      "input_invalid",
    ],
    [
      "space.json",
      '{"alice": "alice token 0123456789"}',
      /space\.json: "alice": a token must not contain spaces/,
      "input_invalid",
    ],
    [
      "shared.json",
      '{"alice": "same-token-0123456789", "bob": "same-token-0123456789"}',
      /shared\.json: "bob": has the same token as "alice"$/,
      "input_invalid",
    ],
    [
      "dup.json",
      '{"alice": "alice-token-0123456789", "alice": "alice-token-9876543210"}',
      /dup\.json: not valid JSON: .*alice/,
      "input_invalid",
    ],
  ])("refuses %s with one line naming the entry", (name, text, message, code) => {
    const p = file(name, text);
    expect(() => loadReviewersFile(p)).toThrow(message);
    try {
      loadReviewersFile(p);
    } catch (err) {
      expect((err as { code: string }).code).toBe(code);
      expect((err as Error).message).not.toContain("\n");
    }
  });

  it("refuses a file that is not there", () => {
    expect(() => loadReviewersFile(join(dir, "missing.json"))).toThrow(
      /cannot read the reviewers file `.*missing\.json`: ENOENT$/,
    );
  });
});

describe("TESSERA_REVIEW_TOKEN", () => {
  it("is the one reviewer, named `reviewer`", () => {
    const r = reviewerFromEnv({ TESSERA_REVIEW_TOKEN: "review-token-0123456789" });
    expect(r.identify("review-token-0123456789")).toBe("reviewer");
    expect(r.identify("review-token-012345678")).toBeNull();
  });

  it("is required, and at least 16 characters", () => {
    expect(() => reviewerFromEnv({})).toThrow(/needs a reviewer token: set `TESSERA_REVIEW_TOKEN`/);
    expect(() => reviewerFromEnv({ TESSERA_REVIEW_TOKEN: "fifteen-chars.." })).toThrow(/at least 16 characters/);
  });
});
