import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../platform/errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type OptionValue<O> = O extends { type: "boolean" }
  ? O extends { multiple: true }
    ? boolean[]
    : boolean
  : O extends { multiple: true }
    ? string[]
    : string;

/** Parsed options (each possibly absent) and positionals. */
export interface Parsed<T extends Options> {
  readonly values: { readonly [K in keyof T]?: OptionValue<T[K]> };
  readonly positionals: readonly string[];
}

/** `util.parseArgs` in strict mode, with its errors turned into one-line usage errors. */
export function parse<T extends Options>(args: readonly string[], options: T, allowPositionals = false): Parsed<T> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals, strict: true }) as unknown as Parsed<T>;
  } catch (err) {
    const message = err instanceof Error ? err.message.split("\n")[0]!.replace(/\.$/, "") : String(err);
    throw new UsageError(message.charAt(0).toLowerCase() + message.slice(1));
  }
}

/** The value of a required option, or a usage error naming it. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`missing required option \`--${flag}\``);
  return value;
}
