// Live database settings for the integration tests. CI sets the URLs and TESSERA_REQUIRE_LIVE=1,
// under which an unreachable database fails the suite instead of skipping it.
import { setMaxListeners } from "node:events";
import net from "node:net";
import mysql from "mysql2/promise";
import pg from "pg";
import { SourceError } from "../../src/checks/source.js";

export const REQUIRE_LIVE = process.env.TESSERA_REQUIRE_LIVE === "1";
export const PG_URL = process.env.TESSERA_PG_URL ?? (REQUIRE_LIVE ? "" : "postgres://postgres@127.0.0.1:5432/test");
export const MYSQL_URL = process.env.TESSERA_MYSQL_URL ?? (REQUIRE_LIVE ? "" : "mysql://root@127.0.0.1:3306/test");

/** Whether the Postgres server answers; never throws. */
export async function pgReachable(url = PG_URL): Promise<boolean> {
  if (url === "") return false;
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Whether the MySQL/MariaDB server answers; never throws. */
export async function mysqlReachable(url = MYSQL_URL): Promise<boolean> {
  if (url === "") return false;
  try {
    const c = await mysql.createConnection({ uri: url, connectTimeout: 3000 });
    await c.query("SELECT 1");
    await c.end();
    return true;
  } catch {
    return false;
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server that answers any connection with bytes that are no database protocol. */
export async function garbageServer(greet = false): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
    // MySQL servers speak first: a framed packet too short to be a handshake
    if (greet) s.write(Buffer.from([5, 0, 0, 0, 0x71, 0x71, 0x71, 0x71, 0x71]));
    // a message type no database protocol defines, framed with a valid length
    s.on("data", () => s.write(Buffer.from([0x71, 0, 0, 0, 4])));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A TCP server that accepts connections and never says anything: only a timeout ends a request to it. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * An AbortSignal that never fires, for requests bounded only by the source's own timeouts. The MCP
 * SDK adds an abort listener per request and never removes it, so on this one shared signal they
 * pile up past Node's warning threshold; the engine gives each request its own signal (adr/0041).
 */
export const never: AbortSignal = new AbortController().signal;
setMaxListeners(0, never);

/** The SourceError code of a rejected promise, or `resolved` when it did not reject. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return e instanceof SourceError && typeof code === "string" ? code : `not a SourceError: ${String(e)}`;
  }
}
