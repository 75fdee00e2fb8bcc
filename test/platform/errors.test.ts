// Errors as data: every error a command can stop with is a TesseraError carrying its code, its exit
// code and its path. A Source that cannot answer is exit 4 (unavailable, specs/cli.md), not 2.
import { describe, expect, it } from "vitest";
import { SourceError } from "../../src/checks/source.js";
import { EXIT } from "../../src/cli/io.js";
import { EXIT as PLATFORM_EXIT } from "../../src/platform/error-codes.js";
import { TesseraError, UsageError } from "../../src/platform/errors.js";
import { openSqlite } from "../../src/sources/sqlite.js";

describe("TesseraError", () => {
  it("carries its code and path, prefixes the message with the path and exits 2 by default", () => {
    const e = new TesseraError("call_invalid", "must be an object", "arguments.order_id");
    expect([e.code, e.path, e.message, e.exitCode]).toStrictEqual([
      "call_invalid",
      "arguments.order_id",
      "arguments.order_id: must be an object",
      2,
    ]);
    expect(new UsageError("unexpected argument `x`").exitCode).toBe(EXIT.usage);
  });

  it("takes another exit code and a cause", () => {
    const cause = new Error("inner");
    const e = new TesseraError("git_failed", "git exited 128", undefined, { exitCode: EXIT.unavailable, cause });
    expect([e.exitCode, e.cause, e.path]).toStrictEqual([4, cause, undefined]);
  });

  it("accepts only the codes of platform/error-codes.ts", () => {
    // @ts-expect-error a made-up code is a type error: codes are a closed union
    const e = new TesseraError("made_up_code", "x");
    expect(e.code).toBe("made_up_code");
  });

  it("keeps the CLI's exit codes where the CLI's `EXIT` is", () => {
    expect(EXIT).toBe(PLATFORM_EXIT);
    expect(EXIT).toStrictEqual({ ok: 0, failed: 1, usage: 2, hold: 3, unavailable: 4 });
  });
});

describe("SourceError", () => {
  it("is a TesseraError with its Source code and exit 4, its message unchanged", () => {
    const e = new SourceError("source_timeout", "no answer within 50 ms");
    expect(e).toBeInstanceOf(TesseraError);
    expect([e.name, e.code, e.exitCode, e.path, e.message]).toStrictEqual([
      "SourceError",
      "source_timeout",
      4,
      undefined,
      "no answer within 50 ms",
    ]);
    expect(new SourceError("source_unreachable", "down", { path: "sources.db" }).message).toBe("sources.db: down");
  });

  it("is what a real adapter throws when its database file does not exist", async () => {
    const err = await openSqlite({ name: "db", config: { path: "no-such.db" }, baseDir: "/nonexistent" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TesseraError);
    expect(err).toMatchObject({ code: "source_unreachable", exitCode: EXIT.unavailable });
  });
});
