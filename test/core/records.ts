// Evidence-record builders for the core's tests.
import type { Claim, EvidenceRecord } from "../../src/core/index.js";

/** A log-line record with the given id and text. */
export function record(id: string, text: string): EvidenceRecord {
  return {
    id,
    source: "ci",
    locator: {
      kind: "log-line",
      parts: [
        ["run", "42"],
        ["line", id],
      ],
    },
    text,
  };
}

/** A claim citing the given records. */
export function claim(text: string, ...support: EvidenceRecord[]): Claim {
  return { text, support };
}
