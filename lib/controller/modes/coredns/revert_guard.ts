/**
 * Notices when another writer (typically GitOps) keeps undoing coredns mode's edit and spaces out
 * our rewrites, so the two never fight in a hot loop that reloads CoreDNS every few seconds.
 *
 * Pure: times are passed in (milliseconds of a monotonic clock).
 *
 * `threshold` reverts within `windowMs` start a fight (said once); each rewrite then waits a
 * hold-off after our last write that doubles per revert. A window without reverts ends it.
 *
 * @module
 */

/** Tuning for {@linkcode RevertGuard}. */
export interface RevertGuardOptions {
  /** Reverts within the window that start a fight. @default 3 */
  readonly threshold?: number;
  /** How long a revert is remembered, and how long a fight lasts without one. @default 1_800_000 */
  readonly windowMs?: number;
  /** @default 30_000 */
  readonly initialHoldOffMs?: number;
  /** @default 1_800_000 */
  readonly maxHoldOffMs?: number;
}

const DEFAULTS: Required<RevertGuardOptions> = {
  threshold: 3,
  windowMs: 1_800_000,
  initialHoldOffMs: 30_000,
  maxHoldOffMs: 1_800_000,
};

/** Where the guard is; `calm` lists recent revert times, oldest first. */
export type RevertGuardState =
  | { readonly kind: "calm"; readonly reverts: readonly number[] }
  | {
    readonly kind: "fighting";
    readonly reverts: number;
    readonly holdOffMs: number;
    readonly lastRevertAt: number;
  };

/** What a reported revert changed. */
export type RevertVerdict =
  | { readonly kind: "counted"; readonly reverts: number }
  /** Tell the operator, once. */
  | { readonly kind: "fight-started"; readonly reverts: number; readonly holdOffMs: number }
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
 * import assert from "node:assert/strict";
 * import { RevertGuard } from "./revert_guard.ts";
 *
 * const guard = new RevertGuard(); // a fight starts at the third revert in 30 minutes
 * assert.deepEqual(guard.observeRevert(1_000), { kind: "counted", reverts: 1 });
 * assert.deepEqual(guard.observeRevert(2_000), { kind: "counted", reverts: 2 });
 * assert.deepEqual(guard.observeRevert(3_000), { kind: "fight-started", reverts: 3, holdOffMs: 30000 });
 * assert.deepEqual(guard.writeGate(4_000, 3_500), { allowed: false, waitMs: 29500, reverts: 3 });
 * ```
 */
export class RevertGuard {
  readonly #options: Required<RevertGuardOptions>;
  #state: RevertGuardState = { kind: "calm", reverts: [] };

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
