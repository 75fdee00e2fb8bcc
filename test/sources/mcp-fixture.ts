// Start the SDK-built orders MCP server of test/fixtures/ over Streamable HTTP, as a child process.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const FIXTURE = fileURLToPath(new URL("../fixtures/mcp-orders-server.mjs", import.meta.url));
export const FIXTURE_DIR = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** Spawn the fixture with `--http`; resolves once it prints its port. */
export async function startMcpHttp(
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess; close(): Promise<void> }> {
  const child = spawn(process.execPath, [FIXTURE, "--http"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /LISTENING (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`mcp fixture exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill();
      }),
  };
}
