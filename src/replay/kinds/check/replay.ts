/**
 * Sources for a `check` case: recorded ones replayed, the others opened as the policy says, and
 * every request a recording does not hold noted so the case fails with it (adr/0040).
 * @module
 */
import type { OpenSource } from "../../../checks/engine.js";
import type { Policy } from "../../../checks/policy.js";
import type { Source } from "../../../checks/source.js";
import { registryOpener } from "../../../gate.js";
import { createRecordedSource, type RecordingFile, RecordingMiss } from "../../../sources/recorded.js";

/** A request no recording answered: the source and its bound values as JSON. */
export interface Miss {
  readonly source: string;
  readonly values: string;
}

/** JSON-shaped copy (bigints as strings), so `want` compares against exactly what `--json` prints. */
export function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x))) as unknown;
}

/** Replay recorded sources, open the others as usual, and push every unrecorded request onto `misses`. */
export function replayOpener(policy: Policy, recorded: ReadonlyMap<string, RecordingFile>, misses: Miss[]): OpenSource {
  const live = registryOpener(policy);
  return async (name, config) => {
    const recording = recorded.get(name);
    if (recording === undefined) return live(name, config);
    const inner = createRecordedSource(name, recording, config.timeout_ms);
    const source: Source = {
      kind: inner.kind,
      timeoutMs: inner.timeoutMs,
      prepare(request) {
        const prepared = inner.prepare(request);
        return {
          parameters: prepared.parameters,
          async run(params, signal) {
            try {
              return await prepared.run(params, signal);
            } catch (err) {
              if (err instanceof RecordingMiss)
                misses.push({ source: name, values: JSON.stringify(plain(err.values)) });
              throw err;
            }
          },
        };
      },
      close: () => inner.close(),
    };
    return source;
  };
}
