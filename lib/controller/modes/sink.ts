/**
 * The seam between the controller and a mode. The controller hands the full desired set to the
 * mode's {@linkcode Sink}; nothing incremental crosses, so a retry, a restart or a second replica
 * converges to the same result. Sinks never log: they answer a {@linkcode SinkOutcome} carrying
 * {@linkcode Notice}s, and the loop words and rates everything in one place.
 *
 * Every `written` outcome carries a unified diff of the target; with `dryRun` a sink stops right
 * before its write and answers `previewed` with that diff.
 *
 * Pure: types and one helper.
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
 * How much a refusal held back: `nothing-written`; `some-hosts` (those named were left alone, the
 * rest written); `guard` (a safety guard kept what a prune would delete: a warning, not a failure).
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
 * import assert from "node:assert/strict";
 * import { hostnameChange } from "./sink.ts";
 *
 * assert.deepEqual(hostnameChange(["a.example.com", "b.example.com"], ["b.example.com", "c.example.com"]), {
 *   added: 1,
 *   removed: 1,
 *   names: { added: ["c.example.com"], removed: ["a.example.com"] },
 * });
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
   * The target was written; `added`/`removed` count hostnames against what it held, `diff` is
   * before → after (optional only so a stand-in sink need not set it).
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
  /** A dry run found the target different and wrote nothing; `diff` is never empty. */
  | {
    readonly kind: "previewed";
    readonly hosts: number;
    readonly added: number;
    readonly removed: number;
    readonly names?: HostnameChange;
    readonly diff: string;
    readonly notices?: readonly Notice[];
  }
  /**
   * Writing would be unsafe (damaged markers, size limit, a missing prerequisite), and retrying
   * unchanged will not help: `problem` is a code for metrics, `message` says what to fix.
   */
  | {
    readonly kind: "refused";
    readonly problem: string;
    readonly message: string;
    readonly scope: RefusalScope;
    /** The refusal lifts by itself after this long (a revert hold-off): the sink is called then. */
    readonly recheckAfterMs?: number;
    readonly notices?: readonly Notice[];
  }
  /** A transient failure: the controller backs off and retries (a sink may also reject). */
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
  /**
   * Removes everything the sink owns, for `--cleanup`, past the guards that stop an accidental
   * empty pass; absent: the sink is cleaned by reconciling no hostnames.
   */
  cleanup?(signal: AbortSignal): Promise<SinkOutcome>;
}

/**
 * What a watched object is: a `target` the sink edits (a change calls the sink at once; never
 * waited for), or a `prerequisite` it reads (nothing is reconciled, nor ready, until it listed).
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
  readonly client: KubeClient;
  /** Records Warning Events on objects a mode refuses to touch (nothing in a dry run). */
  readonly recorder: Pick<EventRecorder, "record">;
  readonly watch: WatchObject;
  /** The namespace the controller runs in (the service account's), when it is known. */
  readonly podNamespace: string | undefined;
  /** `--dry-run`: stop right before every write and answer `previewed` instead of `written`. */
  readonly dryRun?: boolean;
}

/** A mode as the controller runs it. */
export interface Mode {
  readonly sink: Sink;
  /** Start-up checks before the first reconcile; what they find is logged, never fatal. */
  readonly probe?: (signal: AbortSignal) => Promise<readonly Notice[]>;
  /** A file the mode edits for as long as it runs: it keeps read and write access to it. */
  readonly hostsFile?: string;
  /**
   * True when the sink writes wildcard hostnames; otherwise the controller keeps them out of its
   * input and warns about each once per object change.
   */
  readonly wildcards?: boolean;
  /** Every problem code the sink may refuse with, so the refusal counter starts each at zero. */
  readonly refusalProblems?: readonly string[];
  /** Extra fields for the "controller starting" line. */
  readonly details: Readonly<Record<string, unknown>>;
}

/** Builds a mode from its own settings and what every mode gets. */
export type ModeBuilder<S> = (settings: S, context: ModeContext) => Mode;
