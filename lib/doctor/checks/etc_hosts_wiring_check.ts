/**
 * The DNS wiring check of etc-hosts mode: does this node's hosts file hold the block the
 * controller would write? Only meaningful on a node; elsewhere an unreadable file is
 * `could-not-check` saying how to run it on one, never a problem.
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
  readonly proxyIp: string;
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

/** The DNS wiring check of etc-hosts mode. */
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
      // As the controller does in a mode that cannot write wildcards.
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
