/**
 * Every key of kuberture's config file with its default, what it accepts and whether a change
 * needs a restart: one table for the parser's messages, the restart test and the docs reference.
 *
 * Pure: data only.
 *
 * @module
 */

import { namespaceName, serviceName } from "../../cli/kinds.ts";
import { LOG_LEVELS } from "../../util/log_format.ts";

/** The annotation prefix an output gets when it names none (external-dns's own default). */
export const DEFAULT_ANNOTATION_PREFIX = "external-dns.alpha.kubernetes.io/";
/** An output's record TTL when it names none, in seconds. */
export const DEFAULT_RECORD_TTL = 60;
/** The smallest and largest record TTL accepted, in seconds (kuberture's code). */
export const RECORD_TTL_RANGE = { min: 1, max: 86_400 } as const;
/** Where an output takes its addresses from. */
export const ADDRESS_SOURCES = ["endpointslice", "node-internal", "node-external", "node-public"] as const;
/** The address families an output may be limited to. */
export const ADDRESS_FAMILIES = ["IPv4", "IPv6", "Both"] as const;
/** What an output writes: an annotated headless Service (kuberture's) or a DNSEndpoint (ours). */
export const OUTPUT_KINDS = ["service", "crd"] as const;
/** The log levels `logLevel` takes (kuberture's, which are also ours). */
export const CONFIG_LOG_LEVELS = LOG_LEVELS;

/** One key of the file, as the reference documents it. */
export interface ConfigKeyDoc {
  /** The key path, lists written `[]`: `outputs[].recordTTL`. */
  readonly key: string;
  /** The default as Markdown: a code span, or words in parentheses such as `(required)`. */
  readonly default: string;
  /** What is accepted, in words (also used in the parser's messages). */
  readonly accepts: string;
  /** What the key does, and where it differs from kuberture. */
  readonly notes: string;
  /** True when a changed value takes effect only after a restart (the hot reload says so). */
  readonly restart: boolean;
}

const LISTEN = "a listen address such as :8080, 0.0.0.0:8080 or [::]:8080, or 0 to turn the listener off";

/** The reference, in the order of the file's usual layout. */
export const KUBERTURE_CONFIG_KEYS: readonly ConfigKeyDoc[] = [
  {
    key: "source.namespace",
    default: "`default`",
    accepts: namespaceName().accepted,
    notes: "Namespace of the Service whose EndpointSlices (label kubernetes.io/service-name) are read.",
    restart: true,
  },
  {
    key: "source.serviceName",
    default: "`kubernetes`",
    accepts: serviceName().accepted,
    notes: "Name of that Service; the default is the API server's own.",
    restart: true,
  },
  {
    key: "outputs",
    default: "(required)",
    accepts: "a list of one or more outputs",
    notes: "One published record set each. Names, serviceNames and hostnames must differ across outputs.",
    restart: false,
  },
  {
    key: "outputs[].name",
    default: "(required)",
    accepts: "a name, unique across outputs",
    notes: "Names the output in logs and in the kuberture_endpoints_resolved{output} metric.",
    restart: false,
  },
  {
    key: "outputs[].hostname",
    default: "(required)",
    accepts: "a list of one or more DNS names such as [api.example.com]: two or more labels of letters, " +
      "digits and '-', optionally *. first and a dot last; not an IP address",
    notes: "The names published (the key is singular, as in kuberture). Compared without case and trailing " +
      "dot when checking that no two outputs share one.",
    restart: false,
  },
  {
    key: "outputs[].annotationPrefix",
    default: `\`${DEFAULT_ANNOTATION_PREFIX}\``,
    accepts: "a DNS subdomain followed by '/', such as internal-dns.example.com/",
    notes: "Picks the external-dns instance (its --annotation-prefix) that reads the Service. Service " +
      "outputs only. An empty value is refused: leave the key out for the default.",
    restart: false,
  },
  {
    key: "outputs[].serviceName",
    default: "(required)",
    accepts: serviceName().accepted,
    notes: "Name of the object written in the controller's namespace: the headless Service, or the " +
      "DNSEndpoint with output: crd.",
    restart: false,
  },
  {
    key: "outputs[].recordTTL",
    default: `\`${DEFAULT_RECORD_TTL}\``,
    accepts: `a whole number of seconds from ${RECORD_TTL_RANGE.min} to ${RECORD_TTL_RANGE.max}`,
    notes:
      "TTL of the published records. 0 is refused, as kuberture's chart schema refuses it (minimum 1); kuberture's code would read 0 as 60.",
    restart: false,
  },
  {
    key: "outputs[].addressSource",
    default: "`endpointslice`",
    accepts: `one of ${ADDRESS_SOURCES.join(", ")}`,
    notes: "endpointslice publishes the EndpointSlice addresses; node-internal, node-external and " +
      "node-public publish each endpoint's Node's InternalIP, ExternalIP or first public address.",
    restart: false,
  },
  {
    key: "outputs[].addressType",
    default: "`IPv4`",
    accepts: `one of ${ADDRESS_FAMILIES.join(", ")}`,
    notes: "Publishes only that family, as kuberture does (left out: IPv4, kuberture's default); not in " +
      "kuberture: Both publishes IPv4 and IPv6 addresses in one target, for a dual-stack cluster.",
    restart: false,
  },
  {
    key: "outputs[].output",
    default: "`service`",
    accepts: `one of ${OUTPUT_KINDS.join(", ")}`,
    notes: "Not in kuberture: crd writes a DNSEndpoint instead of a Service, for external-dns with " +
      "--source=crd.",
    restart: false,
  },
  {
    key: "metricsBindAddress",
    default: "`:8080`",
    accepts: LISTEN,
    notes: "Where /metrics is served.",
    restart: true,
  },
  {
    key: "healthProbeBindAddress",
    default: "`:8081`",
    accepts: LISTEN,
    notes: "Where /healthz and /readyz are served.",
    restart: true,
  },
  {
    key: "logLevel",
    default: "(the --log-level flag)",
    accepts: `one of ${CONFIG_LOG_LEVELS.join(", ")}`,
    notes: "Lowest level logged; left out, the --log-level flag decides.",
    restart: false,
  },
];

/** The reference entry of `key` (a key path with `[]` for lists); throws for an unknown key. */
export function configKeyDoc(key: string): ConfigKeyDoc {
  const found = KUBERTURE_CONFIG_KEYS.find((doc) => doc.key === key);
  if (found === undefined) throw new Error(`no reference entry for the config key ${key}`);
  return found;
}
