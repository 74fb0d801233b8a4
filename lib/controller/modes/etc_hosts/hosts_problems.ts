/**
 * Every reason etc-hosts mode refuses to write, as one closed set of codes for logs and metrics.
 * A refusal keeps the file's bytes; only a person's change helps, and the message says which.
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

export type HostsMarkerProblem = typeof HOSTS_MARKER_PROBLEMS[number];

/** Every refusal reason of etc-hosts mode. */
export type HostsProblem =
  | HostsMarkerProblem
  | "invalid-ip"
  /** A hostname outside `[a-z0-9.-]` reached the sink (an upstream bug). */
  | "invalid-host"
  | "unsafe-path"
  | "symlink"
  | "not-regular-file"
  | "missing-file"
  | "not-writable"
  /** A dry run may not open the file for reading. */
  | "not-readable"
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

/** Every refusal code, for the refusal counter's zero series (the record keeps it complete). */
export const HOSTS_PROBLEMS: readonly HostsProblem[] = Object.keys(HOSTS_PROBLEM_SET) as HostsProblem[];

/** The refusal value shared by the editor, the file writer and the sink. */
export interface HostsRefusal {
  readonly kind: "refused";
  readonly problem: HostsProblem;
  /** What is wrong and how to fix it. */
  readonly message: string;
  readonly scope: "nothing-written";
}

/** Builds a refusal. */
export function hostsRefusal(problem: HostsProblem, message: string): HostsRefusal {
  return { kind: "refused", problem, message, scope: "nothing-written" };
}

/** Whether a refusal is damage to our markers (counted apart: a person has to fix the file). */
export function isHostsMarkerProblem(problem: HostsProblem): problem is HostsMarkerProblem {
  return (HOSTS_MARKER_PROBLEMS as readonly string[]).includes(problem);
}
