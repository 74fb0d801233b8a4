/**
 * A reflector wired to a scripted list-watcher and a fake clock, recording every state,
 * store change and log line, for the reflector's behaviour tests.
 *
 * @module
 */

import { KubeApiError, type StatusDetails } from "../../lib/kube/errors.ts";
import { Reflector, type ReflectorOptions } from "../../lib/reflector/reflector.ts";
import type { ReflectorState } from "../../lib/reflector/reflector_state.ts";
import type { StoreChange } from "../../lib/reflector/store.ts";
import { FakeClock, settle } from "../support/fake_clock.ts";
import { type LogEntry, LogRecorder } from "../support/log_recorder.ts";
import { guard, ScriptedListWatcher, type WatchCall } from "../support/scripted_list_watcher.ts";
import type { Thing } from "./things.ts";

/** A `KubeApiError` as the client would throw it (or as an ERROR event carries it). */
export function apiError(code: number, reason: string, extra: Partial<StatusDetails> = {}): KubeApiError {
  return new KubeApiError("WATCH example.com/v1 things", {
    code,
    reason,
    message: `${code} ${reason}`,
    ...extra,
  });
}

/** The ERROR event for a status. */
export function errorEvent(code: number, reason: string): { type: "ERROR"; status: StatusDetails } {
  return { type: "ERROR", status: { code, reason, message: `${code} ${reason}` } };
}

/** A running reflector under test; `await using` stops it. */
export class Harness implements AsyncDisposable {
  readonly clock = new FakeClock();
  readonly source = new ScriptedListWatcher<Thing>();
  readonly log = new LogRecorder();
  readonly states: ReflectorState<Thing>[] = [];
  readonly changes: StoreChange<Thing>[] = [];
  readonly reflector: Reflector<Thing>;
  readonly #controller = new AbortController();
  readonly #running: Promise<void>;

  /** Starts the reflector with `random` 0.5 (watch timeout 450 s, idle timeout 480 s). */
  constructor(options: ReflectorOptions<Thing> = {}) {
    this.reflector = new Reflector(this.source, {
      clock: this.clock,
      random: () => 0.5,
      log: this.log,
      observe: (state) => this.states.push(state),
      ...options,
    });
    this.reflector.store.subscribe((change) => this.changes.push(change));
    this.#running = this.reflector.run(this.#controller.signal);
  }

  get store(): Reflector<Thing>["store"] {
    return this.reflector.store;
  }

  /** The latest state. */
  get state(): ReflectorState<Thing> | undefined {
    return this.states.at(-1);
  }

  /** Delays of every backoff so far, in order. */
  backoffs(): number[] {
    return this.states.flatMap((state) => state.kind === "backoff" ? [state.delayMs] : []);
  }

  /** Messages logged at `level`. */
  messages(level: LogEntry["level"]): string[] {
    return this.log.find(level, "").map((entry) => entry.message);
  }

  /** The resourceVersion every watch so far started from. */
  watchedFrom(): string[] {
    return this.source.watches.map((call) => call.options.resourceVersion);
  }

  /** Answers the next list with one page and returns the watch that follows. */
  async sync(items: readonly Thing[], resourceVersion: string): Promise<WatchCall<Thing>> {
    const list = await this.source.nextList();
    list.respond({ items, resourceVersion });
    return await this.source.nextWatch();
  }

  /** Waits until the reflector is in a backoff and lets the delay pass. */
  async passBackoff(): Promise<number> {
    await settle();
    const state = this.state;
    if (state?.kind !== "backoff") throw new Error(`expected a backoff, the reflector is ${state?.kind}`);
    await this.clock.advance(state.delayMs);
    return state.delayMs;
  }

  /** Stops the reflector and waits for `run` to return. */
  async stop(): Promise<void> {
    this.#controller.abort();
    await guard(this.#running, "run() to return after abort");
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}
