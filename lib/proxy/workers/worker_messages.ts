/**
 * The messages between the proxy's main thread and its workers: plain data, for structured clone.
 * A worker throws on an unknown message, so a protocol mistake shows as a logged restart.
 *
 * Pure: types and one guard.
 *
 * @module
 */

import type { ProxyServerConfig } from "../server.ts";
import type { RouteTable } from "../../routes/route_table.ts";

/** Log levels a worker forwards; the main thread logs them under its own logger. */
export type WorkerLogLevel = "debug" | "info" | "warn" | "error";

/** Main thread to worker. */
export type ToWorker =
  /** Bind the listeners (with `reusePort`) and serve. */
  | {
    readonly kind: "start";
    readonly index: number;
    readonly config: ProxyServerConfig;
    readonly debug: boolean;
  }
  /** Serve this route table from the next connection on (sent after `start`, then on each change). */
  | { readonly kind: "routes"; readonly table: RouteTable }
  /** Begin the drain (the first SIGTERM/SIGINT). */
  | { readonly kind: "shutdown" }
  /** Close everything now (a second signal). */
  | { readonly kind: "force" }
  /** Answer with the worker's metrics exposition. */
  | { readonly kind: "metrics"; readonly id: number };

/** Worker to main thread. */
export type FromWorker =
  /** Every listener is bound and accepting; addresses by listener name. */
  | { readonly kind: "listening"; readonly addresses: Readonly<Record<string, string>> }
  /** A listener could not be bound; the worker then ends. */
  | { readonly kind: "failed"; readonly error: string }
  | {
    readonly kind: "log";
    readonly level: WorkerLogLevel;
    readonly message: string;
    readonly properties: Record<string, unknown>;
  }
  | { readonly kind: "metrics"; readonly id: number; readonly text: string }
  /** The drain finished; `text` is the final exposition, so no count is lost. */
  | { readonly kind: "stopped"; readonly text: string };

const FROM_WORKER_KINDS: ReadonlySet<string> = new Set(["listening", "failed", "log", "metrics", "stopped"]);

/** Whether `data` looks like a {@linkcode FromWorker} message (checked at the boundary). */
export function isFromWorker(data: unknown): data is FromWorker {
  return typeof data === "object" && data !== null && "kind" in data &&
    typeof data.kind === "string" && FROM_WORKER_KINDS.has(data.kind);
}
