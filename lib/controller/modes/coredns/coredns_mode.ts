/**
 * The two CoreDNS modes as the controller runs them: coredns mode edits a marker block in the
 * Corefile, coredns-import mode owns one key of a ConfigMap the Corefile imports.
 *
 * Effects: building a mode registers its watch through the context; the sink and the probes make
 * HTTP requests only when the controller runs them.
 *
 * Both watch the ConfigMap they write (metadata only), so a removed block is repaired at once;
 * `known_configmap.ts` and `remembered_edit.ts` keep the echo of our own write cheap.
 * `--node-local-dns=manage` adds a second target and pairs the sinks (`paired_sink.ts`).
 *
 * @module
 */

import { CONFIG_MAP_VERSION } from "../../../resources/config_map.ts";
import type { BlockMarkers } from "../markers.ts";
import type { Mode, ModeContext, Sink } from "../sink.ts";
import { CorednsImportSink } from "./coredns_import_sink.ts";
import { CorednsSink } from "./coredns_sink.ts";
import { nodeLocalDnsMarkers } from "./corefile/node_local_dns_markers.ts";
import type { ConfigMapApi, CorefileLocation } from "./corefile_location.ts";
import { knownConfigMapApi } from "./known_configmap.ts";
import { rememberedEdit } from "./remembered_edit.ts";
import { applyCorefileBlock } from "./corefile/apply_corefile_block.ts";
import { nodeLocalDnsSink } from "./node_local_dns_sink.ts";
import { pairedSink } from "../paired_sink.ts";
import {
  COREDNS_IMPORT_SINK_PROBLEMS,
  COREDNS_SINK_PROBLEMS,
  modeRefusalProblems,
} from "./refusal_problems.ts";
import { runStartupProbes, type StartupProbeOptions } from "./startup_probes.ts";

/** What both CoreDNS modes are built from. */
export interface CorednsModeSettings {
  /** Edited in coredns mode, read by the probes in both. */
  readonly coredns: CorefileLocation;
  /** The import ConfigMap and the key ouroboros owns (coredns-import mode). */
  readonly corednsImport: CorefileLocation;
  /** The rewrite target, ending with a dot. */
  readonly proxyFqdn: string;
  readonly markers: BlockMarkers;
  readonly nodeLocalDns: NodeLocalDnsSettings;
}

/** `--node-local-dns` and where the node-local-dns Corefile is. */
export interface NodeLocalDnsSettings extends CorefileLocation {
  /** `warn` (default): probe and warn; `manage`: own a block in it. */
  readonly mode: "warn" | "manage";
}

function withNodeLocalDns(sink: Sink, settings: CorednsModeSettings, context: ModeContext): Sink {
  if (settings.nodeLocalDns.mode !== "manage") return sink;
  return pairedSink([sink, nodeLocalSink(settings, context)], "node-local-dns-");
}

/** The node-local-dns sink of `--node-local-dns=manage`. */
function nodeLocalSink(settings: CorednsModeSettings, context: ModeContext): Sink {
  const nodeLocal = settings.nodeLocalDns;
  const { namespace, configmap, key } = nodeLocal;
  return nodeLocalDnsSink({
    client: watchTarget(context, nodeLocal),
    target: { namespace, configmap, key },
    proxyFqdn: settings.proxyFqdn,
    recorder: context.recorder,
    markers: nodeLocalDnsMarkers(settings.markers.id),
    dryRun: context.dryRun ?? false,
  });
}

/**
 * The node-local-dns block alone, for `--cleanup --cleanup-node-local-dns-only`: the Corefile's
 * block (or the import key) is left as it is.
 */
export function nodeLocalDnsOnlyMode(settings: CorednsModeSettings, context: ModeContext): Mode {
  return { sink: nodeLocalSink(settings, context), details: { nodeLocalDns: settings.nodeLocalDns.mode } };
}

/** Watches the target (metadata only); the returned client skips re-reading a held version. */
function watchTarget(context: ModeContext, target: CorefileLocation): ConfigMapApi {
  const ref = { namespace: target.namespace, name: target.configmap };
  const watched = context.watch(CONFIG_MAP_VERSION, ref, "target");
  return knownConfigMapApi({ client: context.client, watched, ref });
}

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
  const client = watchTarget(context, target);
  return {
    sink: withNodeLocalDns(
      new CorednsSink({
        client,
        target,
        proxyFqdn: settings.proxyFqdn,
        recorder: context.recorder,
        markers: settings.markers,
        edit: rememberedEdit((corefile, hosts) =>
          applyCorefileBlock(corefile, { hosts, fqdn: settings.proxyFqdn, markers: settings.markers })
        ),
        dryRun: context.dryRun ?? false,
      }),
      settings,
      context,
    ),
    probe: probes(settings, context, "coredns"),
    refusalProblems: modeRefusalProblems(COREDNS_SINK_PROBLEMS, settings.nodeLocalDns.mode),
    wildcards: true,
    details: {
      proxyFqdn: settings.proxyFqdn,
      markerId: settings.markers.id,
      nodeLocalDns: settings.nodeLocalDns.mode,
    },
  };
}

/** coredns-import mode: one key of the import ConfigMap. */
export function corednsImportMode(settings: CorednsModeSettings, context: ModeContext): Mode {
  const target = settings.corednsImport;
  const client = watchTarget(context, target);
  return {
    sink: withNodeLocalDns(
      new CorednsImportSink({
        client,
        target,
        proxyFqdn: settings.proxyFqdn,
        recorder: context.recorder,
        dryRun: context.dryRun ?? false,
      }),
      settings,
      context,
    ),
    probe: probes(settings, context, "coredns-import"),
    refusalProblems: modeRefusalProblems(COREDNS_IMPORT_SINK_PROBLEMS, settings.nodeLocalDns.mode),
    wildcards: true,
    details: { proxyFqdn: settings.proxyFqdn, nodeLocalDns: settings.nodeLocalDns.mode },
  };
}
