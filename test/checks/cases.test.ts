// Every case under cases/ (all kinds) runs through the one loader and must pass. A case may be
// skipped (e.g. a live-database case without its URL) only outside CI.
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { findCaseFiles } from "../../src/replay/load.js";
import { runCaseFile } from "../../src/replay/run.js";

const root = new URL("../../", import.meta.url).pathname;
const files = findCaseFiles(["cases"], root);
const inCi = process.env.CI !== undefined || process.env.TESSERA_REQUIRE_LIVE === "1";

describe("cases/", () => {
  it("has check cases for the match table, the outcomes, the example and invalid policies", () => {
    const check = files.filter((f) => f.includes("/cases/check/"));
    for (const folder of ["match", "outcomes", "refunds", "invalid"])
      expect(check.some((f) => f.includes(`/cases/check/${folder}/`))).toBe(true);
    expect(check.length).toBeGreaterThanOrEqual(100);
  });

  it.each(files.map((f) => [relative(root, f), f]))("%s", async (_name, file) => {
    const r = await runCaseFile(file, process.env);
    if (r.status === "skipped" && !inCi) return;
    expect({ status: r.status, failures: r.failures }).toEqual({ status: "passed", failures: [] });
  });
});
