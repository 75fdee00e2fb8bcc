import type { Command } from "../io.js";
import { EXIT } from "../io.js";

/** `tessera demo`: until every verdict path exists, it says what Tessera can run today. */
export const demo: Command = {
  name: "demo",
  summary: "walk through every verdict on the embedded examples",
  usage: "usage: tessera demo",
  async run(_args, io) {
    io.stdout.write(
      "Tessera — a deterministic, offline trust layer for AI agents.\n\n" +
        "This build has the verifier core (normalize, contains, isSupported, verifyField,\n" +
        "evaluateConditions, decideGrounding) as a library; run `npx tessera help` for the commands.\n" +
        "Run `npm test` to see every invariant checked.\n",
    );
    return EXIT.ok;
  },
};
