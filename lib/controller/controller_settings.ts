/**
 * Turns parsed controller options into validated settings, reporting every problem at once.
 *
 * Pure: the resolv.conf text and the pod's namespace are passed in.
 *
 * @module
 */

import { hostsPathProblem } from "./modes/etc_hosts/hosts_path.ts";
import type { CorednsModeSettings } from "./modes/coredns/coredns_mode.ts";
import { blockMarkers } from "./modes/markers.ts";
import type { DesiredSetOptions } from "../hostnames/desired_set.ts";
import { isDnsSubdomain } from "../util/kube_names.ts";
import { ConfigError, type OptionValues, type ValueSource } from "../cli/options.ts";
import { detectClusterDomain } from "../util/resolv_conf.ts";
import { type ElectionChoice, electionSettings } from "./controller_election.ts";
import type { CONTROLLER_OPTIONS } from "./controller_options.ts";
import { type RoutesSettings, routesSettings } from "./routing/routes_settings.ts";

/** The controller's parsed option values. */
export type ControllerValues = OptionValues<typeof CONTROLLER_OPTIONS.options>;

/** Where the CoreDNS data lives: namespace, ConfigMap and data key. */
export interface ConfigMapKey {
  readonly namespace: string;
  readonly configmap: string;
  readonly key: string;
}

/** Settings of the external-dns mode. */
export interface ExternalDnsSettings {
  /** Namespace the records are written to. */
  readonly namespace: string;
  readonly recordTtl: number;
  /** Explicit target, or empty: discover the ClusterIPs of `proxyService`. */
  readonly proxyIp: string;
  readonly proxyService: string;
  readonly output: "crd" | "service";
  readonly annotationPrefix: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  /** The owning release (`OUROBOROS_INSTANCE`). */
  readonly instance: string;
}

/** Everything the controller needs, validated. */
export interface ControllerSettings {
  readonly values: ControllerValues;
  readonly clusterDomain: string;
  readonly clusterDomainSource: "flag" | "env" | "detected";
  /** The rewrite target (`<svc>.<ns>.svc.<domain>.` or `--proxy-fqdn`); empty in other modes. */
  readonly proxyFqdn: string;
  readonly coredns: ConfigMapKey;
  readonly corednsImport: ConfigMapKey;
  readonly externalDns: ExternalDnsSettings;
  /** The service account's namespace, `undefined` when unknown. */
  readonly podNamespace: string | undefined;
  readonly election: ElectionChoice;
  /** `--routes`: where the route table goes, whose it is, and its backends' PROXY version. */
  readonly routes: RoutesSettings | undefined;
}

/** Inputs of {@linkcode controllerSettings}. */
export interface ControllerSettingsInput {
  readonly values: ControllerValues;
  /** Where `--cluster-domain` came from. */
  readonly clusterDomainSource: ValueSource;
  /** The text of /etc/resolv.conf, read only when the cluster domain is not given. */
  readonly readResolvConf: () => string | undefined;
  /** The service account's namespace (default of the records' namespace); `undefined`: unknown. */
  readonly podNamespace: string | undefined;
}

/** Annotation keys ouroboros sets itself on emitted records. */
export const RESERVED_ANNOTATIONS: readonly string[] = [
  "ouroboros.lexfrei.tech/source",
  "external-dns.alpha.kubernetes.io/target",
];

/** Label keys ouroboros uses to find the records it owns. */
export const RESERVED_LABELS: readonly string[] = [
  "app.kubernetes.io/managed-by",
  "ouroboros.lexfrei.tech/instance",
];

/** At most this many `--external-dns-annotation` or `--external-dns-label` entries. */
export const MAX_EXTRA_METADATA = 32;

const CONFIGMAP_KEY = /^[-._a-zA-Z0-9]+$/;
const ANNOTATION_KEY = /^[a-zA-Z0-9][a-zA-Z0-9./_-]*$/;
const LABEL_NAME = /^[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$/;

/** Problems with a label key (`[prefix/]name`), in the terms Kubernetes validates them. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (name.length < 1 || name.length > 63) {
    return `its name part must be 1 to 63 characters (got ${name.length})`;
  }
  if (!LABEL_NAME.test(name)) {
    return `its name part "${name}" may hold only letters, digits, '-', '_' and '.'`;
  }
  if (prefix !== undefined) {
    if (prefix.length < 1 || prefix.length > 253) {
      return `its prefix must be 1 to 253 characters (got ${prefix.length})`;
    }
    if (!isDnsSubdomain(prefix)) return `its prefix "${prefix}" must be a lower-case DNS subdomain`;
  }
  return undefined;
}

function checkConfigMapKey(
  mode: string,
  flags: { namespace: string; configmap: string; key: string },
  where: ConfigMapKey,
  problems: string[],
): void {
  if (where.configmap === "" || !isDnsSubdomain(where.configmap)) {
    problems.push(`${mode} mode: --${flags.configmap}="${where.configmap}" must be a ConfigMap name`);
  }
  if (where.namespace === "") problems.push(`${mode} mode: --${flags.namespace} must not be empty`);
  if (!CONFIGMAP_KEY.test(where.key)) {
    problems.push(
      `${mode} mode: --${flags.key}="${where.key}" must be a ConfigMap data key (letters, digits, '-', '_', '.')`,
    );
  }
}

function collect(
  entries: readonly (readonly [string, string])[],
  what: "annotation" | "label",
  reserved: readonly string[],
  problems: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of entries) out[key] = value;
  const flag = `--external-dns-${what}`;
  if (Object.keys(out).length > MAX_EXTRA_METADATA) {
    problems.push(`${flag}: ${Object.keys(out).length} keys, more than the limit of ${MAX_EXTRA_METADATA}`);
  }
  for (const key of Object.keys(out)) {
    if (reserved.includes(key)) {
      problems.push(`${flag} key "${key}" is reserved: ouroboros sets it to find and prune its own records`);
      continue;
    }
    const problem = what === "label"
      ? labelKeyProblem(key)
      : (ANNOTATION_KEY.test(key) ? undefined : "it may hold only letters, digits, '.', '/', '_' and '-'");
    if (problem !== undefined) problems.push(`${flag} key "${key}" is not valid: ${problem}`);
  }
  return out;
}

/**
 * Validates the controller's options together.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConfigError, parseOptions } from "../cli/options.ts";
 * import { CONTROLLER_OPTIONS } from "./controller_options.ts";
 * import { controllerSettings } from "./controller_settings.ts";
 *
 * const parsed = parseOptions(CONTROLLER_OPTIONS, {
 *   argv: ["--proxy-service-namespace=ouroboros"],
 *   getEnv: () => undefined,
 * });
 * assert.ok(parsed.kind === "ok");
 * const settings = controllerSettings({
 *   values: parsed.values,
 *   clusterDomainSource: parsed.sources.clusterDomain,
 *   readResolvConf: () => undefined,
 *   podNamespace: "ouroboros",
 * });
 * assert.ok(!(settings instanceof ConfigError));
 * assert.equal(settings.proxyFqdn, "ouroboros-proxy.ouroboros.svc.cluster.local.");
 * ```
 */
export function controllerSettings(input: ControllerSettingsInput): ControllerSettings | ConfigError {
  const { values, podNamespace } = input;
  const problems: string[] = [];
  const detected = values.clusterDomain === "";
  const clusterDomain = detected ? detectClusterDomain(input.readResolvConf()) : values.clusterDomain;
  const mode = values.mode;

  // Checked elsewhere: `--cleanup` combinations (`cleanupProblems`), election (`electionSettings`).
  if (values.gatewayClass !== "" && !values.gatewayApi) {
    problems.push(
      "--gateway-class is set but --gateway-api is off, so no Gateway is watched and the filter does nothing; " +
        "add --gateway-api or drop --gateway-class",
    );
  }

  let proxyFqdn = "";
  if (mode === "coredns" || mode === "coredns-import") {
    if (values.proxyFqdn !== "") {
      proxyFqdn = values.proxyFqdn.toLowerCase();
      if (!proxyFqdn.endsWith(".") || !isDnsSubdomain(proxyFqdn.slice(0, -1))) {
        problems.push(
          `--proxy-fqdn="${values.proxyFqdn}" must be a fully qualified name ending with a dot ` +
            "(CoreDNS rewrite targets are absolute), such as ouroboros-proxy.ouroboros.svc.cluster.local.",
        );
      }
    } else if (values.proxyServiceName === "") {
      problems.push(
        `${mode} mode needs a rewrite target: set --proxy-fqdn, or --proxy-service-name with --proxy-service-namespace`,
      );
    } else if (values.proxyServiceNamespace === "") {
      problems.push(
        `${mode} mode: --proxy-service-name="${values.proxyServiceName}" needs --proxy-service-namespace ` +
          "(the chart passes the release namespace), or set --proxy-fqdn",
      );
    } else {
      proxyFqdn = `${values.proxyServiceName}.${values.proxyServiceNamespace}.svc.${clusterDomain}.`;
    }
  }

  const coredns = {
    namespace: values.corednsNamespace,
    configmap: values.corednsConfigmap,
    key: values.corednsKey,
  };
  const corednsImport = {
    namespace: values.corednsImportNamespace,
    configmap: values.corednsImportConfigmap,
    key: values.corednsImportKey,
  };
  if (mode === "coredns") {
    checkConfigMapKey(
      "coredns",
      { namespace: "coredns-namespace", configmap: "coredns-configmap", key: "coredns-key" },
      coredns,
      problems,
    );
  }
  if (mode === "coredns-import") {
    checkConfigMapKey(
      "coredns-import",
      {
        namespace: "coredns-import-namespace",
        configmap: "coredns-import-configmap",
        key: "coredns-import-key",
      },
      corednsImport,
      problems,
    );
  }

  if (values.nodeLocalDns === "manage") {
    if (mode !== "coredns" && mode !== "coredns-import") {
      problems.push(
        `--node-local-dns=manage works in coredns and coredns-import modes only, not in ${mode} mode ` +
          "(it sends the hairpinned names from node-local-dns to CoreDNS's rewrite rules)",
      );
    } else {
      if (values.nodeLocalDnsConfigmap === "" || !isDnsSubdomain(values.nodeLocalDnsConfigmap)) {
        problems.push(
          `--node-local-dns=manage: OUROBOROS_NODE_LOCAL_DNS_CONFIGMAP="${values.nodeLocalDnsConfigmap}" ` +
            "must be a ConfigMap name",
        );
      }
      if (!CONFIGMAP_KEY.test(values.nodeLocalDnsKey)) {
        problems.push(
          `--node-local-dns=manage: OUROBOROS_NODE_LOCAL_DNS_KEY="${values.nodeLocalDnsKey}" must be a ` +
            "ConfigMap data key (letters, digits, '-', '_', '.')",
        );
      }
    }
  }

  if (mode === "etc-hosts") {
    if (values.etcHosts === "") {
      problems.push("etc-hosts mode: --etc-hosts must name the hosts file to manage");
    } else {
      const unsafe = hostsPathProblem(values.etcHosts);
      if (unsafe !== undefined) problems.push(`--etc-hosts: ${unsafe.message}`);
    }
    if (values.proxyIp === "") {
      problems.push("etc-hosts mode needs --proxy-ip: the address written for every hostname");
    }
  }

  const annotations = collect(values.externalDnsAnnotation, "annotation", RESERVED_ANNOTATIONS, problems);
  const labels = collect(values.externalDnsLabel, "label", RESERVED_LABELS, problems);
  const externalDns: ExternalDnsSettings = {
    namespace: values.externalDnsNamespace !== "" ? values.externalDnsNamespace : podNamespace ?? "",
    recordTtl: values.externalDnsRecordTtl,
    proxyIp: values.externalDnsProxyIp,
    proxyService: values.externalDnsProxyService,
    output: values.externalDnsOutput,
    annotationPrefix: values.externalDnsAnnotationPrefix,
    annotations,
    labels,
    instance: values.instance,
  };
  if (mode === "external-dns") {
    const prefix = externalDns.annotationPrefix;
    if (prefix === "" && externalDns.output === "service") {
      problems.push(
        "--external-dns-output=service needs --external-dns-annotation-prefix " +
          "(external-dns.alpha.kubernetes.io/, or the prefix your external-dns instance uses)",
      );
    } else if (!prefix.endsWith("/")) {
      problems.push(`--external-dns-annotation-prefix="${prefix}" must end with '/'`);
    }
    if (externalDns.proxyIp === "" && externalDns.proxyService === "") {
      problems.push(
        "external-dns mode needs a record target: set --external-dns-proxy-ip, or --external-dns-proxy-service " +
          "to use that Service's ClusterIPs",
      );
    }
    if (externalDns.instance === "") {
      problems.push(
        "external-dns mode needs OUROBOROS_INSTANCE (the chart sets the release name): without it two releases " +
          "could prune each other's records",
      );
    }
    if (externalDns.namespace === "") {
      problems.push(
        "external-dns mode: the records' namespace is unknown; set --external-dns-namespace " +
          "(the service account's namespace file could not be read)",
      );
    }
  }

  const { routes, problems: routesProblems } = routesSettings(values, podNamespace);
  problems.push(...routesProblems);

  const { election, problems: electionProblems } = electionSettings(values, { podNamespace });
  problems.push(...electionProblems);

  if (problems.length > 0) return new ConfigError("controller", problems);
  return {
    values,
    clusterDomain,
    clusterDomainSource: detected ? "detected" : input.clusterDomainSource === "env" ? "env" : "flag",
    proxyFqdn,
    coredns,
    corednsImport,
    externalDns,
    podNamespace,
    election,
    routes,
  };
}

/**
 * True when the rewrite target's suffix is not the cluster domain in use, so every hairpinned
 * lookup would be NXDOMAIN.
 */
export function clusterDomainMismatch(proxyFqdn: string, clusterDomain: string): boolean {
  if (proxyFqdn === "" || clusterDomain === "") return false;
  return !proxyFqdn.toLowerCase().endsWith(`.svc.${clusterDomain.toLowerCase().replace(/\.$/, "")}.`);
}

/** The desired set's options from the controller's settings; the doctor computes the same set. */
export function desiredSetOptions(settings: ControllerSettings): DesiredSetOptions {
  const { values } = settings;
  return {
    clusterDomain: settings.clusterDomain,
    ...(settings.proxyFqdn === "" ? {} : { proxyFqdn: settings.proxyFqdn }),
    ingressHosts: values.ingressHosts,
    ingressClass: values.ingressClass,
    gatewayClass: values.gatewayClass,
    ...(values.wildcards === "rewrite" ? { wildcards: "include" as const } : {}),
  };
}

/** The CoreDNS modes' settings from the controller's; the doctor judges the same ones. */
export function corednsSettings(
  { values, coredns, corednsImport, proxyFqdn }: ControllerSettings,
): CorednsModeSettings {
  return {
    coredns,
    corednsImport,
    proxyFqdn,
    markers: blockMarkers(values.markerId),
    nodeLocalDns: {
      mode: values.nodeLocalDns,
      namespace: values.nodeLocalDnsNamespace,
      configmap: values.nodeLocalDnsConfigmap,
      key: values.nodeLocalDnsKey,
    },
  };
}
