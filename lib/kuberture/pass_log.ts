/**
 * How kuberture logs a pass, once per change of what is said: a held-back output or unlistable
 * DNSEndpoints WARN when they start and INFO when they end; a refused output is an ERROR and a
 * Warning Event once while it lasts; a repeated dry-run diff drops to DEBUG.
 *
 * Effects: log lines, metrics, Events.
 *
 * @module
 */

import type { EventRecorder } from "../kube/event_recorder.ts";
import type { Log } from "../util/logging.ts";
import type { KubertureMetrics } from "./kuberture_metrics.ts";
import type { PassReport } from "./run_pass.ts";

/** What {@linkcode PassLog} writes to. */
export interface PassLogOptions {
  readonly log: Log;
  readonly metrics: KubertureMetrics;
  readonly recorder: Pick<EventRecorder, "record">;
  /** No Events in a dry run. */
  readonly dryRun: boolean;
}

/** Remembers what was said, so a lasting condition is said once. */
export class PassLog {
  readonly #options: PassLogOptions;
  readonly #metrics: KubertureMetrics;
  readonly #held = new Set<string>();
  readonly #refused = new Map<string, string>();
  readonly #previews = new Map<string, string>();
  readonly #unresolved = new Map<string, string>();
  #endpointsUnlisted = "";

  /** Says nothing until {@linkcode say}. */
  constructor(options: PassLogOptions) {
    this.#options = options;
    this.#metrics = options.metrics;
  }

  /** Logs `report` and feeds the metrics; records an Event for a newly refused output. */
  async say(report: PassReport, signal: AbortSignal): Promise<void> {
    const log = this.#options.log;
    if (report.listFailed !== undefined) {
      log.error("cannot list this instance's objects; outputs of that kind were not written", {
        error: report.listFailed,
      });
    }
    const unlisted = report.endpointsUnlisted ?? "";
    if (unlisted !== this.#endpointsUnlisted) {
      if (unlisted !== "") log.warn("cannot look for stale DNSEndpoints", { detail: unlisted });
      else log.info("DNSEndpoints can be listed again");
      this.#endpointsUnlisted = unlisted;
    }
    for (const result of report.outputs) {
      const unresolved = report.unresolved?.[result.output] ?? "";
      if (unresolved !== (this.#unresolved.get(result.output) ?? "")) {
        if (unresolved !== "") {
          log.warn("some endpoints of the output map to no Node address", {
            output: result.output,
            detail: unresolved,
          });
        }
        this.#unresolved.set(result.output, unresolved);
      }
      const held = result.kind === "kept";
      this.#metrics.heldBack(result.output, held);
      if (held && !this.#held.has(result.output)) {
        this.#held.add(result.output);
        log.warn("no address resolved for the output; its published object is kept as it is", {
          output: result.output,
          name: result.name,
        });
      } else if (!held && this.#held.delete(result.output)) {
        log.info("the output resolves addresses again", { output: result.output });
      }
      this.#metrics.refused(result.output, result.kind === "refused");
      if (result.kind !== "refused") this.#refused.delete(result.output);
      switch (result.kind) {
        case "written":
          this.#metrics.resolved(result.output, result.addresses);
          if (result.changed) {
            log.info("output published", {
              output: result.output,
              name: result.name,
              addresses: result.addresses,
            });
          } else log.debug("output already as desired", { output: result.output, name: result.name });
          break;
        case "previewed": {
          this.#metrics.resolved(result.output, result.addresses);
          const repeat = this.#previews.get(result.output) === result.diff;
          this.#previews.set(result.output, result.diff);
          if (result.diff === "") {
            log.debug("dry run: the output is already as desired", { output: result.output });
          } else {
            log[repeat ? "debug" : "info"]("dry run: the output would change; nothing written", {
              output: result.output,
              name: result.name,
              diff: result.diff,
              ...(repeat ? { repeated: true } : {}),
            });
          }
          break;
        }
        case "kept":
          this.#metrics.resolved(result.output, 0);
          break;
        case "refused":
          if (this.#refused.get(result.output) !== result.message) {
            this.#refused.set(result.output, result.message);
            log.error("output refused", { output: result.output, name: result.name, reason: result.message });
            if (!this.#options.dryRun) await this.#event(result, signal);
          }
          break;
        case "failed":
          if (result.fenced === true) {
            log.debug("output not written: this replica no longer leads", { output: result.output });
            break;
          }
          log.error("output failed; retrying", {
            output: result.output,
            name: result.name,
            error: result.message,
          });
          break;
      }
    }
    for (const result of report.prune) {
      if (result.kind === "failed") {
        log.error("cannot delete a stale object", {
          kind: result.objectKind,
          name: result.name,
          error: result.message,
        });
      } else if (result.kind === "previewed") {
        log.info("dry run: a stale object would be deleted", { kind: result.objectKind, name: result.name });
      } else log.info("stale object deleted", { kind: result.objectKind, name: result.name });
    }
  }

  async #event(
    result: Extract<PassReport["outputs"][number], { kind: "refused" }>,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await this.#options.recorder.record({
        object: result.object,
        type: "Warning",
        reason: "KubertureNameTaken",
        message: result.message,
      }, signal);
    } catch {
      // An Event is a courtesy; the ERROR line above already said it.
    }
  }
}
