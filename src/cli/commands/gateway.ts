import { printable } from "../../platform/printable.js";
import { UsageError } from "../../platform/errors.js";
import { parseDuration } from "../../review/duration.js";
import { checkNotifyUrl, MAX_NOTIFY_URLS } from "../../review/notify.js";
import { MAX_HOLD_WAIT_MS } from "../../mcp/gateway/hold-wait.js";
import { isPostgres, openGatewayStore, resolveStore } from "../../review/open.js";
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
  "  --review-ttl <duration>        how long a held call waits for a reviewer before it expires (default 1d)\n" +
  "  --upstream-timeout <duration>  how long to wait for the upstream (default 30s)\n" +
  "  --hold-wait <duration>         keep a held call open up to this long (at most 10m) for a reviewer's decision\n" +
  "  --notify <url>                 POST an event to this http(s) URL when a call is held and when it is decided (repeatable)\n" +
  "  --notify-format <json|slack>   the events as JSON (default) or as Slack incoming-webhook text\n" +
  "  --create                       create a Postgres store's schema and tables if missing (a file is always created)\n" +
  "  --upstream-url <url>           a Streamable HTTP upstream instead of a command\n" +
  "  --upstream-header <'Name: value'>  a header sent with every request to --upstream-url (repeatable);\n" +
  "                                 ${VAR} in the value is read from the environment, so a token need not\n" +
  "                                 appear on the command line";

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `--upstream-header` values as a header map: `Name: value`, `${VAR}` taken from `env`. */
export function upstreamHeaders(
  specs: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const spec of specs) {
    const colon = spec.indexOf(":");
    const name = colon < 0 ? "" : spec.slice(0, colon).trim();
    // the value is never echoed: it may hold a token
    if (!HEADER_NAME.test(name))
      throw new UsageError("`--upstream-header` must be `Name: value`, with a header name before the colon");
    const value = spec
      .slice(colon + 1)
      .trim()
      .replace(ENV_REFERENCE, (_m, v: string) => {
        const got = env[v];
        if (got === undefined)
          throw new UsageError(`\`--upstream-header ${name}\`: environment variable \`${v}\` is not set`);
        return got;
      });
    if (/[\r\n\0]/.test(value)) throw new UsageError(`\`--upstream-header ${name}\`: the value must be one line`);
    if (Object.keys(headers).some((k) => k.toLowerCase() === name.toLowerCase()))
      throw new UsageError(`\`--upstream-header ${name}\` is given twice`);
    headers[name] = value;
  }
  return headers;
}

/** `--hold-wait`: a duration of at most `MAX_HOLD_WAIT_MS` (10 minutes). */
function holdWaitOf(text: string): number {
  const ms = parseDuration(text, "hold-wait");
  if (ms > MAX_HOLD_WAIT_MS) throw new UsageError(`\`--hold-wait\` is at most 10m, got \`${text}\``);
  return ms;
}

/** `--notify` URLs (checked, at most `MAX_NOTIFY_URLS`, each once) and `--notify-format`. */
function notifyOf(urls: readonly string[], format: string | undefined) {
  if (format !== undefined && format !== "json" && format !== "slack")
    throw new UsageError(`\`--notify-format\` expects \`json\` or \`slack\`, got \`${format}\``);
  if (urls.length === 0) {
    if (format !== undefined) throw new UsageError("`--notify-format` needs `--notify <url>`");
    return undefined;
  }
  if (urls.length > MAX_NOTIFY_URLS) throw new UsageError(`\`--notify\` is given at most ${MAX_NOTIFY_URLS} times`);
  for (const url of urls) checkNotifyUrl(url);
  if (new Set(urls).size !== urls.length) throw new UsageError("`--notify` is given the same URL twice");
  return { urls, format: format ?? "json" } as const;
}

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
      "review-ttl": { type: "string" },
      "upstream-timeout": { type: "string" },
      create: { type: "boolean" },
      "upstream-url": { type: "string" },
      "upstream-header": { type: "string", multiple: true },
      "hold-wait": { type: "string" },
      notify: { type: "string", multiple: true },
      "notify-format": { type: "string" },
    });
    const policyFile = required(values.policy, "policy");
    const url = values["upstream-url"];
    if (url === undefined && command.length === 0)
      throw new UsageError("missing the upstream: `-- <command> [args…]` or `--upstream-url <url>`");
    if (url !== undefined && command.length > 0)
      throw new UsageError("give either `-- <command>` or `--upstream-url`, not both");
    if (url !== undefined && !/^https?:\/\//.test(url))
      throw new UsageError(`\`--upstream-url\` must be an http(s) url, got \`${url}\``);
    const headerSpecs = values["upstream-header"] ?? [];
    if (headerSpecs.length > 0 && url === undefined)
      throw new UsageError(
        "`--upstream-header` needs `--upstream-url` (a command upstream gets its environment instead)",
      );
    const headers = upstreamHeaders(headerSpecs, io.env);
    const approvalTtlMs =
      values["approval-ttl"] === undefined ? undefined : parseDuration(values["approval-ttl"], "approval-ttl");
    const reviewTtlMs =
      values["review-ttl"] === undefined ? undefined : parseDuration(values["review-ttl"], "review-ttl");
    const holdWaitMs = values["hold-wait"] === undefined ? undefined : holdWaitOf(values["hold-wait"]);
    const notify = notifyOf(values.notify ?? [], values["notify-format"]);
    const upstreamTimeoutMs =
      values["upstream-timeout"] === undefined
        ? undefined
        : parseDuration(values["upstream-timeout"], "upstream-timeout");

    // everything is validated before the upstream starts, and the store is opened last, so a
    // gateway that cannot start leaves no store behind
    const [
      { loadPolicy },
      { checkTrustedContext, createEngine, effectivePolicyDigest },
      { registryOpener },
      { createLiveGate },
    ] = await Promise.all([
      import("../../checks/load.js"),
      import("../../checks/index.js"),
      import("../../gate.js"),
      import("../../live-gate.js"),
    ]);
    const [{ decisionPayload }, { loadTrustedContext }, { shadowSummary }] = await Promise.all([
      import("../../audit/decision.js"),
      import("../../mcp/context.js"),
      import("../../checks/mode.js"),
    ]);
    let context: Readonly<Record<string, unknown>> = {};
    // the policy is reloaded on SIGHUP or when its file changes (adr/0130); one that does not load,
    // or names a context field that cannot be bound, keeps the old one in force
    const live = await createLiveGate({
      file: policyFile,
      cwd: io.cwd,
      load: (file) => loadPolicy(file, { env: io.env, cwd: io.cwd }),
      // the engine itself, not createGate: the gateway writes the decision event (with its own fields)
      build: (p) => createEngine(p, registryOpener(p)),
      validate: (p) => void checkTrustedContext(p, context),
      note: (p) => shadowSummary(p),
      onEvent: (line) => io.stderr.write(`tessera gateway: ${printable(line)}\n`),
    });
    const policy = live.policy;
    try {
      context = loadTrustedContext({ file: values.context, env: io.env, cwd: io.cwd }).values;
    } catch (err) {
      await live.close();
      throw err;
    }
    // fixed for the gateway's life: a field the policy names that cannot be bound stops it here (exit 2)
    const missing = checkTrustedContext(policy, context);
    if (missing.length > 0)
      io.stderr.write(
        `tessera gateway: the trusted context has no ${missing.map((m) => `\`${printable(m)}\``).join(", ")}: checks binding it block with binding_missing\n`,
      );
    const location = resolveStore(values.store, io.env, io.cwd);
    // each decision's approvals are bound to the effective digest of the policy that made it
    const effectiveDigest = (digest: string) => {
      const p = live.policies().find((x) => x.digest === digest);
      return p === undefined ? null : effectivePolicyDigest(p);
    };
    const [{ createGateway, DEFAULT_UPSTREAM_TIMEOUT_MS }, { Upstream }, { version }, { consoleToStderr }] =
      await Promise.all([
        import("../../mcp/gateway/gateway.js"),
        import("../../mcp/gateway/upstream.js"),
        import("../../platform/version.js"),
        import("../../mcp/console.js"),
      ]);
    consoleToStderr();
    const upstreamEnv = Object.fromEntries(
      Object.entries(io.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("TESSERA_")),
    );
    const upstream = new Upstream(
      url !== undefined
        ? { kind: "http", url, ...(headerSpecs.length > 0 ? { headers } : {}) }
        : { kind: "stdio", command: command[0]!, args: command.slice(1), env: upstreamEnv, cwd: io.cwd },
      upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
      version,
    );
    try {
      await upstream.client();
    } catch (err) {
      await upstream.close();
      await live.close();
      // an upstream that cannot be reached (down, wrong url, refused credentials) is an UpstreamError:
      // main prints it and exits 4 (unavailable), not a usage error
      throw err;
    }
    let store: Awaited<ReturnType<typeof openGatewayStore>>;
    try {
      // a Postgres schema is made only when asked: a mistyped `?schema=` would split the queue silently
      store = await openGatewayStore(location, { mustExist: isPostgres(location) && values.create !== true });
    } catch (err) {
      await upstream.close();
      await live.close();
      throw err;
    }
    let gw;
    try {
      gw = await createGateway({
        upstream,
        // explained, so a held call keeps its expected and actual values for the reviewer (adr/0116);
        // the decision event stays value-free (describe redacts them); each call on the live gate
        // in force when it started (adr/0130)
        decide: (call) => live.check(call, context, { explain: "values" }),
        describe: (d, call, digest) =>
          decisionPayload(d as Parameters<typeof decisionPayload>[0], call, context, { digest }),
        reviews: store.reviews,
        audit: store.audit,
        policyDigest: () => live.policy.digest,
        effectiveDigest,
        undeclaredArguments: (tool) => {
          const p = live.policy;
          return (
            (Object.hasOwn(p.tools, tool) ? p.tools[tool]!.undeclared_arguments : undefined) ??
            p.defaults.undeclared_arguments
          );
        },
        contextDigest: store.reviews.digest(context),
        contextKeys: Object.keys(context),
        version,
        ...(approvalTtlMs !== undefined ? { approvalTtlMs } : {}),
        ...(reviewTtlMs !== undefined ? { reviewTtlMs } : {}),
        ...(holdWaitMs !== undefined ? { holdWait: { ms: holdWaitMs } } : {}),
        ...(notify !== undefined ? { notify } : {}),
        onDiagnostic: (line) => io.stderr.write(`${line}\n`),
      });
    } catch (err) {
      await upstream.close();
      await live.close();
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
          .then(() => live.close())
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
    live.watch();
    const shadow = shadowSummary(policy);
    if (shadow !== null) io.stderr.write(`tessera gateway: ${shadow}\n`);
    await done;
    return EXIT.ok;
  },
};
