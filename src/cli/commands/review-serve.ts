import { isIP } from "node:net";
import { UsageError } from "../../platform/errors.js";
import { openGatewayStore, resolveStore } from "../../review/open.js";
import { parse } from "../args.js";
import { type Command, EXIT } from "../io.js";

/** The port `review serve` listens on unless `--port` says otherwise. */
export const DEFAULT_REVIEW_PORT = 8377;

const USAGE =
  "usage: tessera review serve [--store <file|postgres://…>] [--port <n>] [--host 127.0.0.1] [--reviewers <file>] [--create]\n\n" +
  "the review queue as local web pages: pending holds, each hold's checks with expected and actual values,\n" +
  "approve and deny, changed tool definitions as a diff, and the audit trail\n\n" +
  "  --store <file|postgres://…>  the gateway's store (default TESSERA_STORE, else .tessera/gateway.db)\n" +
  `  --port <n>                   the port (default ${DEFAULT_REVIEW_PORT}; 0 picks a free one)\n` +
  "  --host <address>             the address to bind (default 127.0.0.1); requests must name it as their Host\n" +
  "  --reviewers <file>           a JSON object of reviewer name → token (each at least 16 characters), so each\n" +
  "                               decision records who made it; without it TESSERA_REVIEW_TOKEN is the one token\n" +
  "  --create                     create the store when it does not exist\n\n" +
  "no token, no page: without TESSERA_REVIEW_TOKEN or --reviewers it exits 2";

/** `tessera review serve`: the review page (src/review/web/). */
export const reviewServe: Command = {
  name: "review serve",
  summary: "serve the review queue as local web pages",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      {
        store: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        reviewers: { type: "string" },
        create: { type: "boolean" },
      },
      true,
    );
    if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\``);
    const portText = values.port ?? String(DEFAULT_REVIEW_PORT);
    const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 0 && port <= 65_535)) throw new UsageError(`\`--port\` takes 0 to 65535, got \`${portText}\``);
    const host = values.host ?? "127.0.0.1";
    if (host !== "localhost" && isIP(host) === 0)
      throw new UsageError(`\`--host\` takes an IP address or \`localhost\`, got \`${host}\``);
    if (host === "0.0.0.0" || host === "::")
      throw new UsageError("`--host` must be one address the Host header can name, not a wildcard (`0.0.0.0`, `::`)");
    const { loadReviewersFile, reviewerFromEnv } = await import("../../review/web/reviewers.js");
    // the token is checked before the store is opened: no token, no page, nothing touched
    const reviewers = values.reviewers !== undefined ? loadReviewersFile(values.reviewers) : reviewerFromEnv(io.env);
    const store = await openGatewayStore(resolveStore(values.store, io.env, io.cwd), {
      mustExist: values.create !== true,
    });
    const { startReviewPage } = await import("../../review/web/server.js");
    let served;
    try {
      served = await startReviewPage({
        store,
        reviewers,
        host,
        port,
        log: (line) => io.stderr.write(`tessera review serve: ${line}\n`),
      });
    } catch (err) {
      await store.close();
      throw err;
    }
    const running = served;
    io.stderr.write(
      `tessera review serve: ${running.url} (store ${store.kind}, ${reviewers.size} reviewer${reviewers.size === 1 ? "" : "s"})\n`,
    );
    await new Promise<void>((resolve) => {
      const stop = () =>
        void running
          .close()
          .then(() => store.close())
          .finally(resolve);
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
    return EXIT.ok;
  },
};
