/**
 * `tessera demo`: every verdict Tessera gives, on the embedded examples, by running the very
 * commands it names — so each section is reproduced by copying its command line.
 * @module
 */
import { fileURLToPath } from "node:url";
import { styles } from "../../platform/format.js";
import { type Command, EXIT, type Io } from "../io.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface Step {
  readonly argv: readonly string[];
  /** The exit code this step must give; the demo fails loudly if a verdict changes. */
  readonly expect: number;
}

interface Section {
  readonly title: string;
  readonly blurb: string;
  readonly steps: readonly Step[];
}

const WS = "examples/ci-workspace";
const POLICY = ["--policy", "examples/refunds/policy.yaml", "--context", "examples/refunds/context.json"];

const SECTIONS: readonly Section[] = [
  {
    title: "1. Gate tool calls",
    blurb:
      "An agent signed in as customer c-1 proposes refunds and a cancellation; each argument is grounded in billing.db first.",
    steps: [
      { argv: ["check", ...POLICY, "--call", "examples/refunds/calls/refund-own-order.json"], expect: EXIT.ok },
      {
        argv: ["check", ...POLICY, "--call", "examples/refunds/calls/refund-someone-elses-order.json"],
        expect: EXIT.failed,
      },
      { argv: ["check", ...POLICY, "--call", "examples/refunds/calls/cancel-delivered-order.json"], expect: EXIT.hold },
    ],
  },
  {
    title: "2. Draft actions",
    blurb:
      "Proposals drafted from a failed CI run and from a pull request; every field is verbatim evidence, re-verified. Nothing is executed.",
    steps: [
      { argv: ["draft", "incident", "--workspace", WS, "why did run 7001 fail?"], expect: EXIT.ok },
      { argv: ["draft", "pr_summary", "--workspace", WS, "summarize PR 48"], expect: EXIT.ok },
    ],
  },
  {
    title: "3. Catch a tampered proposal",
    blurb:
      'The incident above, with " and the database was deleted" appended to one field: the approver\'s check refuses it.',
    steps: [
      {
        argv: ["verify", "--proposal", "examples/proposals/incident-7001-tampered.json", "--workspace", WS],
        expect: EXIT.failed,
      },
    ],
  },
  {
    title: "4. Grade answers",
    blurb:
      "Three answers about the same policy document: supported, one unsupported detail, and an evaluator that timed out.",
    steps: [
      { argv: ["grade", "--input", "examples/grading/supported.json"], expect: EXIT.ok },
      { argv: ["grade", "--input", "examples/grading/unsupported.json"], expect: EXIT.failed },
      { argv: ["grade", "--input", "examples/grading/unavailable.json"], expect: EXIT.unavailable },
    ],
  },
];

const VERDICT: Readonly<Record<number, string>> = {
  0: "exit 0",
  1: "exit 1",
  3: "exit 3 (hold)",
  4: "exit 4 (unavailable)",
};

function quote(arg: string): string {
  return /^[\w./@:=-]+$/.test(arg) ? arg : `"${arg}"`;
}

// the commands the demo runs, loaded directly (going through main.ts would make an import cycle)
const STEP_COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  check: async () => (await import("./check.js")).check,
  draft: async () => (await import("./draft.js")).draft,
  verify: async () => (await import("./verify.js")).verify,
  grade: async () => (await import("./grade.js")).grade,
};

async function runStep(step: Step, io: Io): Promise<{ code: number; out: string; err: string }> {
  const [name, ...args] = step.argv;
  let out = "";
  let err = "";
  const capture: Io = {
    stdout: {
      write: (s: string) => {
        out += s;
        return true;
      },
      isTTY: io.stdout.isTTY,
    },
    stderr: {
      write: (s: string) => {
        err += s;
        return true;
      },
      isTTY: false,
    },
    stdin: io.stdin,
    env: io.env,
    cwd: ROOT,
  };
  try {
    const command = await STEP_COMMANDS[name!]!();
    return { code: await command.run(args, capture), out, err };
  } catch (e) {
    return { code: EXIT.usage, out, err: `${err + (e instanceof Error ? e.message : String(e))}\n` };
  }
}

/** `tessera demo`. */
export const demo: Command = {
  name: "demo",
  summary: "walk through every verdict on the embedded examples",
  usage: "usage: tessera demo\n\nruns tessera check, draft, verify and grade on examples/ and prints what each printed",
  async run(_args, io) {
    const s = styles(io);
    io.stdout.write(
      `${s.bold("Tessera")} — a deterministic, offline trust layer for AI agents.\n` +
        s.dim(
          "Every section below is a real command on the embedded examples; run it yourself from the package folder.\n",
        ),
    );
    let surprises = 0;
    for (const section of SECTIONS) {
      io.stdout.write(`\n${s.bold(s.cyan(section.title))}\n${section.blurb}\n`);
      for (const step of section.steps) {
        const { code, out, err } = await runStep(step, io);
        io.stdout.write(
          `\n${s.dim("$")} ${s.bold(["npx tessera", ...step.argv.map(quote)].join(" "))}   ${s.dim(VERDICT[code] ?? `exit ${code}`)}\n`,
        );
        io.stdout.write(out.replace(/^(?=.)/gm, "  "));
        if (code !== step.expect) {
          surprises++;
          io.stderr.write(`tessera demo: \`${step.argv.join(" ")}\` exited ${code}, expected ${step.expect}\n${err}`);
        }
      }
    }
    io.stdout.write(
      `\n${s.dim("Every verdict above is also a case in cases/: run `npm test` or `npx tessera test`.")}\n`,
    );
    return surprises === 0 ? EXIT.ok : EXIT.failed;
  },
};
