#!/usr/bin/env node
/**
 * `tessera` — the command-line entry point. Subcommands load lazily, so `tessera check` never
 * loads the MCP SDK and `tessera ground` never loads a database driver it does not use.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TesseraError } from "../platform/errors.js";
import { printable } from "../platform/printable.js";
import { type Command, EXIT, type Io, processIo } from "./io.js";

interface Entry {
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

/** Every subcommand, in the order `tessera help` lists them. */
export const COMMANDS: Readonly<Record<string, Entry>> = {
  demo: {
    summary: "walk through every verdict on the embedded examples",
    load: async () => (await import("./commands/demo.js")).demo,
  },
  test: {
    summary: "run verdict cases from cases/ (or the given paths)",
    load: async () => (await import("./commands/test.js")).test,
  },
  ingest: {
    summary: "ingest a CI workspace (runs, logs, PRs, tickets) or a git range",
    load: async () => (await import("./commands/ingest.js")).ingest,
  },
  ground: {
    summary: "answer a question about a CI run or a change with verified, cited claims",
    load: async () => (await import("./commands/ground.js")).ground,
  },
  check: {
    summary: "ground a tool call's arguments against a policy: allow, block or hold",
    load: async () => (await import("./commands/check.js")).check,
  },
  hook: {
    summary: "answer a coding agent's pre-tool hook (Claude Code, GitHub Copilot): allow, deny or ask",
    load: async () => (await import("./commands/hook.js")).hook,
  },
  policy: {
    summary: "lint a policy file, or print its JSON Schema",
    load: async () => (await import("./commands/policy.js")).policy,
  },
  mcp: {
    summary: "serve Tessera's tools to MCP clients (stdio, or HTTP on 127.0.0.1)",
    load: async () => (await import("./commands/mcp.js")).mcp,
  },
  gateway: {
    summary: "ground every tool call in front of an MCP server, with review queue and audit log",
    load: async () => (await import("./commands/gateway.js")).gateway,
  },
  serve: {
    summary: "serve decisions over HTTP (check, grade, verify, reviews) on 127.0.0.1",
    load: async () => (await import("./commands/serve.js")).serve,
  },
  review: {
    summary: "list, show, approve or deny calls the gateway held; re-approve changed tools",
    load: async () => (await import("./commands/review.js")).review,
  },
  audit: {
    summary: "export the audit log as JSON lines",
    load: async () => (await import("./commands/audit.js")).audit,
  },
  grade: {
    summary: "grade an answer against its evidence: supported, unsupported or unavailable",
    load: async () => (await import("./commands/grade.js")).grade,
  },
  actions: {
    summary: "list the action kinds Tessera drafts (nothing is executed)",
    load: async () => (await import("./commands/actions.js")).actions,
  },
  draft: {
    summary: "draft an incident or PR-summary proposal from grounded evidence",
    load: async () => (await import("./commands/draft.js")).draft,
  },
  verify: {
    summary: "re-verify a proposal against a workspace, or claims against their evidence",
    load: async () => (await import("./commands/verify.js")).verify,
  },
  bench: {
    summary: "run the benchmarks and write bench/RESULTS.md",
    load: async () => (await import("./commands/bench.js")).bench,
  },
};

function help(io: Io): void {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, e]) => `  ${name.padEnd(width)}  ${e.summary}`);
  io.stdout.write(
    "tessera — a deterministic, offline trust layer for AI agents\n\n" +
      "usage: tessera <command> [options]\n\n" +
      "commands:\n" +
      lines.join("\n") +
      "\n\n" +
      "exit codes: 0 allow/supported/passed, 1 block/unsupported/failed, 2 usage or configuration error,\n" +
      "            3 hold, 4 unavailable\n" +
      "run `tessera <command> --help` for a command's options\n",
  );
}

/** Run `tessera` with `argv` (without `node` and the script); returns the exit code. */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    help(io);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version" || name === "-v") {
    const { version } = await import("../platform/version.js");
    io.stdout.write(`${version}\n`);
    return EXIT.ok;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    io.stderr.write(`tessera: unknown command \`${name}\` (run \`tessera help\`)\n`);
    return EXIT.usage;
  }
  try {
    const command = await entry.load();
    if (rest.includes("--help") || rest.includes("-h")) {
      io.stdout.write(`${command.usage}\n`);
      return EXIT.ok;
    }
    return await command.run(rest, io);
  } catch (err) {
    // messages quote input (file names, keys, values): one printable line each
    // a TesseraError names its exit code: 2 for usage and configuration, 4 for a Source or upstream
    if (err instanceof TesseraError) {
      io.stderr.write(`tessera ${name}: ${printable(err.message)}\n`);
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`tessera ${name}: internal error: ${printable(message)}\n`);
    if (io.env.TESSERA_DEBUG && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
    return EXIT.usage;
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** Exit code of a process whose reader went away, as a shell reports one ended by SIGPIPE. */
const CLOSED_PIPE_EXIT = 128 + 13;

// `tessera test | head`: the reader closing the pipe is not our error, and no stack trace is printed
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(CLOSED_PIPE_EXIT);
    throw err;
  });
}

if (isEntryPoint()) {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`tessera: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = EXIT.usage;
    },
  );
}
