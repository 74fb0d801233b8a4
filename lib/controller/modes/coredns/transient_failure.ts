/**
 * Turns what the API client throws into the `failed` outcome the controller backs off on (the
 * API server unreachable, a 5xx, a 403, an answer that does not decode), so the CoreDNS sinks
 * return expected failures as values. An abort, and anything the client does not throw (a bug),
 * still reject.
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
 * The failed outcome for a request error, with the error's message; rethrows when `signal` has
 * aborted or when `error` did not come from the API client.
 *
 * @throws {unknown} `error` itself, when `signal` has aborted or `error` is no API client error.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../../../kube/client.ts";
 * import { CONFIG_MAP, type ConfigMap } from "../../../resources/config_map.ts";
 * import { type FailedOutcome, transientFailure } from "./transient_failure.ts";
 *
 * declare const client: KubeClient;
 * async function readCorefile(signal: AbortSignal): Promise<ConfigMap | FailedOutcome> {
 *   try {
 *     return await client.get(CONFIG_MAP, { namespace: "kube-system", name: "coredns" }, { signal });
 *   } catch (error) {
 *     // { kind: "failed", message: "GET …: 500 InternalError: …", cause: error }
 *     return transientFailure(error, signal);
 *   }
 * }
 * ```
 */
export function transientFailure(error: unknown, signal: AbortSignal): FailedOutcome {
  if (signal.aborted) throw error;
  const fromClient = error instanceof KubeApiError || error instanceof KubeTransportError ||
    error instanceof KubeDecodeError;
  if (!fromClient) throw error;
  return { kind: "failed", message: errorMessage(error), cause: error };
}
