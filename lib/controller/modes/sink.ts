/**
 * The seam between the controller and a mode, in two parts.
 *
 * **The sink.** The controller computes the full desired hostname set from its caches and hands
 * it to the mode's {@linkcode Sink}, which makes the cluster (or the node) match it. Nothing
 * incremental crosses this seam, so a retry, a restart or a second replica always converges to
 * the same result. The sink answers with a {@linkcode SinkOutcome}: a value that says what
 * happened and carries what the sink wants said ({@linkcode Notice}s). Sinks never log; the
 * controller's loop logs every outcome and every notice, in one place, so wording, levels and
 * repeat suppression of refusals are decided once.
 *
 * **The mode.** A {@linkcode ModeBuilder} turns a mode's own settings into a {@linkcode Mode}:
 * its sink, the objects it needs watched ({@linkcode WatchObject}: the ConfigMap it edits, the
 * Service whose addresses it publishes), its start-up probes and what it keeps of the
 * permissions. The controller runs every mode the same way and names none of them.
 *
 * **Previews.** Every sink says what it changes: a `written` outcome carries a unified diff of
 * its target (`lib/util/unified_diff.ts`). With {@linkcode ModeContext.dryRun} (`--dry-run`) a
 * sink does everything up to the write (reads, checks, refusals) and stops right before it,
 * answering `previewed` with the diff the write would have made. What "the target" is, is each
 * mode's: the whole Corefile, the import key's text, the hosts file, the records' owned fields.
 *
 * @module
 */

import type { HostSource } from "../../hostnames/sources.ts";
import type { EventRecorder } from "../../kube/event_recorder.ts";
import type { KubeClient, ObjectRef } from "../../kube/client.ts";
import type { StoreView } from "../../reflector/store.ts";
import type { KubeObject } from "../../resources/kube_object.ts";
import type { ResourceType } from "../../resources/resource_type.ts";

/** What a pass may know beyond the hostnames; a sink that needs none of it ignores it. */
export interface ReconcileContext {
  /** The kinds each hostname came from (every host of the call, sorted kinds); absent: unknown. */
  readonly sources?: ReadonlyMap<string, readonly HostSource[]>;
}

/**
 * Something a sink or a probe wants said, as a value: the controller logs it at `level`. The
 * sink decides the level, including DEBUG for a problem it already reported while it lasts.
 */
export interface Notice {
  readonly level: "debug" | "info" | "warn" | "error";
  readonly message: string;
  readonly properties?: Readonly<Record<string, unknown>>;
}

/**
 * How much a refusal held back, so the controller words and rates it correctly:
 * - `nothing-written`: the sink wrote nothing at all;
 * - `some-hosts`: the hostnames the message names were left alone, the others were written;
 * - `guard`: a safety guard kept objects that a prune would have deleted; nothing was written,
 *   and what is published stays as it was (a warning with a remedy, not a failure).
 */
export type RefusalScope = "nothing-written" | "some-hosts" | "guard";

/** The hostnames a write added and removed, each list sorted. */
export interface HostnameChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/**
 * The hostnames in `after` but not `before` and the other way round, sorted, with their counts:
 * what a sink's `written`/`previewed` outcome carries.
 *
 * @example
 * ```ts
 * import { hostnameChange } from "./sink.ts";
 *
 * hostnameChange(["a.example.com", "b.example.com"], ["b.example.com", "c.example.com"]);
 * // { added: 1, removed: 1, names: { added: ["c.example.com"], removed: ["a.example.com"] } }
 * ```
 */
export function hostnameChange(
  before: Iterable<string>,
  after: Iterable<string>,
): { added: number; removed: number; names: HostnameChange } {
  const was = new Set(before);
  const now = new Set(after);
  const added = [...now].filter((host) => !was.has(host)).sort();
  const removed = [...was].filter((host) => !now.has(host)).sort();
  return { added: added.length, removed: removed.length, names: { added, removed } };
}

/** What one reconcile did. Every kind may carry notices for the controller to log. */
export type SinkOutcome =
  /** The target already matched: nothing was written. */
  | { readonly kind: "unchanged"; readonly hosts: number; readonly notices?: readonly Notice[] }
  /**
   * The target was written. `added`/`removed` count hostnames compared with what it held; `diff`
   * is the unified diff of the target, before → after (every sink of `lib/controller/modes/` sets it; it is
   * optional only so a stand-in sink need not).
   */
  | {
    readonly kind: "written";
    readonly hosts: number;
    readonly added: number;
    readonly removed: number;
    /** The hostnames counted by `added`/`removed`, when the sink knows them (logged, capped). */
    readonly names?: HostnameChange;
    readonly diff?: string;
    readonly notices?: readonly Notice[];
  }
  /**
   * A dry run found the target different and wrote nothing: `diff` (never empty) is what a write
   * would have changed, `added`/`removed` as for `written`. Only a sink built with
   * {@linkcode ModeContext.dryRun} answers this.
   */
  | {
    readonly kind: "previewed";
    readonly hosts: number;
    readonly added: number;
    readonly removed: number;
    /** As for `written`. */
    readonly names?: HostnameChange;
    readonly diff: string;
    readonly notices?: readonly Notice[];
  }
  /**
   * The sink refused to write because writing would be unsafe (damaged markers, size limit,
   * a missing prerequisite). Retrying without a change on the cluster side will not help;
   * `problem` is a short code for metrics, `message` says what to fix.
   */
  | {
    readonly kind: "refused";
    readonly problem: string;
    readonly message: string;
    readonly scope: RefusalScope;
    /**
     * The refusal lifts by itself after this long (a revert hold-off): the controller calls the
     * sink again then, without waiting for a change or the resync.
     */
    readonly recheckAfterMs?: number;
    readonly notices?: readonly Notice[];
  }
  /**
   * A transient failure (the API server unreachable, a 5xx, conflicts on every attempt): the
   * controller backs off and retries. A sink may also reject for these; both are handled alike.
   */
  | {
    readonly kind: "failed";
    readonly message: string;
    readonly cause?: unknown;
    readonly notices?: readonly Notice[];
  };

/** A mode's writer. */
export interface Sink {
  /** For logs: `coredns kube-system/coredns[Corefile]`. */
  readonly description: string;
  /**
   * Makes the target hold exactly `hosts` (sorted, unique); `context` is optional extra input.
   * Rejects only when `signal` aborts or for a bug; expected failures are `failed` outcomes.
   */
  reconcile(hosts: readonly string[], signal: AbortSignal, context?: ReconcileContext): Promise<SinkOutcome>;
}

/**
 * What a watched object is to the controller:
 * - `target`: what the sink edits (a ConfigMap). A change there calls the sink at once, so an
 *   edit that removed our block is repaired without waiting for the resync. It never holds
 *   anything back: if it cannot be watched, the resync still repairs drift.
 * - `prerequisite`: something else the sink reads (the proxy Service). Nothing is reconciled,
 *   and readiness waits, until its first list has completed; each change calls the sink.
 */
export type WatchRole = "target" | "prerequisite";

/**
 * Asks the controller to keep one object, found by name, in a cache of its own. The returned
 * view fills once the controller runs; a mode reads it from its sink.
 */
export type WatchObject = <T extends KubeObject>(
  type: ResourceType<T>,
  ref: Required<ObjectRef>,
  role: WatchRole,
) => StoreView<T>;

/** What every mode is built with. */
export interface ModeContext {
  /** The API client (CoreDNS and external-dns modes read and write through it). */
  readonly client: KubeClient;
  /** Records Warning Events on the objects a mode refuses to touch (in a dry run: records nothing). */
  readonly recorder: Pick<EventRecorder, "record">;
  /** Registers a watch (see {@linkcode WatchObject}). */
  readonly watch: WatchObject;
  /** The namespace the controller runs in (the service account's), when it is known. */
  readonly podNamespace: string | undefined;
  /**
   * `--dry-run`: read and decide as usual, but stop right before every write (no create, patch,
   * delete or file write) and answer `previewed` instead of `written`. Absent: false.
   */
  readonly dryRun?: boolean;
}

/** A mode as the controller runs it. */
export interface Mode {
  readonly sink: Sink;
  /**
   * Start-up checks, run once before the first reconcile, bounded by `signal`. What they find is
   * logged; a probe never fails the start.
   */
  readonly probe?: (signal: AbortSignal) => Promise<readonly Notice[]>;
  /** A file the mode edits for as long as it runs: it keeps read and write access to it. */
  readonly hostsFile?: string;
  /**
   * True when the sink writes wildcard hostnames (`*.<domain>`, see `hostnames/wildcard.ts`)
   * handed to it. Absent or false: the controller keeps them out of the sink's hostnames and warns
   * about each once per object change instead, so a mode that cannot express a wildcard never
   * receives one.
   */
  readonly wildcards?: boolean;
  /**
   * Every problem code the sink may refuse with, so the refusal counter starts each at zero.
   * Absent: the series appear with the first refusal.
   */
  readonly refusalProblems?: readonly string[];
  /** Extra fields for the "controller starting" line. */
  readonly details: Readonly<Record<string, unknown>>;
}

/** Builds a mode from its own settings and what every mode gets. */
export type ModeBuilder<S> = (settings: S, context: ModeContext) => Mode;
