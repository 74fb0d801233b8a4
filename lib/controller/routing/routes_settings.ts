/**
 * `--routes`' settings: where the route table ConfigMap goes, whose it is, and its backends'
 * default PROXY version, checked with the rest of the controller's settings.
 *
 * Pure: the pod's namespace is passed in.
 *
 * @module
 */

import type { ControllerValues } from "../controller_settings.ts";
import { isDnsSubdomain } from "../../util/kube_names.ts";

/** Where `--routes` writes the route table. */
export interface RoutesSettings {
  readonly namespace: string;
  readonly configmap: string;
  /** The owning release (`OUROBOROS_INSTANCE`, else `ouroboros`). */
  readonly instance: string;
  readonly proxyProtocol: "v1" | "v2";
}

/** `--routes`' settings (`undefined` when it is off), and what is wrong with them. */
export function routesSettings(
  values: ControllerValues,
  podNamespace: string | undefined,
): { readonly routes: RoutesSettings | undefined; readonly problems: readonly string[] } {
  if (!values.routes) return { routes: undefined, problems: [] };
  const problems: string[] = [];
  const configmap = values.routesConfigmap !== ""
    ? values.routesConfigmap
    : values.instance !== ""
    ? `${values.instance}-routes`
    : "ouroboros-routes";
  const namespace = values.routesNamespace !== "" ? values.routesNamespace : podNamespace ?? "";
  if (!isDnsSubdomain(configmap)) {
    problems.push(`--routes-configmap="${configmap}" must be a ConfigMap name (a lower-case DNS subdomain)`);
  }
  if (namespace === "") {
    problems.push(
      "--routes: the route table's namespace is unknown; set --routes-namespace (the service account's " +
        "namespace file could not be read)",
    );
  }
  // Outside the chart there may be no release name; the labels still need a value.
  const instance = values.instance !== "" ? values.instance : "ouroboros";
  return { routes: { namespace, configmap, instance, proxyProtocol: values.routesProxyProtocol }, problems };
}
