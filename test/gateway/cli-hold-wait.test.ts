// `tessera gateway --hold-wait --notify` as a process over stdio, decided by `tessera review` in
// another process: the waiting call gets the reviewer's decision, the receiver on 127.0.0.1 the
// held and decided events; and the new options refuse bad values with exit 2 and one line.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Notification } from "../../src/review/notify.js";
import { cliPath, gatewayProcess, counted, tempDir, textOf, upstreamScript, verdictOf } from "./harness.js";
import { writePolicy } from "./policy.js";
import { Receiver } from "./receiver.js";

let dir: string;
let cleanup: () => void;
let client: Client | undefined;
let receiver: Receiver;

beforeEach(() => {
  ({ dir, cleanup } = tempDir("gw-cli-wait"));
  writePolicy(dir, 20);
  receiver = new Receiver();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await receiver.close();
  cleanup();
});

const store = () => join(dir, "gateway.db");

/** `tessera …` as its own process, without blocking this one (the receiver runs here). */
function tessera(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cliPath, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? "" } });
    let stderr = "";
    p.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    p.on("close", (code) => resolve({ code, stderr }));
  });
}

it("a held call waits for `tessera review deny` in another process, gets its reason, and the receiver hears both", async () => {
  const url = await receiver.listen();
  const transport = gatewayProcess(dir, store(), { extra: ["--hold-wait", "2m", "--notify", url] });
  client = new Client({ name: "cli-test", version: "1.0.0" });
  await client.connect(transport);

  let named!: (id: string) => void;
  const reviewId = new Promise<string>((resolve) => (named = resolve));
  const result = client.callTool({ name: "refund_order", arguments: { order_id: 3 } }, undefined, {
    onprogress: (p) => {
      const id = /held for human review as (rv_[0-9a-f]{12})/.exec(p.message ?? "")?.[1];
      if (id !== undefined) named(id);
    },
    resetTimeoutOnProgress: true,
  }) as Promise<CallToolResult>;
  const id = await reviewId;
  await receiver.received(1);
  const denied = await tessera([
    "review",
    "deny",
    id,
    "--store",
    store(),
    "--by",
    "ada",
    "--reason",
    "not before the audit",
  ]);
  expect(denied.code, denied.stderr).toBe(0);
  const r = await result;
  expect(verdictOf(r)).toMatchObject({ decision: "block", review_id: id });
  expect(textOf(r).split("\n")[0]).toBe("denied by ada: not before the audit");
  await receiver.received(2);
  expect((receiver.accepted as Notification[]).map((e) => [e.type, e.review_id, e.state, e.reason])).toEqual([
    ["held", id, "pending", null],
    ["decided", id, "denied", "not before the audit"],
  ]);
  expect(counted(join(dir, "counter.jsonl"))).toEqual([]);
});

it.each([
  [["--hold-wait", "11m"], "tessera gateway: `--hold-wait` is at most 10m, got `11m`"],
  [
    ["--hold-wait", "soon"],
    "tessera gateway: `--hold-wait` takes a positive duration such as `15m`, `30s` or `500ms`, got `soon`",
  ],
  [["--notify", "ftp://127.0.0.1/x"], "tessera gateway: `--notify` takes an http:// or https:// URL, not ftp:"],
  [
    ["--notify", "https://u:p@hooks.example.com/x"],
    "tessera gateway: `--notify` URLs must not carry credentials (user:password@)",
  ],
  [["--notify-format", "slack"], "tessera gateway: `--notify-format` needs `--notify <url>`"],
  [
    ["--notify", "http://127.0.0.1:9/x", "--notify-format", "xml"],
    "tessera gateway: `--notify-format` expects `json` or `slack`, got `xml`",
  ],
  [
    ["--notify", "http://127.0.0.1:9/x", "--notify", "http://127.0.0.1:9/x"],
    "tessera gateway: `--notify` is given the same URL twice",
  ],
])("refuses %j with exit 2 and one line", (flags, line) => {
  const r = spawnSync(
    process.execPath,
    [cliPath, "gateway", "--policy", join(dir, "policy.yaml"), ...flags, "--", process.execPath, upstreamScript],
    { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH ?? "" } },
  );
  expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: "", stderr: `${line}\n` });
});
