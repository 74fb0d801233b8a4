/**
 * `ouroboros doctor`'s DNS wiring check for etc-hosts mode: does this node's hosts file hold the
 * ouroboros block the controller would write? It lists (never writes) the sources of the desired
 * set, reads the hosts file through an injected reader, and judges both with the pure
 * `etc_hosts_wiring_findings.ts`.
 *
 * Decisions:
 * - It only means something on a node (in the etc-hosts DaemonSet pod, or a debug pod with the
 *   node's root mounted): elsewhere the file is missing or unreadable, which is `could-not-check`
 *   saying how to run it on a node, never a problem.
 * - The desired set is the controller's in this mode: wildcards left out and named (with
 *   `--wildcards=rewrite`), or dropped silently (`--wildcards=skip`), as the controller does.
 * - The file is read whole, with the same NUL-filler repair the sink applies before editing.
 *
 * Effects: HTTP LIST through the injected client; one read of the hosts file.
 *
 * @module
 */

import type { DoctorCheck, Finding } from "../doctor_check.ts";
import type { BlockMarkers } from "../../controller/modes/markers.ts";
import { clusterReader, desiredHosts, type DnsWiringApi, type HostSourceSettings } from "./cluster_reader.ts";
import { DNS_WIRING_CHECK_ID } from "./dns_wiring_findings.ts";
import {
  hostsFileFindings,
  skippedWildcardsFinding,
  unreadableHostsFinding,
} from "./etc_hosts_wiring_findings.ts";

/** The controller's settings the check compares the node's file with. */
export interface EtcHostsWiringSettings extends HostSourceSettings {
  /** `--etc-hosts`: the node's hosts file as mounted here. */
  readonly path: string;
  /** `--proxy-ip`. */
  readonly proxyIp: string;
  /** `--marker-id`'s markers. */
  readonly markers: BlockMarkers;
}

/** Reads a whole file; rejects with `Deno.errors.NotFound` and the like. */
export type ReadHostsFile = (path: string, signal: AbortSignal) => Promise<Uint8Array>;

/** What the check runs against. */
export interface EtcHostsWiringContext {
  readonly api: DnsWiringApi;
  readonly settings: EtcHostsWiringSettings;
  /** @default `Deno.readFile` */
  readonly readHostsFile?: ReadHostsFile;
}

/** Options of {@linkcode etcHostsWiringCheck}. */
export interface EtcHostsWiringCheckOptions {
  /** Per request. @default 10_000 */
  readonly timeoutMs?: number;
}

const readWhole: ReadHostsFile = (path, signal) => Deno.readFile(path, { signal });

/**
 * The DNS wiring check of etc-hosts mode.
 *
 * @example
 * ```ts
 * import { DEFAULT_MARKERS } from "../../controller/modes/markers.ts";
 * import type { DnsWiringApi } from "./cluster_reader.ts";
 * import { etcHostsWiringCheck } from "./etc_hosts_wiring_check.ts";
 *
 * declare const api: DnsWiringApi;
 * declare const signal: AbortSignal;
 * const findings = await etcHostsWiringCheck().run({
 *   api,
 *   settings: {
 *     path: "/host/etc/hosts",
 *     proxyIp: "10.96.0.20",
 *     markers: DEFAULT_MARKERS,
 *     desired: { clusterDomain: "cluster.local", wildcards: "include" },
 *     gatewayApi: false,
 *   },
 * }, signal);
 * findings.every((finding) => finding.check === "dns-wiring"); // true
 * ```
 */
export function etcHostsWiringCheck(
  options: EtcHostsWiringCheckOptions = {},
): DoctorCheck<EtcHostsWiringContext> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    id: DNS_WIRING_CHECK_ID,
    title: "DNS wiring (etc-hosts)",
    async run(context, signal) {
      const { settings } = context;
      const subject = `hosts file ${settings.path}`;
      const read = clusterReader(context.api, { signal, timeoutMs });
      // As the controller runs a mode that cannot write wildcards: left out and named, or dropped.
      const desired = settings.desired.wildcards === undefined
        ? settings.desired
        : { ...settings.desired, wildcards: "exclude" as const };
      const readFile = context.readHostsFile ?? readWhole;
      const [hosts, bytes] = await Promise.all([
        desiredHosts(read, { ...settings, desired }),
        readFile(settings.path, signal).then(
          (value) => ({ value }),
          (error: unknown) => {
            signal.throwIfAborted();
            return { error };
          },
        ),
      ]);
      const findings: Finding[] = [];
      if ("finding" in hosts) findings.push(hosts.finding);
      if ("error" in bytes) findings.push(unreadableHostsFinding(subject, bytes.error));
      if ("finding" in hosts) return findings;
      if ("value" in bytes) {
        findings.push(...hostsFileFindings(bytes.value, {
          subject,
          hosts: hosts.hosts,
          proxyIp: settings.proxyIp,
          markers: settings.markers,
        }));
      }
      const wildcards = skippedWildcardsFinding("desired hostnames", hosts.skippedWildcards);
      if (wildcards !== undefined) findings.push(wildcards);
      return findings;
    },
  };
}
