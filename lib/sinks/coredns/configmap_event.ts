/**
 * The Warning Event both CoreDNS sinks put on the ConfigMap they refuse to edit, so `kubectl
 * describe configmap` shows what to fix next to the object.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { EventNotice } from "../../kube/event_recorder.ts";
import type { ConfigMap } from "../../resources/config_map.ts";

/**
 * A Warning Event about `configMap`.
 *
 * @example
 * ```ts
 * configMapWarning(configMap, "CorefileMarkersDamaged", "END before BEGIN on line 12 …");
 * ```
 */
export function configMapWarning(configMap: ConfigMap, reason: string, message: string): EventNotice {
  return {
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: configMap.metadata.namespace,
      name: configMap.metadata.name,
      uid: configMap.metadata.uid,
    },
    type: "Warning",
    reason,
    message,
  };
}
