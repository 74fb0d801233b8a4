/**
 * Every reason etc-hosts mode refuses to write, as one closed set of codes, so the controller can
 * log, count and surface each reason without reading prose.
 *
 * A refusal means "the hosts file keeps its current bytes". Retrying without a change by a person
 * will not help; the message says what to change.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { MARKER_PAIR_PROBLEMS } from "../markers.ts";

/** Damage to our own marker pair: someone edited, copied or moved it by hand. */
export const HOSTS_MARKER_PROBLEMS = [
  ...MARKER_PAIR_PROBLEMS,
  "altered-marker",
  "foreign-content-in-block",
] as const;

/** A marker problem code. */
export type HostsMarkerProblem = typeof HOSTS_MARKER_PROBLEMS[number];

/** Every refusal reason of etc-hosts mode. */
export type HostsProblem =
  | HostsMarkerProblem
  /** `--proxy-ip` is empty or not an IPv4/IPv6 address. */
  | "invalid-ip"
  /** A hostname handed to the sink holds a character outside `[a-z0-9.-]` (an upstream bug). */
  | "invalid-host"
  /** The path is empty, its last part is not `hosts`, or it has a `..` part. */
  | "unsafe-path"
  /** The path is a symbolic link. */
  | "symlink"
  /** The path is a directory, a device, a FIFO or a socket. */
  | "not-regular-file"
  /** Nothing exists at the path (the DaemonSet's hostPath should have guaranteed it). */
  | "missing-file"
  /** The process may not open the file for writing (permissions, read-only mount). */
  | "not-writable"
  /** A dry run may not open the file for reading. */
  | "not-readable"
  /** The file is larger than any hosts file this tool expects to edit. */
  | "file-too-large";

const HOSTS_PROBLEM_SET: Readonly<Record<HostsProblem, true>> = {
  ...Object.fromEntries(HOSTS_MARKER_PROBLEMS.map((problem) => [problem, true])) as Record<
    HostsMarkerProblem,
    true
  >,
  "invalid-ip": true,
  "invalid-host": true,
  "unsafe-path": true,
  symlink: true,
  "not-regular-file": true,
  "missing-file": true,
  "not-writable": true,
  "not-readable": true,
  "file-too-large": true,
};

/**
 * Every refusal code of etc-hosts mode (a record keyed by {@linkcode HostsProblem}, so the
 * compiler keeps it complete), for the refusal counter's zero series.
 */
export const HOSTS_PROBLEMS: readonly HostsProblem[] = Object.keys(HOSTS_PROBLEM_SET) as HostsProblem[];

/** The refusal value shared by the editor, the file writer and the sink. */
export interface HostsRefusal {
  /** Discriminant. */
  readonly kind: "refused";
  /** Machine-readable reason. */
  readonly problem: HostsProblem;
  /** What is wrong and how to fix it. */
  readonly message: string;
  /** The editor refuses the whole edit: nothing is written. */
  readonly scope: "nothing-written";
}

/**
 * Builds a refusal.
 *
 * @example
 * ```ts
 * import { hostsRefusal } from "./hosts_problems.ts";
 *
 * hostsRefusal("invalid-ip", `--proxy-ip "10.0.0" is not an IPv4 or IPv6 address`);
 * // { kind: "refused", problem: "invalid-ip", message: "--proxy-ip …", scope: "nothing-written" }
 * ```
 */
export function hostsRefusal(problem: HostsProblem, message: string): HostsRefusal {
  return { kind: "refused", problem, message, scope: "nothing-written" };
}

/**
 * Whether a refusal is damage to our markers (counted apart: a person has to fix the file).
 *
 * @example
 * ```ts
 * import { isHostsMarkerProblem } from "./hosts_problems.ts";
 *
 * isHostsMarkerProblem("end-before-begin"); // true
 * isHostsMarkerProblem("symlink"); // false
 * ```
 */
export function isHostsMarkerProblem(problem: HostsProblem): problem is HostsMarkerProblem {
  return (HOSTS_MARKER_PROBLEMS as readonly string[]).includes(problem);
}
