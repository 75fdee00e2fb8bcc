import type { Decision } from "../../checks/decision.js";
import { claudeCodeAnswer, claudeCodeCall, type HookAnswer } from "../../hooks/claude-code.js";
import { copilotAnswer, copilotCall } from "../../hooks/copilot.js";
import {
  errorVerdict,
  type HookCall,
  type HookVerdict,
  isObject,
  policyToolName,
  verdictOf,
} from "../../hooks/verdict.js";
import { TesseraError, UsageError } from "../../platform/errors.js";
import { parseJson } from "../../platform/json.js";
import { parse, required } from "../args.js";
import { readInputText, readStdin } from "../input.js";
import type { Command, Io } from "../io.js";

interface Protocol {
  readonly call: (input: unknown) => HookCall;
  readonly answer: (v: HookVerdict) => HookAnswer;
}

/** The coding agents whose pre-tool hook `tessera hook` speaks. */
const AGENTS: Readonly<Record<string, Protocol>> = {
  "claude-code": { call: claudeCodeCall, answer: claudeCodeAnswer },
  copilot: { call: (input) => copilotCall(input, parseJson), answer: copilotAnswer },
};

const message = (err: unknown) => (err instanceof Error ? err.message.split("\n")[0]! : String(err));

/** Ground the call on stdin; every failure on the way is an error verdict, never an allow. */
async function decide(args: readonly string[], protocol: Protocol, io: Io): Promise<HookVerdict> {
  try {
    const { values } = parse(args, { policy: { type: "string" }, context: { type: "string" } });
    const policyFile = required(values.policy, "policy");
    let context: Record<string, unknown> = {};
    if (values.context !== undefined) {
      const parsed = parseJson(
        await readInputText(values.context, io).catch(() => {
          throw new TesseraError("context_unreadable", `no such context file \`${values.context}\``);
        }),
      );
      if (!isObject(parsed))
        throw new TesseraError("context_invalid", `${values.context}: trusted context is a json object of fields`);
      context = parsed;
    }
    const text = await readStdin(io);
    if (text.trim() === "") throw new UsageError("stdin: no hook input (the agent sends the call as json)");
    let input: unknown;
    try {
      input = parseJson(text);
    } catch (err) {
      // the JSON reader's own words differ between Node versions: only Tessera's (a duplicate key) are kept
      throw new UsageError(
        `stdin: the hook input is not valid json${err instanceof TesseraError ? ` (${err.message})` : ""}`,
      );
    }
    const call = protocol.call(input);
    // loaded after the input is read: a malformed input answers without loading the engine
    const [{ loadPolicyCached }, { createGate }] = await Promise.all([
      import("../../checks/policy-cache.js"),
      import("../../gate.js"),
    ]);
    const policy = await loadPolicyCached(policyFile, { env: io.env, cwd: io.cwd });
    const gate = createGate(policy);
    let decision: Decision;
    try {
      decision = await gate.check(
        { tool: policyToolName(call.tool, policy.tools), arguments: call.arguments },
        context,
      );
    } finally {
      await gate.close();
    }
    return verdictOf(decision);
  } catch (err) {
    return errorVerdict(message(err));
  }
}

/** `tessera hook <agent>`: a coding agent's pre-tool hook, answered in that agent's protocol. */
export const hook: Command = {
  name: "hook",
  summary: "answer a coding agent's pre-tool hook (Claude Code, GitHub Copilot): allow, deny or ask",
  usage:
    "usage: tessera hook <claude-code|copilot> --policy <file> [--context <file>]\n\n" +
    "  --policy <file>     the policy (YAML)\n" +
    '  --context <file>    trusted context from the host: {"customer_id": "..."}\n\n' +
    "reads the agent's pre-tool hook input on stdin and prints its decision in that agent's protocol:\n" +
    "  claude-code  allow / deny (with the failing checks) / ask on hold, exit 0; an error exits 2 (a block)\n" +
    "  copilot      allow / deny (also on hold and on error), exit 0\n" +
    "a malformed input or any error denies the call",
  async run(args, io) {
    const [agent, ...rest] = args;
    if (agent === undefined || agent.startsWith("-"))
      throw new UsageError("`hook` takes the agent: `claude-code` or `copilot`");
    const protocol = Object.hasOwn(AGENTS, agent) ? AGENTS[agent] : undefined;
    if (protocol === undefined)
      throw new UsageError(`unknown agent \`${agent}\` (known: \`claude-code\`, \`copilot\`)`);
    const answer = protocol.answer(await decide(rest, protocol, io));
    io.stdout.write(answer.stdout);
    io.stderr.write(answer.stderr);
    return answer.exit;
  },
};
