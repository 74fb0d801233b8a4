/**
 * Start-up checks of the CoreDNS modes' prerequisites. Each failure they look for is silent by
 * nature (DNS simply keeps answering with the public address), so each WARNs with the fix. They
 * are best effort: none fails start-up, none throws, and together they take at most one deadline
 * (5 s by default). What they find is returned: a report for tests and a list of notices (WARN,
 * DEBUG) that the controller logs; the probes never log.
 *
 * - node-local-dns: if its ConfigMap (`kube-system/node-local-dns` by default,
 *   `OUROBOROS_NODE_LOCAL_DNS_NAMESPACE`/`_CONFIGMAP`) exists, pods that query the node-local
 *   cache get answers for outside names from upstream without passing CoreDNS's rewrite rules:
 *   WARN with the ways out. Absent (404): nothing to say, silent. With `--node-local-dns=manage`
 *   the controller edits that Corefile itself: present is DEBUG, absent is the WARN (nothing to
 *   manage: the variables name another ConfigMap, or node-local-dns is not installed).
 * - reload: reads the CoreDNS ConfigMap (the `--coredns-*` coordinates, also in coredns-import
 *   mode). Without the `reload` plugin, CoreDNS applies our changes only after its pods restart:
 *   WARN. A ConfigMap without the key: DEBUG, nothing to check. A missing ConfigMap: silent (in
 *   coredns mode the sink reports it, in coredns-import mode CoreDNS may be configured
 *   elsewhere).
 * - import (coredns-import mode only, from the same read): the root server block must `import` a
 *   pattern matching our key, or CoreDNS never reads the rules we write: WARN with the line to add
 *   and the mount it needs.
 *
 * A 403 means RBAC does not let ouroboros read that ConfigMap (the chart grants `get` on both by
 * name in both CoreDNS modes: the node-local-dns one, and the CoreDNS one, which coredns-import mode
 * may only read; so this is hand-made RBAC); that is not a problem of the cluster, so it is one
 * DEBUG line saying what could not be verified. Any other failure (timeout, 5xx) is DEBUG as well.
 *
 * Effects: HTTP through the injected client.
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
  /** Which mode runs: coredns-import mode also checks the import line. */
  readonly mode: "coredns" | "coredns-import";
  /** The CoreDNS Corefile (read in both modes). */
  readonly coredns: CorefileLocation;
  /** The import ConfigMap and our key; only its key is used (coredns-import mode). */
  readonly corednsImport: CorefileLocation;
  /** The node-local-dns ConfigMap, and `--node-local-dns` (absent: `warn`). */
  readonly nodeLocalDns: {
    readonly namespace: string;
    readonly configmap: string;
    readonly mode?: "warn" | "manage";
  };
  /** One deadline for all probes. @default 5_000 */
  readonly timeoutMs?: number;
  /** Ends the probes early and quietly. */
  readonly signal: AbortSignal;
}

/** What a probe found. `unknown`: the read failed (403, timeout, …) or was not possible. */
export interface StartupProbeReport {
  /** Whether the node-local-dns ConfigMap exists. */
  readonly nodeLocalDns: "present" | "absent" | "unknown";
  /** Whether the Corefile enables the reload plugin. */
  readonly reload: "present" | "missing" | "unknown";
  /** `not-checked` in coredns mode. */
  readonly importDirective: "present" | "missing" | "unknown" | "not-checked";
}

/** What the probes found, and what the controller is to log about it. */
export interface StartupProbeResult {
  /** What each probe found. */
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

/**
 * Runs the probes concurrently and returns what they find. Never rejects; an aborted `signal`
 * ends them early and quietly (no notices).
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../../../kube/client.ts";
 * import { runStartupProbes } from "./startup_probes.ts";
 *
 * declare const client: KubeClient;
 * declare const signal: AbortSignal;
 * const { report, notices } = await runStartupProbes(client, {
 *   mode: "coredns",
 *   coredns: { namespace: "kube-system", configmap: "coredns", key: "Corefile" },
 *   corednsImport: { namespace: "kube-system", configmap: "coredns-custom", key: "ouroboros.override" },
 *   nodeLocalDns: { namespace: "kube-system", configmap: "node-local-dns" },
 *   signal,
 * });
 * report.reload; // "present", "missing", or "unknown" when the Corefile could not be read
 * ```
 */
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
