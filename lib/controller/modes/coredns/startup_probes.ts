/**
 * Start-up checks of the CoreDNS modes' prerequisites whose failure is silent (DNS keeps answering
 * with the public address): node-local-dns present, the `reload` plugin, and the import line.
 *
 * Effects: HTTP through the injected client.
 *
 * Best effort: never fails start-up, never throws, one shared deadline; findings come back as
 * notices (the probes never log). A 403 (hand-made RBAC) or other read failure is only DEBUG.
 * A missing CoreDNS ConfigMap is silent: the sink reports it, or CoreDNS is configured elsewhere.
 *
 * @module
 */

import type { KubeClient } from "../../../kube/client.ts";
import { isForbidden, isNotFound } from "../../../kube/errors.ts";
import { CONFIG_MAP, type ConfigMap } from "../../../resources/config_map.ts";
import { errorMessage } from "../../../util/error_message.ts";
import type { Notice } from "../sink.ts";
import { hasReloadPlugin } from "./corefile/has_reload_plugin.ts";
import { importCovers, importLineFor } from "./corefile/import_line.ts";
import type { CorefileLocation } from "./corefile_location.ts";

/** Options for {@linkcode runStartupProbes}. */
export interface StartupProbeOptions {
  /** coredns-import mode also checks the import line. */
  readonly mode: "coredns" | "coredns-import";
  readonly coredns: CorefileLocation;
  /** Only its key is used (coredns-import mode). */
  readonly corednsImport: CorefileLocation;
  /** `mode` is `--node-local-dns` (absent: `warn`). */
  readonly nodeLocalDns: {
    readonly namespace: string;
    readonly configmap: string;
    readonly mode?: "warn" | "manage";
  };
  /** One deadline for all probes. @default 5_000 */
  readonly timeoutMs?: number;
  readonly signal: AbortSignal;
}

/** What a probe found. `unknown`: the read failed (403, timeout, …) or was not possible. */
export interface StartupProbeReport {
  readonly nodeLocalDns: "present" | "absent" | "unknown";
  readonly reload: "present" | "missing" | "unknown";
  /** `not-checked` in coredns mode. */
  readonly importDirective: "present" | "missing" | "unknown" | "not-checked";
}

/** What the probes found, and what the controller is to log about it. */
export interface StartupProbeResult {
  readonly report: StartupProbeReport;
  /** In the order the probes report: node-local-dns first, then the Corefile. */
  readonly notices: readonly Notice[];
}

/** The default shared deadline. */
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;

type Read = { readonly kind: "found"; readonly configMap: ConfigMap } | { readonly kind: "absent" } | {
  readonly kind: "failed";
  readonly forbidden: boolean;
  readonly error: string;
};

/** Runs the probes concurrently. Never rejects; an aborted `signal` ends them with no notices. */
export async function runStartupProbes(
  client: Pick<KubeClient, "get">,
  options: StartupProbeOptions,
): Promise<StartupProbeResult> {
  const { signal } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const read = async (namespace: string, name: string): Promise<Read> => {
    try {
      return {
        kind: "found",
        configMap: await client.get(CONFIG_MAP, { namespace, name }, { signal, timeoutMs }),
      };
    } catch (error) {
      if (isNotFound(error)) return { kind: "absent" };
      return {
        kind: "failed",
        forbidden: isForbidden(error),
        error: errorMessage(error),
      };
    }
  };
  const [nodeLocal, corefile] = await Promise.all([
    read(options.nodeLocalDns.namespace, options.nodeLocalDns.configmap),
    read(options.coredns.namespace, options.coredns.configmap),
  ]);
  if (signal.aborted) {
    return {
      report: { nodeLocalDns: "unknown", reload: "unknown", importDirective: "unknown" },
      notices: [],
    };
  }
  const notices: Notice[] = [];
  const report = {
    nodeLocalDns: reportNodeLocalDns(nodeLocal, options, notices),
    ...reportCorefile(corefile, options, notices),
  };
  return { report, notices };
}

function reportNodeLocalDns(
  read: Read,
  options: StartupProbeOptions,
  notices: Notice[],
): StartupProbeReport["nodeLocalDns"] {
  const where = `${options.nodeLocalDns.namespace}/${options.nodeLocalDns.configmap}`;
  const manage = options.nodeLocalDns.mode === "manage";
  switch (read.kind) {
    case "absent":
      if (manage) {
        notices.push({
          level: "warn",
          message: "--node-local-dns=manage, but the node-local-dns ConfigMap does not exist, so there is " +
            "nothing to manage; set OUROBOROS_NODE_LOCAL_DNS_NAMESPACE/_CONFIGMAP to where it is, or use " +
            "--node-local-dns=warn",
          properties: { nodeLocalDnsConfigMap: where, mode: options.mode },
        });
      }
      return "absent";
    case "failed":
      notices.push({
        level: "debug",
        message: read.forbidden
          ? "node-local-dns probe not allowed by RBAC; cannot tell whether node-local-dns bypasses the rewrite rules"
          : "node-local-dns probe failed",
        properties: { nodeLocalDnsConfigMap: where, error: read.error },
      });
      return "unknown";
    case "found":
      if (manage) {
        notices.push({
          level: "debug",
          message: "node-local-dns is installed and managed: ouroboros keeps a server block for the " +
            "hairpinned names in its Corefile, forwarding them to CoreDNS",
          properties: { nodeLocalDnsConfigMap: where, mode: options.mode },
        });
        return "present";
      }
      notices.push({
        level: "warn",
        message:
          "node-local-dns is installed: pods that resolve through it get names outside the cluster domain " +
          "straight from upstream, without CoreDNS's rewrite rules, so hairpinned hostnames still resolve " +
          `to the public address for them. Use --node-local-dns=manage (ouroboros then forwards them from ` +
          "node-local-dns to CoreDNS), or external-dns mode",
        properties: { nodeLocalDnsConfigMap: where, mode: options.mode },
      });
      return "present";
  }
}

function reportCorefile(
  read: Read,
  options: StartupProbeOptions,
  notices: Notice[],
): Pick<StartupProbeReport, "reload" | "importDirective"> {
  const importMode = options.mode === "coredns-import";
  const fields = { namespace: options.coredns.namespace, configmap: options.coredns.configmap };
  const unknown = { reload: "unknown", importDirective: importMode ? "unknown" : "not-checked" } as const;
  switch (read.kind) {
    case "absent":
      return unknown;
    case "failed":
      notices.push({
        level: "debug",
        message: read.forbidden
          ? "cannot read the CoreDNS ConfigMap (RBAC); the reload plugin and the import line are not verified, check them by hand"
          : "CoreDNS ConfigMap probe failed; the reload plugin and the import line are not verified",
        properties: { ...fields, error: read.error },
      });
      return unknown;
    case "found":
      break;
  }
  const corefile = read.configMap.data[options.coredns.key];
  if (corefile === undefined) {
    notices.push({
      level: "debug",
      message: "the CoreDNS ConfigMap has no Corefile key; skipping the reload and import checks",
      properties: { ...fields, key: options.coredns.key },
    });
    return unknown;
  }
  const reload = hasReloadPlugin(corefile);
  if (!reload) {
    notices.push({
      level: "warn",
      message:
        "the CoreDNS Corefile has no 'reload' plugin: ouroboros's changes are stored but CoreDNS applies " +
        "them only after its pods restart. Add 'reload' to the .:53 server block, or restart CoreDNS after each change",
      properties: fields,
    });
  }
  if (!importMode) return { reload: reload ? "present" : "missing", importDirective: "not-checked" };
  const { key, namespace, configmap } = options.corednsImport;
  const covered = importCovers(corefile, key);
  if (!covered) {
    notices.push({
      level: "warn",
      message:
        `the .:53 block of the CoreDNS Corefile has no import line that loads ${JSON.stringify(key)}, ` +
        `so CoreDNS never reads the rewrite rules ouroboros writes to ConfigMap ${namespace}/${configmap}. Add ` +
        `"${importLineFor(key)}" to the .:53 block and mount that ConfigMap at ` +
        "/etc/coredns/custom as a directory (not with subPath)",
      properties: { ...fields, importConfigMap: `${namespace}/${configmap}`, key },
    });
  }
  return { reload: reload ? "present" : "missing", importDirective: covered ? "present" : "missing" };
}
