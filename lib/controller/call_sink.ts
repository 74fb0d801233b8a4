/**
 * One sink call as the loop makes it: under the shutdown grace period, and with a rejection
 * turned into a `failed` outcome, so the loop always has an outcome to record.
 *
 * Effects: the sink call, the clock, a WARN when a call is abandoned.
 *
 * @module
 */

import type { Sink, SinkOutcome } from "./modes/sink.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage } from "../util/error_message.ts";
import type { Log } from "../util/logging.ts";
import type { DesiredInput } from "./sink_call_needed.ts";
import { withShutdownGrace } from "./with_shutdown_grace.ts";
import { toSeconds } from "../util/duration.ts";

/** What {@linkcode callSink} needs besides the sink and the desired set. */
export interface CallSinkOptions {
  readonly signal: AbortSignal;
  readonly graceMs: number;
  readonly clock: Clock;
  readonly log: Log;
}

/** Hands `desired` to `sink` and returns its outcome; never rejects. */
export async function callSink(
  sink: Sink,
  desired: DesiredInput,
  options: CallSinkOptions,
): Promise<SinkOutcome> {
  const { signal, graceMs, clock, log } = options;
  try {
    return await withShutdownGrace(
      (own) => sink.reconcile(desired.hosts, own, { sources: desired.sources }),
      {
        signal,
        graceMs,
        clock,
        onAbandon: () =>
          log.warn("a reconcile did not finish within the shutdown grace period; abandoning it", {
            target: sink.description,
            graceSeconds: toSeconds(graceMs),
          }),
      },
    );
  } catch (error) {
    return { kind: "failed", message: errorMessage(error) };
  }
}
