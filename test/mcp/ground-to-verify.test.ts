// The newcomer's pipeline: what `ground` returns is what `verify_claims` and `tessera verify --claims`
// take, locator renders included; a render that says something else than its locator is refused.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, cli, errorCode, root, type Session, stdioSession } from "./helpers.js";

let dir = "";
let ws = "";
let s: Session;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tessera-mcp-ground-verify-"));
  ws = join(dir, "workspace");
  for (const d of ["runs", "logs", "prs", "tickets", "commits"])
    cpSync(join(root, "examples", "ci-workspace", d), join(ws, d), { recursive: true });
  s = await stdioSession(["--workspace", ws]);
});

afterAll(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Claims = { support: { locator: { render: string } }[] }[];

describe("ground → verify_claims", () => {
  it("verify_claims takes the claims of a ground result as they are", async () => {
    const g = await call(s.client, "ground", { question: "why did run 7001 fail?" });
    const claims = (g.structuredContent as { claims: Claims }).claims;
    expect(claims.length).toBeGreaterThan(2);
    expect(claims[0]!.support[0]!.locator.render).toBe("run run=7001");
    const r = await call(s.client, "verify_claims", { claims });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ all_supported: true });
  });

  it("refuses a render that differs from its locator, with the path", async () => {
    const g = await call(s.client, "ground", { question: "why did run 7001 fail?" });
    const claims = structuredClone((g.structuredContent as { claims: Claims }).claims);
    claims[0]!.support[0]!.locator.render = "run run=7002";
    const r = await call(s.client, "verify_claims", { claims });
    expect(errorCode(r)).toBe("invalid_arguments");
    expect(r.content[0]).toMatchObject({
      text: expect.stringContaining(
        "claims[0].support[0].locator.render: `render` differs from what the locator's kind and parts render as, `run run=7001`",
      ),
    });
  });

  it("tessera verify --claims takes `ground --json` claims, from a file and from stdin", () => {
    const g = cli(["ground", "--workspace", ws, "why did run 7001 fail?", "--json"]);
    expect(g.status, g.stderr).toBe(0);
    const claims = JSON.parse(g.stdout).claims;
    const file = join(dir, "claims.json");
    writeFileSync(file, JSON.stringify(claims, null, 2));
    const v = cli(["verify", "--claims", file, "--json"]);
    expect(v.status, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout).all_supported).toBe(true);
    const piped = cli(["verify", "--claims", "-"], { input: JSON.stringify(claims) });
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toContain(`all supported: ${claims.length} of ${claims.length} claims`);
  });
});
