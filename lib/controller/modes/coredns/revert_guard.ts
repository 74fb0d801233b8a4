/**
 * Notices when another writer keeps undoing coredns mode's edit (typically a GitOps tool that
 * owns the CoreDNS ConfigMap and re-applies it) and spaces out our rewrites, so the two never
 * fight in a hot loop and CoreDNS is not reloaded every few seconds.
 *
 * A revert is one observation that our last write is gone or different while the desired hosts
 * are still the ones we wrote; the coredns sink reports it at most once per write. Reverts are
 * counted in a sliding window. `threshold` reverts within `windowMs` start a fight: the caller
 * says so once (WARN and an Event), and each rewrite must then wait a hold-off after our previous
 * write, starting at `initialHoldOffMs` and doubling with every further revert up to
 * `maxHoldOffMs`. A fight ends when `windowMs` passes without a revert; the next one starts over.
 *
 * Defaults: 3 reverts in 30 minutes; hold-off 30 s doubling to 30 minutes.
 *
 * Pure: times are passed in (milliseconds of a monotonic clock).
 *
 * @module
 */

/** Tuning for {@linkcode RevertGuard}. */
export interface RevertGuardOptions {
  /** Reverts within the window that start a fight. @default 3 */
  readonly threshold?: number;
  /** How long a revert is remembered, and how long a fight lasts without one. @default 1_800_000 */
  readonly windowMs?: number;
  /** The first hold-off. @default 30_000 */
  readonly initialHoldOffMs?: number;
  /** The longest hold-off. @default 1_800_000 */
  readonly maxHoldOffMs?: number;
}

const DEFAULTS: Required<RevertGuardOptions> = {
  threshold: 3,
  windowMs: 1_800_000,
  initialHoldOffMs: 30_000,
  maxHoldOffMs: 1_800_000,
};

/** Where the guard is. */
export type RevertGuardState =
  /** Fewer than `threshold` recent reverts (their times, oldest first). */
  | { readonly kind: "calm"; readonly reverts: readonly number[] }
  /** Another writer is fighting us: rewrites wait `holdOffMs` after our last write. */
  | {
    readonly kind: "fighting";
    readonly reverts: number;
    readonly holdOffMs: number;
    readonly lastRevertAt: number;
  };

/** What a reported revert changed. */
export type RevertVerdict =
  /** Counted; no fight (yet). */
  | { readonly kind: "counted"; readonly reverts: number }
  /** This revert started a fight: tell the operator, once. */
  | { readonly kind: "fight-started"; readonly reverts: number; readonly holdOffMs: number }
  /** A fight goes on; the hold-off grew. */
  | { readonly kind: "fight-continues"; readonly reverts: number; readonly holdOffMs: number };

/** Whether a rewrite may happen now. */
export type WriteGate =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly waitMs: number; readonly reverts: number };

/**
 * Counts reverts and decides hold-offs.
 *
 * @example
 * ```ts
 * import { RevertGuard } from "./revert_guard.ts";
 *
 * const guard = new RevertGuard(); // a fight starts at the third revert in 30 minutes
 * guard.observeRevert(1_000); // { kind: "counted", reverts: 1 }
 * guard.observeRevert(2_000); // { kind: "counted", reverts: 2 }
 * guard.observeRevert(3_000); // { kind: "fight-started", reverts: 3, holdOffMs: 30000 }
 * guard.writeGate(4_000, 3_500); // { allowed: false, waitMs: 29500, reverts: 3 }: 30 s after our last write
 * ```
 */
export class RevertGuard {
  readonly #options: Required<RevertGuardOptions>;
  #state: RevertGuardState = { kind: "calm", reverts: [] };

  /** Creates a calm guard. */
  constructor(options: RevertGuardOptions = {}) {
    this.#options = { ...DEFAULTS, ...options };
  }

  /** The tuning in effect, defaults filled in. */
  get settings(): Required<RevertGuardOptions> {
    return this.#options;
  }

  /** The current state, after expiring what is older than the window. */
  state(now: number): RevertGuardState {
    this.#expire(now);
    return this.#state;
  }

  /** Records one observed revert at `now`. */
  observeRevert(now: number): RevertVerdict {
    this.#expire(now);
    const { threshold, initialHoldOffMs, maxHoldOffMs } = this.#options;
    const state = this.#state;
    if (state.kind === "fighting") {
      const holdOffMs = Math.min(maxHoldOffMs, state.holdOffMs * 2);
      this.#state = { kind: "fighting", reverts: state.reverts + 1, holdOffMs, lastRevertAt: now };
      return { kind: "fight-continues", reverts: state.reverts + 1, holdOffMs };
    }
    const reverts = [...state.reverts, now];
    if (reverts.length < threshold) {
      this.#state = { kind: "calm", reverts };
      return { kind: "counted", reverts: reverts.length };
    }
    const holdOffMs = Math.min(maxHoldOffMs, initialHoldOffMs);
    this.#state = { kind: "fighting", reverts: reverts.length, holdOffMs, lastRevertAt: now };
    return { kind: "fight-started", reverts: reverts.length, holdOffMs };
  }

  /** Whether we may rewrite at `now`, our previous write having been at `lastWriteAt`. */
  writeGate(now: number, lastWriteAt: number | undefined): WriteGate {
    this.#expire(now);
    const state = this.#state;
    if (state.kind === "calm" || lastWriteAt === undefined) return { allowed: true };
    const waitMs = lastWriteAt + state.holdOffMs - now;
    return waitMs <= 0 ? { allowed: true } : { allowed: false, waitMs, reverts: state.reverts };
  }

  #expire(now: number): void {
    const { windowMs } = this.#options;
    const state = this.#state;
    if (state.kind === "fighting") {
      if (now - state.lastRevertAt >= windowMs) this.#state = { kind: "calm", reverts: [] };
      return;
    }
    const recent = state.reverts.filter((at) => now - at < windowMs);
    if (recent.length !== state.reverts.length) this.#state = { kind: "calm", reverts: recent };
  }
}
