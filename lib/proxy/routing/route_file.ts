/**
 * `--routes-file`: reads the route table the controller publishes, and re-reads it when its folder
 * changes, handing each good table to the server (or the worker pool) whole.
 *
 * Decisions a reader could not guess:
 * - The folder is watched, not the file: a mounted ConfigMap changes by swapping a symlink in its
 *   folder, which a watch on the old file never reports. Events are settled for
 *   {@linkcode ROUTE_FILE_SETTLE_MS} before reading (one swap fires several), and the file is also
 *   re-read every {@linkcode ROUTE_FILE_POLL_MS} in case a watch missed one (some network file
 *   systems report nothing).
 * - An invalid table keeps the last good one: one ERROR naming every problem, counted; the same
 *   invalid text read again is not logged again. A file that disappears after a table was served
 *   keeps it too (a WARN): only a new table changes where connections go.
 * - No table at start (the controller has not written one yet) is a WARN, not a failure: every
 *   connection goes to the default target until it appears. A folder that does not exist, or a
 *   file the permission set does not let the proxy read, fails the start: no table would ever come.
 * - A folder that cannot be watched (out of inotify watches) leaves the poll alone, with a WARN.
 *
 * Effects: reads and watches the file system; logs and counts each load.
 *
 * @module
 */

import { ConfigError } from "../../cli/options.ts";
import type { Clock } from "../../util/clock.ts";
import { errorMessage } from "../../util/error_message.ts";
import type { Log } from "../../util/logging.ts";
import { parseRouteTable, type RouteTable } from "../../routes/route_table.ts";
import type { ProxyMetrics } from "../proxy_metrics.ts";

/** How long after a folder event the file is read (a ConfigMap swap fires several events). */
export const ROUTE_FILE_SETTLE_MS = 100;
/** How often the file is read whatever the watch reports. */
export const ROUTE_FILE_POLL_MS = 60_000;

/** What one read of the file found. */
export type RouteFileRead =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "missing" }
  | { readonly kind: "unreadable"; readonly error: string };

/** What {@linkcode RouteFile} uses from the outside world. */
export interface RouteFileDeps {
  readonly clock: Clock;
  readonly log: Log;
  readonly metrics: Pick<ProxyMetrics, "routeTableLoads" | "routeTableRoutes">;
  /** @default reads with `Deno.readTextFileSync` */
  readonly read?: (path: string) => RouteFileRead;
  /** @default whether `Deno.statSync` finds a folder */
  readonly isFolder?: (path: string) => boolean;
  /** @default `Deno.watchFs(folder, { recursive: false })` */
  readonly watch?: (folder: string) => AsyncIterable<unknown> & { close(): void };
}

/** Where the chart mounts the routes ConfigMap; the `proxy` permission set may read it. */
export const ROUTES_FOLDER = "/etc/ouroboros/routes";

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

function readFile(path: string): RouteFileRead {
  try {
    return { kind: "text", text: Deno.readTextFileSync(path) };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "missing" };
    return { kind: "unreadable", error: errorMessage(error) };
  }
}

/** The folder holding `path` (`.` for a bare name). */
export function routeFileFolder(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "." : slash === 0 ? "/" : path.slice(0, slash);
}

/** The route file being served: the text of the last table applied, and of the last one refused. */
export class RouteFile {
  readonly #path: string;
  readonly #deps: RouteFileDeps;
  readonly #read: (path: string) => RouteFileRead;
  #served: string | undefined;
  #table: RouteTable | undefined;
  #apply: ((table: RouteTable) => void) | undefined;
  #refused: string | undefined;
  #missingLogged = false;

  private constructor(path: string, deps: RouteFileDeps) {
    this.#path = path;
    this.#deps = deps;
    this.#read = deps.read ?? readFile;
  }

  /**
   * Reads the table once, before the proxy serves. Throws a {@linkcode ConfigError} when the file
   * cannot be read for any reason but its absence, or its folder does not exist.
   */
  static load(path: string, deps: RouteFileDeps): RouteFile {
    const file = new RouteFile(path, deps);
    const folder = routeFileFolder(path);
    const first = file.#read(path);
    const problem = first.kind === "unreadable"
      ? `cannot read it (${first.error})`
      : first.kind === "missing" && !(deps.isFolder ?? isFolder)(folder)
      ? `its folder ${folder} does not exist or cannot be read`
      : undefined;
    if (problem !== undefined) {
      throw new ConfigError("proxy", [
        `--routes-file ${path}: ${problem}; give a file in a folder the proxy may read (its permission set ` +
        `reads ${ROUTES_FOLDER}, where the chart mounts the routes ConfigMap)`,
      ]);
    }
    file.#take(first);
    return file;
  }

  /** The last good table read, if any: what the proxy starts serving. */
  get table(): RouteTable | undefined {
    return this.#table;
  }

  /**
   * Re-reads on every change of the folder and every poll interval, until `signal` aborts, and
   * hands each new good table to `apply`.
   */
  async run(signal: AbortSignal, apply: (table: RouteTable) => void): Promise<void> {
    this.#apply = apply;
    const { clock } = this.#deps;
    const folder = routeFileFolder(this.#path);
    let watcher: AsyncIterable<unknown> & { close(): void };
    try {
      watcher = (this.#deps.watch ?? ((dir) => Deno.watchFs(dir, { recursive: false })))(folder);
    } catch (error) {
      this.#deps.log.warn("cannot watch the route file's folder; re-reading it on the poll interval only", {
        folder,
        error,
        pollSeconds: ROUTE_FILE_POLL_MS / 1000,
      });
      watcher = { close() {}, async *[Symbol.asyncIterator]() {} };
    }
    let wake: (() => void) | undefined;
    let changed = false;
    const closeWatcher = () => watcher.close();
    signal.addEventListener("abort", closeWatcher, { once: true });
    const watching = (async () => {
      try {
        for await (const _ of watcher) {
          changed = true;
          wake?.();
        }
      } catch (error) {
        if (!signal.aborted) this.#deps.log.warn("route file watch ended; polling only", { error });
      }
    })();
    try {
      while (!signal.aborted) {
        if (!changed) {
          // Until a folder event or the poll interval, whichever comes first.
          const poll = new AbortController();
          const woken = new Promise<void>((resolve) => wake = resolve);
          const stopPoll = () => poll.abort();
          signal.addEventListener("abort", stopPoll, { once: true });
          await Promise.race([woken, clock.sleep(ROUTE_FILE_POLL_MS, poll.signal)]);
          poll.abort();
          signal.removeEventListener("abort", stopPoll);
          wake = undefined;
        }
        if (changed && !await clock.sleep(ROUTE_FILE_SETTLE_MS, signal)) break;
        if (signal.aborted) break;
        changed = false;
        this.#take(this.#read(this.#path));
      }
    } finally {
      signal.removeEventListener("abort", closeWatcher);
      watcher.close();
      await watching;
    }
  }

  #take(read: RouteFileRead): void {
    const { log, metrics } = this.#deps;
    if (read.kind !== "text") {
      if (this.#missingLogged) return;
      this.#missingLogged = true;
      const why = read.kind === "missing" ? "not found" : `unreadable (${read.error})`;
      if (this.#served === undefined) {
        log.warn(`route table ${why}; every connection goes to the default target until it appears`, {
          path: this.#path,
        });
      } else {
        log.warn(`route table ${why}; keeping the last table read`, { path: this.#path });
      }
      return;
    }
    this.#missingLogged = false;
    if (read.text === this.#served || read.text === this.#refused) return;
    const parsed = parseRouteTable(read.text);
    if (!parsed.ok) {
      this.#refused = read.text;
      metrics.routeTableLoads.labels({ result: "invalid" }).value += 1;
      log.error("route table is invalid; keeping the last good table", {
        path: this.#path,
        problems: parsed.problems,
        serving: this.#served === undefined ? "the default target only" : "the last good table",
      });
      return;
    }
    this.#served = read.text;
    this.#refused = undefined;
    metrics.routeTableLoads.labels({ result: "ok" }).value += 1;
    metrics.routeTableRoutes.labels({}).value = parsed.table.routes.length;
    this.#table = parsed.table;
    this.#apply?.(parsed.table);
    log.info("route table loaded", {
      path: this.#path,
      routes: parsed.table.routes.length,
      backends: [...parsed.table.backends.keys()],
    });
  }
}
