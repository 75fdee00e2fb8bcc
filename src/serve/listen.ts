/**
 * The service on a socket: listen on host:port (127.0.0.1 by default), and close gracefully — stop
 * accepting, answer every admitted request, then end the connections.
 * @module
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TesseraError } from "../platform/errors.js";
import type { Service } from "./service.js";

/** The address the service binds unless told otherwise. */
export const DEFAULT_HOST = "127.0.0.1";

/** A listening service. */
export interface Listening {
  readonly url: string;
  readonly port: number;
  /** Refuse new work, answer what was admitted, close every connection. */
  close(): Promise<void>;
}

/** Listen with `service` on `host`:`port` (0 picks a free port). */
export async function listen(service: Service, host: string, port: number, deadlineMs: number): Promise<Listening> {
  const server: Server = createServer({ keepAliveTimeout: 5_000 }, service.listener);
  // a client that sends its request slowly is cut off after the deadline (and a margin)
  server.requestTimeout = deadlineMs + 5_000;
  server.headersTimeout = Math.min(60_000, deadlineMs + 5_000);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(new TesseraError("listen_failed", `cannot listen on ${host}:${port}: ${err.code ?? err.message}`)),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}`,
    port: bound,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await service.drain();
      server.closeIdleConnections();
      // anything still open after the admitted requests were answered is idle or a slow client
      const force = setTimeout(() => server.closeAllConnections(), 2_000);
      force.unref();
      await closed;
      clearTimeout(force);
    },
  };
}
