/**
 * Which hostnames the doctor resolves and calls: the operator's `--host` names, else the
 * hairpinned names of the desired set; above `--host-limit` an even sample across the sorted
 * list, so a cluster with thousands of Ingresses still finishes in bounded time and the report
 * can say "20 of 3000". A wildcard entry (`*.example.com`) is tried as one concrete name under it
 * (`doctor-probe.example.com`), which is what a client asking for any name there gets.
 *
 * Pure.
 *
 * @module
 */

/** The label a wildcard entry's probe name starts with. */
export const WILDCARD_PROBE_LABEL = "doctor-probe";

/** The chosen names, and how many there were to choose from. */
export interface HostSample {
  readonly hosts: readonly string[];
  /** How many distinct names there were before sampling. */
  readonly total: number;
}

/**
 * Picks at most `limit` names, evenly spread over the sorted distinct names.
 *
 * @example
 * ```ts
 * import { sampleHosts } from "./host_sample.ts";
 *
 * sampleHosts(["b.example.com", "*.apps.example.com", "a.example.com", "b.example.com"], 2);
 * // { hosts: ["a.example.com", "doctor-probe.apps.example.com"], total: 3 }
 * ```
 */
export function sampleHosts(names: readonly string[], limit: number): HostSample {
  const distinct = [
    ...new Set(
      names.map((name) => name.trim().toLowerCase().replace(/\.$/, "")).filter((name) => name !== "")
        .map((name) => name.startsWith("*.") ? `${WILDCARD_PROBE_LABEL}.${name.slice(2)}` : name),
    ),
  ].sort();
  const total = distinct.length;
  if (total <= limit) return { hosts: distinct, total };
  const hosts: string[] = [];
  for (let index = 0; index < limit; index++) hosts.push(distinct[Math.floor((index * total) / limit)]!);
  return { hosts, total };
}
