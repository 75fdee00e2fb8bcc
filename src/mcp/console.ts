/**
 * stdout belongs to the protocol in stdio mode: any stray console output (ours or a dependency's)
 * would corrupt the JSON-RPC stream, so it is routed to stderr. No SDK import.
 * @module
 */

/** Route `console.log`, `console.info` and `console.debug` to stderr for the rest of the process. */
export function consoleToStderr(): void {
  console.log = console.info = console.debug = console.error;
}
