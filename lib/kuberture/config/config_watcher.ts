/**
 * Hot reload of kuberture's config file. It watches the file's folder, not the file: a ConfigMap
 * mount swaps the `..data` symlink, so no event names `config.yaml` (kuberture's name filter misses
 * exactly this). After 100 ms of quiet the whole file is read again; the same text is `unchanged`,
 * so a lasting refusal is reported once. The watcher never logs: outcomes are values.
 *
 * Effects: watches a folder (`Deno.watchFs`), reads one file, sleeps on the injected clock.
 *
 * @module
 */

import type { Clock } from "../../util/clock.ts";
import type { KubertureConfig } from "./kuberture_config.ts";
import { readKubertureConfig } from "./read_kuberture_config.ts";
import { type RestartNeededKey, restartNeededKeys } from "./restart_needed_keys.ts";

/** What one look at the file found. */
export type ConfigWatchOutcome =
  /** Accepted whole; `restartNeeded` names changed keys that apply only after a restart. */
  | {
    readonly kind: "loaded";
    readonly config: KubertureConfig;
    readonly restartNeeded: readonly RestartNeededKey[];
  }
  /** The file cannot be read or was refused; the config in force stays. */
  | { readonly kind: "refused"; readonly problems: readonly string[] }
  /** The file reads as it did last time. */
  | { readonly kind: "unchanged" };

/** Options for {@linkcode ConfigWatcher}. */
export interface ConfigWatcherOptions {
  /** The config the process started with and the file text it came from. */
  readonly initial: { readonly config: KubertureConfig; readonly text: string };
  readonly clock: Clock;
  /** Called with each outcome, in order; it must not throw (a throw ends {@linkcode ConfigWatcher.run}). */
  readonly onOutcome: (outcome: ConfigWatchOutcome) => void;
  /** How long the folder must be quiet before the file is read again. @default 100 */
  readonly debounceMs?: number;
}

/** Watches one config file and reports each change as a {@linkcode ConfigWatchOutcome}. */
export class ConfigWatcher {
  readonly #path: string;
  readonly #folder: string;
  readonly #clock: Clock;
  readonly #onOutcome: (outcome: ConfigWatchOutcome) => void;
  readonly #debounceMs: number;
  #config: KubertureConfig;
  /** The text read last, or why the file could not be read (so a lasting failure is reported once). */
  #lastSeen: string;

  /** Watches `path` (its folder must exist when {@linkcode run} starts). */
  constructor(path: string, options: ConfigWatcherOptions) {
    this.#path = path;
    const slash = path.lastIndexOf("/");
    this.#folder = slash < 0 ? "." : slash === 0 ? "/" : path.slice(0, slash);
    this.#clock = options.clock;
    this.#onOutcome = options.onOutcome;
    this.#debounceMs = options.debounceMs ?? 100;
    this.#config = options.initial.config;
    this.#lastSeen = options.initial.text;
  }

  /** The config in force: the initial one, or the last one loaded. */
  get config(): KubertureConfig {
    return this.#config;
  }

  /**
   * Watches until `signal` aborts. Looks once at the start (a change made before the watch began
   * is not lost), then after each quiet spell. Rejects if the folder cannot be watched or the
   * watch ends.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const watcher = Deno.watchFs(this.#folder, { recursive: false });
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      watcher.close();
    };
    let changed = false;
    let lastChange = 0;
    let wake: (() => void) | undefined;
    /** Set when the event stream ends, with what it threw (`undefined` when it just ended). */
    let ended: { readonly error: unknown } | undefined;
    const onAbort = () => {
      close();
      wake?.();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const pump = (async () => {
      try {
        // Our own reads show up as "access" events; everything else may be the file changing.
        for await (const event of watcher) {
          if (event.kind === "access") continue;
          changed = true;
          lastChange = this.#clock.now();
          wake?.();
        }
        ended = { error: undefined };
      } catch (error) {
        ended = { error };
      } finally {
        wake?.();
      }
    })();
    try {
      this.#onOutcome(this.#look());
      while (!signal.aborted) {
        if (ended !== undefined) {
          throw new Error(`the watch of ${this.#folder} ended`, { cause: ended.error });
        }
        if (!changed) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        const quietFor = lastChange + this.#debounceMs - this.#clock.now();
        if (quietFor > 0) {
          await this.#clock.sleep(quietFor, signal);
          continue;
        }
        changed = false;
        this.#onOutcome(this.#look());
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      close();
      await pump;
    }
  }

  /** Reads the file and compares it with what was seen last. */
  #look(): ConfigWatchOutcome {
    const read = readKubertureConfig(this.#path);
    const seen = read.text ?? `\0${read.ok ? "" : read.problems.join("\n")}`;
    if (seen === this.#lastSeen) return { kind: "unchanged" };
    this.#lastSeen = seen;
    if (!read.ok) return { kind: "refused", problems: read.problems };
    const restartNeeded = restartNeededKeys(this.#config, read.config);
    this.#config = read.config;
    return { kind: "loaded", config: read.config, restartNeeded };
  }
}
