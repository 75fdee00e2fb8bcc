// The example tables of specs/mcp-server.md, read from the spec itself and run over the wire against
// a real server: a change to either the spec or the server is a visible diff.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../src/mcp/limits.js";
import { call, errorCode, root, type Session, stdioSession } from "./helpers.js";

const SPEC = readFileSync(join(root, "specs", "mcp-server.md"), "utf8");

/** The rows of the first table after `heading`; cells hold no pipes. */
function table(heading: string): string[][] {
  const lines = SPEC.split("\n");
  let i = lines.findIndex((l) => l.trim() === heading);
  if (i < 0) throw new Error(`no heading ${heading}`);
  while (i < lines.length && !lines[i]!.startsWith("|")) i++;
  const rows: string[][] = [];
  for (i += 2; i < lines.length && lines[i]!.startsWith("|"); i++)
    rows.push(
      lines[i]!.slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
  return rows;
}
const unticked = (cell: string) => cell.replace(/^`|`$/g, "");

let s: Session;
beforeAll(async () => {
  s = await stdioSession([]);
});
afterAll(async () => {
  await s?.close();
});

describe("specs/mcp-server.md", () => {
  const errors = table("### Error examples");

  it("has an error example for every tool and every code the server gives itself", () => {
    expect(new Set(errors.map((r) => unticked(r[0]!)))).toStrictEqual(
      new Set([
        "list_actions",
        "draft_action",
        "ground",
        "verify_claims",
        "check_tool_call",
        "grade_answer",
        "execute_shell",
      ]),
    );
    expect(new Set(errors.map((r) => unticked(r[2]!)))).toStrictEqual(
      new Set([
        "invalid_arguments",
        "unknown_action",
        "workspace_missing",
        "policy_missing",
        "invalid_input",
        "unknown_tool",
      ]),
    );
  });

  for (const [tool, args, code, message] of errors) {
    it(`${unticked(tool!)} ${unticked(args!)} → ${unticked(code!)}`, async () => {
      const r = await call(s.client, unticked(tool!), JSON.parse(unticked(args!)) as Record<string, unknown>);
      expect(errorCode(r)).toBe(unticked(code!));
      expect((r._meta?.["tessera/error"] as { message: string }).message).toBe(message);
      expect(r.structuredContent).toBeUndefined();
    });
  }

  it("still serves after every error above", async () => {
    const r = await call(s.client, "list_actions", {});
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toHaveProperty("actions");
  });

  it("lists every limit with its value", () => {
    const rows = table("### Limit values");
    expect(Object.fromEntries(rows.map(([k, v]) => [unticked(k!), Number(v)]))).toStrictEqual({ ...LIMITS });
  });
});
