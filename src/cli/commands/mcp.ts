import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { UsageError } from "../../platform/errors.js";
import { parse } from "../args.js";
import { type Command, EXIT } from "../io.js";

const USAGE = `usage: tessera mcp [--workspace <dir>] [--policy <file> [--context <file>]] [--http [--port <n>]]

serves Tessera's tools to an MCP client: list_actions, draft_action, ground, verify_claims,
check_tool_call, grade_answer. Nothing is executed: every tool only reads and verifies.

  --workspace <dir>   the evidence workspace for ground and draft_action
  --policy <file>     the policy for check_tool_call
  --context <file>    trusted context for check_tool_call (a JSON object); also read from
                      TESSERA_CONTEXT_JSON (the file wins a key). Never taken from the caller
  --http              serve Streamable HTTP on 127.0.0.1 instead of stdio; needs a bearer token
                      of at least 16 characters in TESSERA_MCP_TOKEN
  --port <n>          the HTTP port (default 0: a free port, printed on stderr)

stdio by default: stdout carries only the protocol, diagnostics go to stderr.`;

/** `tessera mcp`: the MCP server. It loads the MCP SDK lazily, so no other command ever does. */
export const mcp: Command = {
  name: "mcp",
  summary: "serve Tessera's tools to MCP clients (stdio, or Streamable HTTP on 127.0.0.1)",
  usage: USAGE,
  async run(args, io) {
    const { values } = parse(args, {
      workspace: { type: "string" },
      policy: { type: "string" },
      context: { type: "string" },
      http: { type: "boolean" },
      port: { type: "string" },
    });
    if (values.context !== undefined && values.policy === undefined)
      throw new UsageError("`--context` needs `--policy`");
    if (values.port !== undefined && values.http !== true) throw new UsageError("`--port` needs `--http`");
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535 || !/^\d+$/.test(values.port ?? "0")) {
      throw new UsageError(`\`--port\` must be a port number, got \`${values.port ?? ""}\``);
    }
    const m = await import("../../mcp/index.js");
    const token = values.http === true ? m.tokenFrom(io.env) : undefined;
    const log = (line: string) => void io.stderr.write(`tessera mcp: ${line}\n`);
    const context =
      values.policy === undefined
        ? undefined
        : m.loadTrustedContext({ file: values.context, env: io.env, cwd: io.cwd });
    const services = await m.openServices({
      ...(values.workspace === undefined ? {} : { workspace: resolve(io.cwd, values.workspace) }),
      ...(values.policy === undefined ? {} : { policy: resolve(io.cwd, values.policy) }),
      ...(context === undefined ? {} : { context: context.values }),
      watch: true,
      onPolicyEvent: log,
    });
    if (context !== undefined) {
      const from =
        context.origins.length === 0
          ? "nowhere (none configured)"
          : context.origins.map((o) => (o === "env" ? m.CONTEXT_ENV : "--context")).join(" and ");
      log(
        `trusted context keys bound: ${context.bound.length === 0 ? "none" : context.bound.join(", ")} (from ${from})`,
      );
    }
    if (services.gate !== null) {
      const { shadowSummary } = await import("../../checks/mode.js");
      const shadow = shadowSummary(services.gate.policy);
      if (shadow !== null) log(`check_tool_call: ${shadow}`);
    }
    const tools = m
      .toolDefs()
      .map((t) => t.name)
      .join(", ");
    try {
      if (token === undefined) {
        m.consoleToStderr();
        log(`serving ${tools} over stdio`);
        await m.serveStdio(services, {
          stdin: io.stdin as Readable,
          stdout: io.stdout as unknown as Writable,
          stderr: io.stderr as unknown as Writable,
        });
        return EXIT.ok;
      }
      const handle = await m.serveHttp(services, { port, token, log });
      log(`serving ${tools} at ${handle.url}`);
      await new Promise<void>((done) => {
        process.once("SIGINT", done);
        process.once("SIGTERM", done);
      });
      await handle.close();
      return EXIT.ok;
    } finally {
      await services.close();
    }
  },
};
