/**
 * Watching a workspace folder between refreshes (adr/0110). A long-lived process (the MCP server,
 * repeated `ground` calls) watches the root, its five folders and the store folder from just
 * before a full refresh; while no event has arrived since, the next refresh is skipped. Before
 * trusting "no event", a barrier file is written in the store folder and its own event awaited:
 * the kernel queues events in order, so every change made before the call has been seen by then.
 * Anything unusual (another platform, a network or overlay file system, a linked file, a watcher
 * error, a barrier that does not come back) means a full refresh.
 * @module
 */
import { type FSWatcher, renameSync, statfsSync, statSync, unlinkSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FOLDERS } from "./layout.js";
import type { StoreStamp } from "./store.js";
import type { IngestSummary } from "./types.js";

/** Local file systems whose inotify events are complete (ext2/3/4, xfs, btrfs, tmpfs, f2fs). */
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0xf2f52010]);
/** Names in the root that a refresh reads (and the store folder). */
const ROOT_NAMES = new Set([...FOLDERS, "tickets.json", ".tessera"]);
/** At most this many folders are watched per process; the least recently used one is released. */
const MAX_WATCHED = 16;
/** A barrier whose event has not arrived by then means the watch is broken. */
const BARRIER_TIMEOUT_MS = 2000;

interface DirStamp {
  readonly path: string;
  readonly id: string;
}

/** What a full refresh left behind: the store it wrote and its summary. */
export interface CleanState {
  readonly stamp: StoreStamp;
  readonly summary: IngestSummary;
}

/** The watch of one workspace folder. */
export class FolderWatch {
  private watchers: FSWatcher[] = [];
  private dirty = true;
  private stamps: DirStamp[] = [];
  private seq = 0;
  /** This watch's one barrier file in `.tessera/`, renamed for every marker and barrier. */
  private file: string | undefined;
  /** Barriers awaiting their event, by file name (concurrent calls each write their own). */
  private readonly pending = new Map<string, () => void>();
  /** The start marker's name until its event arrives: events queued before it predate the refresh. */
  private starting: string | undefined;
  /** Set after a full refresh made while armed; cleared by any event. */
  clean: CleanState | undefined;

  constructor(readonly dir: string) {}

  /**
   * Start watching afresh; call it just before a full refresh, so any change made during the
   * refresh counts. False when this folder cannot be watched soundly.
   */
  arm(): boolean {
    // a barrier still awaited belongs to the old watch: it answers "changed"
    this.invalidate();
    this.dirty = false;
    const store = join(this.dir, ".tessera");
    try {
      if (process.platform !== "linux") throw new Error("inotify only");
      this.listen(this.dir, (name) => name === null || ROOT_NAMES.has(name));
      this.listen(store, (name) => {
        if (name !== null && name === this.starting) this.starting = undefined;
        else if (name !== null) this.pending.get(name)?.();
        return name === null || name === ".tessera";
      });
      for (const folder of FOLDERS) {
        const path = join(this.dir, folder);
        if (isFolder(path)) this.listen(path, (name) => name === null || !name.startsWith("."));
      }
      this.stamps = stampDirs(this.dir);
      // INVARIANT: written before the full refresh reads anything, so an event queued before the
      // marker's is a change the refresh sees (such as the change that made this refresh happen)
      this.starting = this.signal();
      return true;
    } catch {
      this.invalidate();
      return false;
    }
  }

  private listen(path: string, changes: (name: string | null) => boolean): void {
    if (!LOCAL_FILE_SYSTEMS.has(statfsSync(path).type)) throw new Error(`not a local file system: ${path}`);
    const w = watch(path, { persistent: false }, (_event, name) => {
      const starting = this.starting !== undefined;
      if (changes(typeof name === "string" ? name : null) && !starting) this.invalidate();
    });
    w.on("error", () => this.invalidate());
    this.watchers.push(w);
  }

  /** Forget the clean state and stop watching, until the next `arm`. */
  invalidate(): void {
    this.dirty = true;
    this.clean = undefined;
    this.release();
    for (const done of [...this.pending.values()]) done();
  }

  /** Stop watching (an evicted or invalidated watch). */
  release(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }

  /**
   * Whether nothing changed since the last full refresh: no event up to a barrier written now, and
   * the root and folders are the same directories with the same times as when the watch started.
   */
  async unchanged(): Promise<boolean> {
    if (this.dirty || this.clean === undefined) return false;
    let seen = false;
    await new Promise<void>((resolve) => {
      // INVARIANT: not unref'd: the watchers do not keep the process alive, so this timer does
      // until the barrier's event arrives (a script awaiting `ground` would otherwise just exit)
      const timer = setTimeout(() => this.invalidate(), BARRIER_TIMEOUT_MS);
      let name: string;
      try {
        name = this.signal();
      } catch {
        clearTimeout(timer);
        this.invalidate();
        resolve();
        return;
      }
      // set after the rename: its event is delivered on a later turn of the event loop
      this.pending.set(name, () => {
        seen = !this.dirty;
        clearTimeout(timer);
        this.pending.delete(name);
        resolve();
      });
    });
    return seen && !this.dirty && this.starting === undefined && sameStamps(this.stamps, stampDirs(this.dir));
  }

  /**
   * Give the barrier file a new name (one event carrying that name) and return the name. A rename
   * costs a fraction of creating a file; the first one, or one whose file went away, creates it.
   */
  private signal(): string {
    const name = `watch-${process.pid}-${++this.seq}`;
    const to = join(this.dir, ".tessera", name);
    if (this.file !== undefined) {
      try {
        renameSync(this.file, to);
        this.file = to;
        return name;
      } catch {
        // gone (the store folder was removed): written afresh below
      }
    }
    writeFileSync(to, "");
    this.file = to;
    if (!exitHooked) process.once("exit", removeBarrierFiles);
    exitHooked = true;
    barrierFiles.add(this);
    return name;
  }

  /** Stop watching for good and remove the barrier file (an evicted watch, the process exiting). */
  dispose(): void {
    this.invalidate();
    if (this.file !== undefined) {
      try {
        unlinkSync(this.file);
      } catch {
        // already gone
      }
    }
    this.file = undefined;
    barrierFiles.delete(this);
  }
}

/** Watches with a barrier file, removed when the process exits (a killed process leaves its file). */
const barrierFiles = new Set<FolderWatch>();
let exitHooked = false;

function removeBarrierFiles(): void {
  for (const w of [...barrierFiles]) w.dispose();
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The root and each folder: which directory it is and when its entries last changed. */
function stampDirs(dir: string): DirStamp[] {
  return [dir, ...FOLDERS.map((f) => join(dir, f))].map((path) => {
    try {
      const st = statSync(path, { bigint: true });
      return { path, id: `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}:${st.isDirectory()}` };
    } catch {
      return { path, id: "missing" };
    }
  });
}

const sameStamps = (a: readonly DirStamp[], b: readonly DirStamp[]): boolean =>
  a.length === b.length && a.every((s, i) => s.path === b[i]!.path && s.id === b[i]!.id);

const watches = new Map<string, FolderWatch>();

/** This process's watch of `dir` (created on first use; the least recently used beyond 16 released). */
export function watchOf(dir: string): FolderWatch {
  let w = watches.get(dir);
  if (w !== undefined) watches.delete(dir);
  else w = new FolderWatch(dir);
  watches.set(dir, w);
  if (watches.size > MAX_WATCHED) {
    const [oldest, evicted] = watches.entries().next().value as [string, FolderWatch];
    evicted.dispose();
    watches.delete(oldest);
  }
  return w;
}
