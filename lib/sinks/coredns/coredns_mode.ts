/**
 * The two CoreDNS modes as the controller runs them: coredns mode edits a marker block in the
 * Corefile, coredns-import mode owns one key of a ConfigMap the Corefile imports. Both watch the
 * ConfigMap they write (so an edit that removed our rules is repaired at once) and probe at
 * start for node-local-dns and the reload plugin (and, in coredns-import mode, for an import
 * directive that covers our key). The probes' findings are returned as notices; the controller
 * logs them. The probes only read; with `context.dryRun` the sinks stop before every write.
 *
 * Effects: building a mode registers its watch through the context; the sink and the probes make
 * HTTP requests only when the controller runs them.
 *
 * @module
 */

import { CONFIG_MAP } from "../../resources/config_map.ts";
import type { BlockMarkers } from "../markers.ts";
import type { Mode, ModeContext } from "../sink.ts";
import { CorednsImportSink } from "./coredns_import_sink.ts";
import { CorednsSink } from "./coredns_sink.ts";
import type { CorefileLocation } from "./corefile_location.ts";
import { runStartupProbes, type StartupProbeOptions } from "./startup_probes.ts";

/** What both CoreDNS modes are built from. */
export interface CorednsModeSettings {
  /** The CoreDNS Corefile: edited in coredns mode, read by the probes in both. */
  readonly coredns: CorefileLocation;
  /** The import ConfigMap and the key ouroboros owns (coredns-import mode). */
  readonly corednsImport: CorefileLocation;
  /** The rewrite target, ending with a dot. */
  readonly proxyFqdn: string;
  /** The release's markers (`--marker-id`), coredns mode. */
  readonly markers: BlockMarkers;
  /** The node-local-dns ConfigMap the start-up probe looks for. */
  readonly nodeLocalDns: { readonly namespace: string; readonly configmap: string };
}

function watchTarget(context: ModeContext, target: CorefileLocation): void {
  context.watch(CONFIG_MAP, { namespace: target.namespace, name: target.configmap }, "target");
}

/** The start-up probes of `mode`, handing their notices to the controller. */
function probes(
  settings: CorednsModeSettings,
  context: ModeContext,
  mode: StartupProbeOptions["mode"],
): NonNullable<Mode["probe"]> {
  return async (signal) => (await runStartupProbes(context.client, { ...settings, mode, signal })).notices;
}

/** coredns mode: the ouroboros block in the Corefile. */
export function corednsMode(settings: CorednsModeSettings, context: ModeContext): Mode {
  const target = settings.coredns;
  watchTarget(context, target);
  return {
    sink: new CorednsSink({
      client: context.client,
      target,
      proxyFqdn: settings.proxyFqdn,
      recorder: context.recorder,
      markers: settings.markers,
      dryRun: context.dryRun ?? false,
    }),
    probe: probes(settings, context, "coredns"),
    wildcards: true,
    details: { proxyFqdn: settings.proxyFqdn, markerId: settings.markers.id || "(none)" },
  };
}

/** coredns-import mode: one key of the import ConfigMap. */
export function corednsImportMode(settings: CorednsModeSettings, context: ModeContext): Mode {
  const target = settings.corednsImport;
  watchTarget(context, target);
  return {
    sink: new CorednsImportSink({
      client: context.client,
      target,
      proxyFqdn: settings.proxyFqdn,
      recorder: context.recorder,
      dryRun: context.dryRun ?? false,
    }),
    probe: probes(settings, context, "coredns-import"),
    wildcards: true,
    details: { proxyFqdn: settings.proxyFqdn },
  };
}
