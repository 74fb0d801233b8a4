/**
 * external-dns mode as the controller runs it: the {@linkcode ExternalDnsSink}, the proxy Service
 * it points records at (a prerequisite watch, unless `--external-dns-proxy-ip` fixes the target),
 * and the start-up probe for records of the output not in use.
 *
 * Effects: none to build; the probe reads the API server when the controller runs it.
 *
 * @module
 */

import { SERVICE } from "../../../resources/service.ts";
import { errorMessage } from "../../../util/error_message.ts";
import type { Mode, ModeContext } from "../sink.ts";
import type { RecordSettings } from "./build_records.ts";
import { ExternalDnsSink } from "./external_dns_sink.ts";
import { orphanNotices, probeOrphans } from "./orphan_probe.ts";
import type { TargetOrigin } from "./proxy_targets.ts";
import { EXTERNAL_DNS_SINK_PROBLEMS } from "./refusal_problems.ts";

/** What external-dns mode is built from. */
export interface ExternalDnsModeSettings extends RecordSettings {
  /** `--external-dns-proxy-ip`: a fixed target; empty: the proxy Service's cluster IPs. */
  readonly proxyIp: string;
  /** `--external-dns-proxy-service`: the proxy Service's name. */
  readonly proxyService: string;
  /** `--proxy-service-namespace`; empty: the pod's namespace, else the records' namespace. */
  readonly proxyServiceNamespace: string;
}

/** How long the start-up orphan probe may take before it is skipped. */
const ORPHAN_PROBE_TIMEOUT_MS = 5_000;

/**
 * external-dns mode for `settings`: nothing is written before the proxy Service has listed, and
 * nothing at all with `context.dryRun`.
 */
export function externalDnsMode(settings: ExternalDnsModeSettings, context: ModeContext): Mode {
  let targets: TargetOrigin;
  let targetsFrom: string;
  if (settings.proxyIp !== "") {
    targets = { kind: "address", address: settings.proxyIp };
    targetsFrom = `--external-dns-proxy-ip=${settings.proxyIp}`;
  } else {
    const ref = {
      namespace: settings.proxyServiceNamespace || context.podNamespace || settings.namespace,
      name: settings.proxyService,
    };
    targets = { kind: "service", ref, store: context.watch(SERVICE, ref, "prerequisite") };
    targetsFrom = `Service ${ref.namespace}/${ref.name}`;
  }
  const where = { activeOutput: settings.output, namespace: settings.namespace, instance: settings.instance };
  return {
    sink: new ExternalDnsSink({
      client: context.client,
      settings,
      targets,
      recorder: context.recorder,
      dryRun: context.dryRun ?? false,
    }),
    probe: async (signal) => {
      const probe = AbortSignal.any([signal, AbortSignal.timeout(ORPHAN_PROBE_TIMEOUT_MS)]);
      try {
        return orphanNotices(await probeOrphans(context.client, { ...where, signal: probe }), where);
      } catch (error) {
        // Only an abort gets here (shutdown, or the probe's deadline): the probe is best effort.
        return [{
          level: "debug",
          message: "the orphan probe did not finish; skipped",
          properties: { error: errorMessage(error) },
        }];
      }
    },
    wildcards: true,
    refusalProblems: EXTERNAL_DNS_SINK_PROBLEMS,
    details: {
      output: settings.output,
      recordsNamespace: settings.namespace,
      instance: settings.instance,
      ttlSeconds: settings.recordTtl,
      targetsFrom,
      annotations: Object.keys(settings.annotations).length,
      labels: Object.keys(settings.labels).length,
      ...(settings.output === "service" ? { annotationPrefix: settings.annotationPrefix } : {}),
    },
  };
}
