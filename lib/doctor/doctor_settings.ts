/**
 * The doctor's validated settings, the controller's checked by the controller's own rules so a
 * flag it would refuse is refused here with the same words.
 *
 * One difference, for a run outside a pod: with `--routes` and no `--routes-namespace`, the
 * controller would take its own namespace, which a workstation does not have; the doctor then
 * takes `--proxy-service-namespace`, where the table must be anyway (the proxy mounts it, and a
 * ConfigMap volume comes from the pod's own namespace).
 *
 * Pure: the environment and files come in through {@linkcode DoctorSettingsInput}.
 *
 * @module
 */

import { ConfigError, type OptionValues, type ValueSource } from "../cli/options.ts";
import { type ControllerSettings, controllerSettings } from "../controller/controller_settings.ts";
import type { DOCTOR_OPTIONS } from "./doctor_options.ts";

/** The doctor's parsed option values. */
export type DoctorValues = OptionValues<typeof DOCTOR_OPTIONS.options>;

/** A Service named as `<namespace>/<name>`. */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

/** What {@linkcode doctorSettings} returns. */
export interface DoctorSettings {
  readonly values: DoctorValues;
  /** `--ingress-service`. */
  readonly ingressService: ServiceRef;
  /** `--cluster-dns-service`. */
  readonly clusterDnsService: ServiceRef;
  readonly controller: ControllerSettings;
}

/** What {@linkcode doctorSettings} validates, with the environment it may consult. */
export interface DoctorSettingsInput {
  readonly values: DoctorValues;
  readonly sources: { readonly clusterDomain: ValueSource };
  /** /etc/resolv.conf's text, for the cluster domain; undefined when unreadable. */
  readonly readResolvConf: () => string | undefined;
  /** The pod's namespace, when running in a pod. */
  readonly podNamespace: string | undefined;
}

function serviceRef(flag: string, raw: string, problems: string[]): ServiceRef {
  const [namespace = "", name = "", ...rest] = raw.split("/");
  if (namespace === "" || name === "" || rest.length > 0) {
    problems.push(
      `--${flag}: "${raw}" is not <namespace>/<name>; accepted: a Service such as kube-system/kube-dns`,
    );
  }
  return { namespace, name };
}

/** Validates the doctor's options, listing every problem at once. */
export function doctorSettings(input: DoctorSettingsInput): DoctorSettings | ConfigError {
  const { values } = input;
  const problems: string[] = [];
  const ingressService = serviceRef("ingress-service", values.ingressService, problems);
  const clusterDnsService = serviceRef("cluster-dns-service", values.clusterDnsService, problems);
  const routesNamespace = values.routes && values.routesNamespace === "" && input.podNamespace === undefined
    ? values.proxyServiceNamespace
    : values.routesNamespace;
  const controller = controllerSettings({
    values: { ...values, routesNamespace },
    clusterDomainSource: input.sources.clusterDomain,
    readResolvConf: input.readResolvConf,
    podNamespace: input.podNamespace,
  });
  if (controller instanceof ConfigError) problems.push(...controller.problems);
  if (problems.length > 0 || controller instanceof ConfigError) return new ConfigError("doctor", problems);
  return { values, ingressService, clusterDnsService, controller };
}
