/**
 * The `tools/call` request schema Tessera's server and gateway register their handlers with.
 *
 * The SDK parses each request with the schema a handler was registered with before anything else
 * runs, and a failure there reaches the client as `-32603` (internal error) with a multi-line dump
 * of zod issues. Malformed params are the client's mistake, so this schema checks them itself and
 * answers with `-32602` (invalid params) and one line that names the field.
 * @module
 */
import { CallToolRequestSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { describeValue, pathString } from "./errors.js";
import { isObject } from "../platform/objects.js";

const paramsSchema = CallToolRequestSchema.shape.params;

/**
 * What the SDK answers a request with: `code` and `message` as they are. (Its `McpError` puts
 * "MCP error -32602: " in front of the message, which the client's `McpError` then repeats.)
 */
class InvalidParams extends Error {
  readonly code = ErrorCode.InvalidParams;
}

/** A `tools/call` request whose params were checked against the protocol's schema. */
export const ToolCallRequest = z.object({
  method: z.literal("tools/call"),
  params: z.unknown().transform((params) => {
    const parsed = paramsSchema.safeParse(params, { reportInput: true });
    if (!parsed.success) throw new InvalidParams(invalidParamsMessage(params, parsed.error.issues));
    return parsed.data;
  }),
});

/** One line saying what is wrong with `params` of a `tools/call`, e.g. "`name` must be a string, not a number". */
export function invalidParamsMessage(params: unknown, issues: readonly z.core.$ZodIssue[]): string {
  const prefix = "invalid tools/call params";
  if (!isObject(params)) {
    return `${prefix}: expected an object with the tool's \`name\`, got ${valueKind(params)}`;
  }
  const issue = issues[0];
  if (issue === undefined) return prefix;
  const field = `\`${pathString(issue.path)}\``;
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return `${prefix}: ${field} is missing`;
    return `${prefix}: ${field} must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${valueKind(issue.input)}`;
  }
  return `${prefix}: ${field}: ${(issue.message.split("\n")[0] ?? "").replace(/\.$/, "")}`;
}

// zod's expected types, as the message names them
const EXPECTED: Readonly<Record<string, string>> = {
  object: "an object",
  record: "an object",
  array: "an array",
  string: "a string",
  number: "a number",
  boolean: "a boolean",
};

const valueKind = (v: unknown): string => (v === undefined ? "nothing" : describeValue(v));
