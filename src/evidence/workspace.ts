/**
 * The workspace store, split by job under `workspace/`; this path stays for its importers.
 * @module
 */
export * from "./workspace/index.js";
