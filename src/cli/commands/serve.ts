import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { TesseraError, UsageError } from "../../platform/errors.js";
import { printable } from "../../platform/format.js";
import { parseErrorLine } from "../../platform/json.js";
import { parseDuration } from "../../review/duration.js";
import { parse } from "../args.js";
import { type Command, EXIT, type Io } from "../io.js";

const USAGE =
  "usage: tessera serve --policy <file> [--port <n>] [--host <addr>] [--store <file|postgres://…>] [options]\n" +
  "       tessera serve --openapi\n\n" +
  "an HTTP decision service: POST /v1/check, /v1/grade, /v1/verify, GET /v1/reviews/<id>, /healthz, /readyz\n" +
  "(specs/serve.md); every answer is what the matching tessera command prints as JSON\n\n" +
  "  --policy <file>               the policy (YAML)\n" +
  "  --port <n>                    the port (default 8337; 0 picks a free one, printed on stderr)\n" +
  "  --host <addr>                 the address to bind (default 127.0.0.1)\n" +
  "  --store <file|postgres://…>   review queue and audit log (default TESSERA_STORE, else .tessera/gateway.db);\n" +
  "                                several instances share one Postgres store\n" +
  "  --create                      create a Postgres store's tables if missing (a file is always created)\n" +
  "  --callers <file>              callers (YAML/JSON): [{name, token_env | token, context: [keys]}];\n" +
  "                                without it, one caller with the bearer token TESSERA_SERVE_TOKEN\n" +
  "  --workspace <dir>             the workspace POST /v1/verify checks proposals against\n" +
  "  --max-body <bytes>            the largest request body (default 1048576)\n" +
  "  --max-concurrent <n>          requests decided at once; more get 503 (default 64)\n" +
  "  --deadline <duration>         a request's deadline (default 10s)\n" +
  "  --approval-ttl <duration>     how long an approval stays valid (default 15m)\n" +
  "  --review-ttl <duration>       how long a held call waits for a reviewer (default 1d)\n" +
  "  --probe-interval <duration>   how often /readyz probes the required Sources (default 5s)\n" +
  "  --openapi                     print the OpenAPI 3.1 document and exit\n\n" +
  "exit codes: 0 after a clean shutdown (SIGTERM, SIGINT), 2 usage or configuration error (no token)";

function whole(text: string | undefined, flag: string, min: number, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(`\`--${flag}\` takes a whole number of at least ${min}, got \`${text}\``);
  return n;
}

function readCallers(file: string, io: Io): { name: string; document: unknown } {
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), "utf8");
  } catch {
    throw new TesseraError("input_not_found", `cannot read callers file \`${file}\``);
  }
  try {
    return { name: file, document: parseYaml(text) as unknown };
  } catch (err) {
    throw new TesseraError("input_invalid", `${file}: ${parseErrorLine(err)}`);
  }
}

/** `tessera serve`: the HTTP decision service. */
export const serve: Command = {
  name: "serve",
  summary: "serve decisions over HTTP (check, grade, verify, reviews) on 127.0.0.1",
  usage: USAGE,
  async run(args, io) {
    const { values } = parse(args, {
      policy: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      store: { type: "string" },
      create: { type: "boolean" },
      callers: { type: "string" },
      workspace: { type: "string" },
      "max-body": { type: "string" },
      "max-concurrent": { type: "string" },
      deadline: { type: "string" },
      "approval-ttl": { type: "string" },
      "review-ttl": { type: "string" },
      "probe-interval": { type: "string" },
      openapi: { type: "boolean" },
    });
    if (values.openapi === true) {
      const { openApiDocument } = await import("../../serve/openapi.js");
      io.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
      return EXIT.ok;
    }
    if (values.policy === undefined || values.policy === "") throw new UsageError("missing required option `--policy`");
    const port = whole(values.port, "port", 0, 8337);
    if (port > 65535) throw new UsageError(`\`--port\` must be a port number, got \`${values.port}\``);
    const host = values.host ?? "127.0.0.1";
    if (host === "") throw new UsageError("`--host` needs an address");
    const ms = (text: string | undefined, flag: string) => (text === undefined ? undefined : parseDuration(text, flag));
    const limits = {
      maxBodyBytes: whole(values["max-body"], "max-body", 1, 1024 * 1024),
      maxConcurrent: whole(values["max-concurrent"], "max-concurrent", 1, 64),
      deadlineMs: ms(values.deadline, "deadline") ?? 10_000,
    };
    const [
      { loadPolicy },
      { loadCallers },
      { resolveStore },
      { startServe },
      { createLiveGate },
      { createEngine },
      { registryOpener },
      { shadowSummary },
    ] = await Promise.all([
      import("../../checks/load.js"),
      import("../../serve/auth.js"),
      import("../../review/open.js"),
      import("../../serve/start.js"),
      import("../../live-gate.js"),
      import("../../checks/index.js"),
      import("../../gate.js"),
      import("../../checks/mode.js"),
    ]);
    const callerInput = {
      env: io.env,
      ...(values.callers === undefined ? {} : { file: readCallers(values.callers, io) }),
    };
    // the policy is reloaded on SIGHUP or when its file changes (adr/0130); one that does not load,
    // or whose context the callers file does not fit, keeps the old one in force
    const live = await createLiveGate({
      file: values.policy,
      cwd: io.cwd,
      load: (file) => loadPolicy(file, { env: io.env, cwd: io.cwd }),
      // the engine alone: the service writes each decision event itself
      build: (p) => createEngine(p, registryOpener(p)),
      validate: (p) => void loadCallers(callerInput, p.context),
      note: (p) => shadowSummary(p),
      onEvent: (line) => io.stderr.write(`tessera serve: ${printable(line)}\n`),
    });
    const policy = live.policy;
    // no caller, no service: checked before anything opens
    let callers: ReturnType<typeof loadCallers>;
    try {
      callers = loadCallers(callerInput, policy.context);
    } catch (err) {
      await live.close();
      throw err;
    }
    let workspace;
    if (values.workspace !== undefined) {
      const dir = resolve(io.cwd, values.workspace);
      const [{ openWorkspace }, { groundQuestion }] = await Promise.all([
        import("../../evidence/index.js"),
        import("../../answers/index.js"),
      ]);
      (await openWorkspace(dir)).close(); // a missing or unreadable workspace stops the start
      workspace = async () => {
        const ws = await openWorkspace(dir);
        return {
          ground: (q: string) => groundQuestion(ws, q),
          getRecord: (id: string) => ws.getRecord(id),
          close: () => ws.close(),
        };
      };
    }
    const approvalTtlMs = ms(values["approval-ttl"], "approval-ttl");
    const reviewTtlMs = ms(values["review-ttl"], "review-ttl");
    const probeIntervalMs = ms(values["probe-interval"], "probe-interval");
    let serving: Awaited<ReturnType<typeof startServe>>;
    try {
      serving = await startServe({
        policy,
        live,
        callers,
        store: resolveStore(values.store, io.env, io.cwd),
        create: values.create === true,
        host,
        port,
        limits,
        ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
        ...(reviewTtlMs === undefined ? {} : { reviewTtlMs }),
        ...(probeIntervalMs === undefined ? {} : { probeIntervalMs }),
        ...(workspace === undefined ? {} : { workspace }),
        log: (line) => io.stderr.write(`${line}\n`),
      });
    } catch (err) {
      await live.close();
      throw err;
    }
    if (policy.audit !== undefined)
      io.stderr.write(
        "tessera serve: note: decisions are audited in the store; the policy's `audit.path` is not used\n",
      );
    if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(host))
      io.stderr.write(
        `tessera serve: note: ${host} is reachable beyond this machine and the service has no TLS: put a TLS terminator in front\n`,
      );
    io.stderr.write(
      `tessera serve: listening on ${serving.url} (policy ${policy.digest}, store ${serving.storeKind}, callers ${callers.names.join(", ")})\n`,
    );
    const shadow = shadowSummary(policy);
    if (shadow !== null) io.stderr.write(`tessera serve: ${shadow}\n`);
    live.watch();
    await new Promise<void>((resolveStop) => {
      const stop = () => {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        io.stderr.write("tessera serve: shutting down: answering the requests in flight\n");
        void serving
          .close()
          .then(() => live.close())
          .finally(resolveStop);
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    });
    io.stderr.write("tessera serve: stopped\n");
    return EXIT.ok;
  },
};
