import { digestOf } from "../../platform/digest.js";
import { UsageError } from "../../platform/errors.js";
import { parseDuration } from "../../review/duration.js";
import { openGatewayStore, resolveStore } from "../../review/open.js";
import { parse, required } from "../args.js";
import { type Command, EXIT } from "../io.js";

const USAGE =
  "usage: tessera gateway --policy <file> [options] -- <upstream command> [args…]\n" +
  "       tessera gateway --policy <file> [options] --upstream-url <http://…/mcp>\n\n" +
  "an MCP server (stdio) in front of an upstream MCP server: every tools/call is grounded first;\n" +
  "allow forwards, block answers with a tool error, hold queues the call for `tessera review`\n\n" +
  "  --policy <file>                the policy (YAML)\n" +
  "  --context <file>               trusted context from the host (also TESSERA_CONTEXT_JSON)\n" +
  "  --store <file|postgres://…>    review queue, tool pins and audit log (default TESSERA_STORE, else .tessera/gateway.db)\n" +
  "  --approval-ttl <duration>      how long an approval stays valid (default 15m)\n" +
  "  --upstream-timeout <duration>  how long to wait for the upstream (default 30s)\n" +
  "  --upstream-url <url>           a Streamable HTTP upstream instead of a command";

/** Split `[options] -- <command> [args…]` at the first `--`. */
function splitAtDashes(args: readonly string[]): { options: readonly string[]; command: readonly string[] } {
  const i = args.indexOf("--");
  return i < 0 ? { options: args, command: [] } : { options: args.slice(0, i), command: args.slice(i + 1) };
}

/** `tessera gateway`: ground every tool call in front of an upstream MCP server. */
export const gateway: Command = {
  name: "gateway",
  summary: "put grounding checks, a review queue and an audit log in front of an MCP server",
  usage: USAGE,
  async run(args, io) {
    const { options, command } = splitAtDashes(args);
    const { values } = parse(options, {
      policy: { type: "string" },
      context: { type: "string" },
      store: { type: "string" },
      "approval-ttl": { type: "string" },
      "upstream-timeout": { type: "string" },
      "upstream-url": { type: "string" },
    });
    const policyFile = required(values.policy, "policy");
    const url = values["upstream-url"];
    if (url === undefined && command.length === 0) throw new UsageError("missing the upstream: `-- <command> [args…]` or `--upstream-url <url>`");
    if (url !== undefined && command.length > 0) throw new UsageError("give either `-- <command>` or `--upstream-url`, not both");
    if (url !== undefined && !/^https?:\/\//.test(url)) throw new UsageError(`\`--upstream-url\` must be an http(s) url, got \`${url}\``);
    const approvalTtlMs = values["approval-ttl"] === undefined ? undefined : parseDuration(values["approval-ttl"], "approval-ttl");
    const upstreamTimeoutMs = values["upstream-timeout"] === undefined ? undefined : parseDuration(values["upstream-timeout"], "upstream-timeout");

    // everything is validated before the upstream starts
    const [{ loadPolicy }, { createEngine }, { registryOpener }, { decisionPayload }, { loadTrustedContext }] = await Promise.all([
      import("../../checks/load.js"),
      import("../../checks/engine.js"),
      import("../../sources/gate.js"),
      import("../../audit/decision.js"),
      import("../../mcp/context.js"),
    ]);
    const policy = await loadPolicy(policyFile, { env: io.env, cwd: io.cwd });
    const context = loadTrustedContext({ file: values.context, env: io.env, cwd: io.cwd }).values;
    const store = await openGatewayStore(resolveStore(values.store, io.env, io.cwd));
    // the engine itself, not createGate: the gateway writes the decision event (with its own fields)
    const engine = createEngine(policy, registryOpener(policy));
    const [{ createGateway }, { version }, { consoleToStderr }] = await Promise.all([
      import("../../mcp/gateway/gateway.js"),
      import("../version.js"),
      import("../../mcp/console.js"),
    ]);
    consoleToStderr();
    const upstreamEnv = Object.fromEntries(Object.entries(io.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("TESSERA_")));
    let gw;
    try {
      gw = await createGateway({
        upstream: url !== undefined ? { kind: "http", url } : { kind: "stdio", command: command[0]!, args: command.slice(1), env: upstreamEnv, cwd: io.cwd },
        decide: (call) => engine.check(call, context),
        describe: (d, call) => decisionPayload(d as Parameters<typeof decisionPayload>[0], call, context),
        reviews: store.reviews,
        audit: store.audit,
        policyDigest: policy.digest,
        contextDigest: digestOf(context),
        version,
        ...(approvalTtlMs !== undefined ? { approvalTtlMs } : {}),
        ...(upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs } : {}),
        onDiagnostic: (line) => io.stderr.write(`${line}\n`),
      });
    } catch (err) {
      await engine.close();
      await store.close();
      throw err;
    }
    const running = gw;
    const done = new Promise<void>((resolve) => {
      let closing = false;
      const shutdown = () => {
        if (closing) return;
        closing = true;
        void running
          .drain()
          .then(() => running.close())
          .then(() => engine.close())
          .then(() => store.close())
          .finally(resolve);
      };
      running.server.onclose = shutdown;
      io.stdin.once("end", shutdown); // the MCP client is done sending; answer what is in flight, then stop
      process.once("SIGTERM", shutdown);
      process.once("SIGINT", shutdown);
    });
    await running.connectStdio();
    io.stderr.write(`tessera gateway: grounding tool calls with ${policy.digest} (store ${store.kind})\n`);
    await done;
    return EXIT.ok;
  },
};
