/**
 * The MCP server: the SDK's `McpServer` with Tessera's tools registered (zod input and output
 * schemas), and a `tools/call` handler that gives every failure a stable code (adr/0030).
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { checkTrustedContext, loadPolicy } from "../checks/index.js";
import { jsonOut } from "../platform/format.js";
import { version } from "../platform/version.js";
import { openWorkspace } from "../evidence/index.js";
import { createGate } from "../gate.js";
import { createLiveGate } from "../live-gate.js";
import { shadowSummary } from "../checks/mode.js";
import { EMPTY_CONTEXT, trustedContext } from "./context.js";
import { ERROR_META_KEY, type ToolErrorInfo, toolErrorOf, toolErrorOfIssues } from "./errors.js";
import { exceedsTotals } from "./limits.js";
import { ToolCallRequest } from "./requests.js";
import { type Services, type ToolDef, toolDefs } from "./tools.js";

/** What a Tessera MCP server serves. Every member is optional; a tool that needs a missing one says so. */
export interface TesseraServerConfig {
  /** A workspace directory (specs/workspace.md) for `ground` and `draft_action`. */
  readonly workspace?: string;
  /** A policy file (specs/policy.md) for `check_tool_call`. */
  readonly policy?: string;
  /** Trusted context for `check_tool_call`, from the host — never from the caller. */
  readonly context?: Readonly<Record<string, unknown>>;
  /** Reload the policy on SIGHUP and when its file changes (adr/0130; `tessera mcp` does). */
  readonly watch?: boolean;
  /** Where reloads and kept policies are reported, one line each. */
  readonly onPolicyEvent?: (line: string) => void;
}

/** Open what `config` names, once; the result is shared by every session of one process. */
export async function openServices(config: TesseraServerConfig): Promise<Services> {
  const context = config.context === undefined ? EMPTY_CONTEXT : trustedContext(config.context);
  const gate =
    config.policy === undefined
      ? null
      : await createLiveGate({
          file: config.policy,
          load: (file) => loadPolicy(file),
          build: (p) => createGate(p),
          validate: (p) => void checkTrustedContext(p, context.values),
          note: (p) => shadowSummary(p),
          ...(config.onPolicyEvent !== undefined ? { onEvent: config.onPolicyEvent } : {}),
        });
  // the context is fixed for the server's life: a field the policy names that cannot be bound stops it here
  if (gate !== null) {
    try {
      checkTrustedContext(gate.policy, context.values);
    } catch (err) {
      await gate.close();
      throw err;
    }
    if (config.watch === true) gate.watch();
  }
  let workspace = null;
  try {
    workspace = config.workspace === undefined ? null : await openWorkspace(config.workspace);
  } catch (err) {
    await gate?.close();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return {
    context,
    gate,
    workspace,
    close: () =>
      (closed ??= (async () => {
        workspace?.close();
        await gate?.close();
      })()),
  };
}

/**
 * A new `McpServer` over opened services (one per HTTP request in stateless mode). `track` sees every
 * tool call in flight, so a transport can let them finish before it closes.
 */
export function buildServer(services: Services, track?: (call: Promise<unknown>) => void): McpServer {
  const server = new McpServer({ name: "tessera", version });
  const defs = new Map<string, ToolDef>();
  for (const def of toolDefs()) {
    defs.set(def.name, def);
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: def.description,
        inputSchema: def.input,
        outputSchema: def.output,
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: def.openWorld === true,
        },
      },
      // never reached: the tools/call handler below runs every tool (it validates with stable codes)
      () => ({ content: [], isError: true }),
    );
  }
  // The SDK's own handler reports bad arguments as uncoded text; ours gives each failure a code.
  server.server.setRequestHandler(ToolCallRequest, (request) => {
    const result = callTool(defs, services, request.params.name, request.params.arguments);
    track?.(result);
    return result;
  });
  return server;
}

/** Run one tool call: limits, strict input, the handler, then the output schema. Never throws. */
async function callTool(
  defs: ReadonlyMap<string, ToolDef>,
  services: Services,
  name: string,
  args: unknown,
): Promise<CallToolResult> {
  const def = defs.get(name);
  if (def === undefined) return errorResult({ code: "unknown_tool", message: `unknown tool \`${name}\``, path: null });
  const input = args ?? {};
  const over = exceedsTotals(input);
  if (over !== null) return errorResult({ code: "input_too_large", message: over, path: null });
  const parsed = def.input.safeParse(input, { reportInput: true });
  if (!parsed.success) return errorResult(toolErrorOfIssues(parsed.error.issues, def.hints));
  try {
    const out = await def.run(parsed.data, services);
    // exactly what `--json` prints: the same serializer, read back
    const structured = JSON.parse(jsonOut(out.structured)) as Record<string, unknown>;
    const checked = def.output.safeParse(structured);
    if (!checked.success) {
      return errorResult({
        code: "internal_error",
        message: `the result of \`${name}\` does not match its output schema`,
        path: null,
      });
    }
    const result: CallToolResult = { content: [{ type: "text", text: out.text }], structuredContent: structured };
    if (out.meta !== undefined) result._meta = { ...out.meta };
    return result;
  } catch (err) {
    return errorResult(toolErrorOf(err));
  }
}

function errorResult(info: ToolErrorInfo): CallToolResult {
  return {
    content: [{ type: "text", text: `${info.code}: ${info.message}` }],
    isError: true,
    _meta: { [ERROR_META_KEY]: info },
  };
}

/**
 * A Tessera MCP server for `config`, ready to `connect` to a transport. Closing it releases the
 * workspace and the gate.
 * @example const server = await createTesseraServer({ workspace: "examples/ci-workspace" }); await server.connect(transport);
 */
export async function createTesseraServer(config: TesseraServerConfig = {}): Promise<McpServer> {
  const services = await openServices(config);
  const server = buildServer(services);
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void services.close();
  };
  return server;
}
