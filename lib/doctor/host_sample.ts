/**
 * Which hostnames the doctor resolves and calls: above `--host-limit`, an even sample of the
 * sorted list, so thousands of Ingresses still finish in bounded time. A wildcard entry is tried
 * as one concrete name under it (`doctor-probe.example.com`).
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
  /** Distinct names before sampling. */
  readonly total: number;
}

/**
 * Picks at most `limit` names, evenly spread over the sorted distinct names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleHosts } from "./host_sample.ts";
 *
 * const names = ["web.example.com", "*.apps.example.com", "shop.example.com", "web.example.com"];
 * assert.deepEqual(sampleHosts(names, 2), {
 *   hosts: ["doctor-probe.apps.example.com", "shop.example.com"],
 *   total: 3,
 * });
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
