// What a gateway offers its upstream, and what a gateway that cannot start leaves behind.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway } from "../../src/mcp/gateway/gateway.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { cliPath, tempDir, TestClock, textOf, upstreamEnv, upstreamScript } from "./harness.js";
import { openGatewayPolicy, writePolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
const closers: (() => Promise<unknown> | unknown)[] = [];
beforeEach(() => {
  ({ dir, cleanup } = tempDir("gw-start"));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  cleanup();
});

/** The client capabilities each upstream connection was offered, in order. */
const offered = () =>
  readFileSync(join(dir, "caps.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("the client features the gateway offers its upstream", () => {
  async function connectClient(capabilities: Record<string, unknown>) {
    const policy = await openGatewayPolicy(dir, new TestClock().read);
    const reviews = openSqliteReviewStore(join(dir, "gateway.db"));
    const gateway = await createGateway({
      upstream: {
        kind: "stdio",
        command: process.execPath,
        args: [upstreamScript],
        env: { ...upstreamEnv(dir), CAPS_FILE: join(dir, "caps.jsonl") },
        stderr: "ignore",
      },
      decide: policy.decide,
      reviews,
      audit: policy.audit,
    });
    closers.push(
      () => policy.close(),
      () => reviews.close(),
      () => gateway.close(),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide);
    const client = new Client({ name: "caps-test", version: "1.0.0" }, { capabilities });
    if ("roots" in capabilities)
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///w", name: "w" }] }));
    await client.connect(clientSide);
    closers.push(() => client.close());
    return client;
  }

  it("offers none of sampling, elicitation or roots to the upstream when its client has none", async () => {
    const client = await connectClient({});
    expect(textOf((await client.callTool({ name: "echo", arguments: { text: "x" } })) as never)).toBe("x");
    // before any client connected, and for a client without features: nothing to relay
    expect(offered()).toEqual([{}]);
    const roots = (await client.callTool({ name: "roots", arguments: {} })) as { isError?: boolean };
    expect(roots.isError).toBe(true); // the upstream's own SDK refuses to ask a client that has no roots
  });

  it("offers exactly the features its client declared, and relays the upstream's requests for them", async () => {
    const client = await connectClient({ roots: { listChanged: true } });
    expect(textOf((await client.callTool({ name: "roots", arguments: {} })) as never)).toBe("file:///w");
    expect(offered()).toEqual([{}, { roots: { listChanged: true } }]);
  });
});

describe("tessera gateway that cannot start", () => {
  const gateway = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [cliPath, "gateway", "--policy", join(dir, "policy.yaml"), ...args], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ...upstreamEnv(dir), ...env },
      input: "",
    });
  const upstream = ["--", process.execPath, upstreamScript];
  const noStore = () => expect(existsSync(join(dir, ".tessera"))).toBe(false);

  it("leaves no .tessera/gateway.db when the upstream will not start (exit 4)", () => {
    writePolicy(dir, 4);
    const r = gateway(["--context", "context.json", "--", join(dir, "no-such-upstream")]);
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/^tessera gateway: cannot connect to the upstream: /);
    noStore();
  });

  it("leaves no store for a bad policy (exit 2)", () => {
    writePolicy(dir, 4);
    writeFileSync(join(dir, "policy.yaml"), "version: 2\n");
    expect(gateway(["--context", "context.json", ...upstream]).status).toBe(2);
    noStore();
  });

  it("refuses a trusted context the policy cannot bind before serving (exit 2), and leaves no store", () => {
    writePolicy(dir, 4);
    writeFileSync(join(dir, "context.json"), JSON.stringify({ customer_id: { id: "c-1" } }));
    const r = gateway(["--context", "context.json", ...upstream]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 2,
      stderr: "tessera gateway: trusted context field `customer_id` is an object, not a scalar\n",
    });
    expect(existsSync(join(dir, "counter.jsonl"))).toBe(false);
    noStore();
    writeFileSync(join(dir, "context.json"), JSON.stringify({ customer_id: ["c-1", "c-2"] }));
    expect(gateway(["--context", "context.json", ...upstream]).stderr).toMatch(
      /^tessera gateway: trusted context field `customer_id` is a list, not a scalar\n$/,
    );
    noStore();
  });

  it("says which context fields are missing, and serves", () => {
    writePolicy(dir, 4);
    const r = gateway(["--store", join(dir, "s.db"), ...upstream]); // no --context; stdin closed at once
    expect(r.stderr).toContain(
      "tessera gateway: the trusted context has no `customer_id`: checks binding it block with binding_missing\n",
    );
    expect(r.status).toBe(0);
  });
});
