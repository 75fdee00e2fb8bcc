// The workspace is opened once and refreshed per call (adr/0034): a new run written while the server
// runs is answered; a vanished folder is a coded tool error, not a refusal, and the server recovers.
import { cpSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, cli, errorCode, root, type Session, stdioSession } from "./helpers.js";

let dir = "";
let ws = "";
let s: Session;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tessera-mcp-ws-"));
  ws = join(dir, "workspace");
  cpSync(join(root, "test", "mcp", "workspace"), ws, { recursive: true });
  s = await stdioSession(["--workspace", ws]);
});

afterAll(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const question = { question: "why did run 7003 fail?" };

describe("the workspace over MCP", () => {
  it("answers a run written after the server started", async () => {
    expect(await call(s.client, "ground", question)).toMatchObject({ structuredContent: { refused: true } });
    writeFileSync(
      join(ws, "runs", "7003.json"),
      JSON.stringify({
        databaseId: 7003,
        displayTitle: "retry",
        workflowName: "CI",
        conclusion: "failure",
        status: "completed",
        createdAt: "2026-11-29T09:00:00Z",
        jobs: [],
      }),
    );
    writeFileSync(
      join(ws, "logs", "7003.log"),
      "test\tnpm test\t2026-11-29T09:01:00.0000000Z FAIL src/refund.test.ts > rounds half up\n",
    );
    const r = await call(s.client, "ground", question);
    expect(r.structuredContent).toMatchObject({ refused: false, all_verified: true });
  });

  it("a vanished folder is workspace_not_found, and the server answers again once it is back", async () => {
    renameSync(ws, `${ws}.away`);
    try {
      const r = await call(s.client, "ground", question);
      expect(errorCode(r)).toBe("workspace_not_found");
    } finally {
      renameSync(`${ws}.away`, ws);
    }
    expect(await call(s.client, "draft_action", { action: "incident", ...question })).toMatchObject({
      structuredContent: { all_grounded: true },
    });
  });

  it("a missing workspace folder stops the server before it serves: exit 2", () => {
    const r = cli(["mcp", "--workspace", join(dir, "nowhere")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^tessera mcp: no such workspace folder `.*nowhere`\n$/);
  });
});
