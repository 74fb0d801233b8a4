/**
 * etc-hosts mode as the controller runs it: the ouroboros block of a node's hosts file. It keeps
 * access to the hosts file only (read only with `context.dryRun`).
 *
 * Pure: it builds the sink, which touches the file only when the controller calls it.
 *
 * @module
 */

import type { BlockMarkers } from "../markers.ts";
import type { Mode, ModeContext } from "../sink.ts";
import { EtcHostsSink } from "./etc_hosts_sink.ts";
import { HOSTS_PROBLEMS } from "./hosts_problems.ts";

/** What etc-hosts mode is built from (`--etc-hosts`, `--proxy-ip`, `--marker-id`). */
export interface EtcHostsModeSettings {
  readonly path: string;
  readonly proxyIp: string;
  readonly markers: BlockMarkers;
}

/** etc-hosts mode. */
export function etcHostsMode(settings: EtcHostsModeSettings, context: ModeContext): Mode {
  const { path, proxyIp, markers } = settings;
  return {
    sink: new EtcHostsSink({ path, proxyIp, markers, dryRun: context.dryRun ?? false }),
    refusalProblems: HOSTS_PROBLEMS,
    hostsFile: path,
    details: { hostsFile: path, proxyIp, markerId: markers.id },
  };
}
