/**
 * The reads and calls of check 5 with `--routes`: the route table's ConfigMap (one GET), and a TLS
 * handshake with each backend of the table, called directly after its PROXY header, for each host
 * the table routes (SNI: the host). `route_findings.ts` judges what they saw.
 *
 * Effects: one GET through the injected client; TCP and TLS connections.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import { CONFIG_MAP } from "../../resources/config_map.ts";
import type { RouteTable } from "../../routes/route_table.ts";
import { errorMessage } from "../../util/error_message.ts";
import { probeAll } from "../probes/probe_all.ts";
import { probeProxyHeader } from "../probes/proxy_header.ts";
import { type TlsHandshaker, tlsProbe, type TlsProbeResult } from "../probes/tls_probe.ts";
import type { RouteTableRead, RouteTableRef } from "./route_findings.ts";

/** Reads the route table's ConfigMap; never rejects for a cluster failure (only when `signal` aborts). */
export async function readRouteTable(
  api: Pick<KubeClient, "get">,
  options: { readonly ref: RouteTableRef; readonly signal: AbortSignal; readonly timeoutMs: number },
): Promise<RouteTableRead> {
  const { ref, signal, timeoutMs } = options;
  try {
    const configMap = await api.get(CONFIG_MAP, { namespace: ref.namespace, name: ref.configmap }, {
      signal,
      timeoutMs,
    });
    return { kind: "found", data: configMap.data };
  } catch (error) {
    signal.throwIfAborted();
    if (isNotFound(error)) return { kind: "absent" };
    if (isForbidden(error)) return { kind: "forbidden" };
    return { kind: "failed", message: errorMessage(error) };
  }
}

/** How {@linkcode probeBackends} calls. */
export interface BackendProbeOptions {
  readonly table: RouteTable;
  readonly signal: AbortSignal;
  /** Each handshake's own time. */
  readonly timeoutMs: number;
  /** Handshakes at once. @default 16 */
  readonly concurrency?: number;
  /** @default `node:tls` without chain verification */
  readonly handshake?: TlsHandshaker;
}

/**
 * For each of `hosts`, what every backend of the table presents for it (SNI: the host), called
 * directly at its address and https port after an address-free PROXY header of its version: by
 * host, then by backend name.
 */
export async function probeBackends(
  hosts: readonly string[],
  options: BackendProbeOptions,
): Promise<ReadonlyMap<string, ReadonlyMap<string, TlsProbeResult>>> {
  const backends = [...options.table.backends];
  const calls = hosts.flatMap((host) => backends.map(([name, backend]) => ({ host, name, backend })));
  const results = await probeAll(calls, {
    signal: options.signal,
    concurrency: options.concurrency ?? 16,
    probe: ({ host, backend }) =>
      tlsProbe({ hostname: backend.address, port: backend.httpsPort }, {
        servername: host,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        preface: probeProxyHeader(backend.proxyProtocol),
        ...(options.handshake === undefined ? {} : { handshake: options.handshake }),
      }),
  });
  const byHost = new Map<string, Map<string, TlsProbeResult>>(hosts.map((host) => [host, new Map()]));
  calls.forEach(({ host, name }, index) =>
    byHost.get(host)?.set(name, results[index] ?? { kind: "aborted" })
  );
  return byHost;
}
