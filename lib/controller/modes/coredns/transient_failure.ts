/**
 * Turns what the API client throws into the `failed` outcome the controller backs off on, so the
 * CoreDNS sinks return expected failures as values; an abort or a bug still rejects.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { KubeDecodeError } from "../../../kube/decode_error.ts";
import { KubeApiError, KubeTransportError } from "../../../kube/errors.ts";
import { errorMessage } from "../../../util/error_message.ts";
import type { SinkOutcome } from "../sink.ts";

/** The failed outcome. */
export type FailedOutcome = Extract<SinkOutcome, { kind: "failed" }>;

/**
 * The failed outcome for an API client error.
 *
 * @throws {unknown} `error` itself, when `signal` has aborted or `error` is no API client error.
 */
export function transientFailure(error: unknown, signal: AbortSignal): FailedOutcome {
  if (signal.aborted) throw error;
  const fromClient = error instanceof KubeApiError || error instanceof KubeTransportError ||
    error instanceof KubeDecodeError;
  if (!fromClient) throw error;
  return { kind: "failed", message: errorMessage(error), cause: error };
}
