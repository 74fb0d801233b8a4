/**
 * Which par Records entries take effect. Answers and the workload opt-in share them, so a
 * Deployment is patched exactly when its pods would get answers.
 * - Names under the cluster domain are allowed: an entry only answers the workloads it selects.
 * - An entry applies only in its Records' own namespace; par's `namespaces` list would let a
 *   Records writer redirect another namespace's DNS, so other names there are reported.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { checkHostname } from "../../hostnames/hostname.ts";
import { formatLoggedValue } from "../../hostnames/rejection_log.ts";
import { objectKey } from "../../resources/kube_object.ts";
import type { Records, RecordsEntry } from "../../resources/records.ts";
import { formatIp, parseIp } from "../../util/ip.ts";

/** How an accepted entry answers. */
export type ForwardType = "manager" | "proxy";

/** The forward types par defines, in the order reports list them. */
export const FORWARD_TYPES: readonly ForwardType[] = ["manager", "proxy"];

/** One entry that takes effect. */
export interface AcceptedEntry {
  /** `namespace/name` of its Records object. */
  readonly records: string;
  /** Its index in `spec.a`. */
  readonly index: number;
  readonly namespace: string;
  /** `{}` selects every pod of the namespace. */
  readonly labels: Readonly<Record<string, string>>;
  readonly forwardType: ForwardType;
  /** Lower-case, no trailing dot; `""` for `proxy` entries, whose name and addresses go unused. */
  readonly hostname: string;
  readonly ipv4: readonly string[];
  readonly ipv6: readonly string[];
}

/** The accepted entries of every Records object, and what was wrong with the others. */
export interface AcceptedEntries {
  readonly entries: readonly AcceptedEntry[];
  /** One line each, naming the object and entry (`Records shop/egress spec.a[1]`). */
  readonly problems: readonly string[];
}

/** Whether every label of `selector` is on `labels` with the same value. */
export function labelsMatch(
  selector: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const key in selector) {
    if (!Object.hasOwn(selector, key)) continue;
    if (!Object.hasOwn(labels, key) || labels[key] !== selector[key]) return false;
  }
  return true;
}

function scopeProblem(entry: RecordsEntry, namespace: string): { keep: boolean; problem?: string } {
  const listed = entry.namespaces;
  if (listed === undefined || listed.length === 0) return { keep: true };
  const others = [...new Set(listed.filter((name) => name !== namespace))];
  const rule = `an entry applies only to its Records' own namespace (${namespace}); ` +
    "for another namespace, create a Records object there";
  if (!listed.includes(namespace)) {
    return {
      keep: false,
      problem: `namespaces lists ${others.map((name) => formatLoggedValue(name)).join(", ")} but not ` +
        `${namespace}: ${rule}; the entry is ignored`,
    };
  }
  if (others.length === 0) return { keep: true };
  return {
    keep: true,
    problem: `namespaces also lists ${others.map((name) => formatLoggedValue(name)).join(", ")}, ` +
      `which is not honoured: ${rule}`,
  };
}

function addresses(entry: RecordsEntry, say: (text: string) => void): { ipv4: string[]; ipv6: string[] } {
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  entry.ipAddresses.forEach((text, index) => {
    const parsed = parseIp(text.trim());
    if (parsed === undefined) {
      say(
        `ip-addresses[${index}] ${formatLoggedValue(text)} is not an IP address ` +
          "(accepted: IPv4 like 192.0.2.10 or IPv6 like 2001:db8::10); the address is left out",
      );
      return;
    }
    const canonical = formatIp(parsed);
    const list = parsed.family === 4 ? ipv4 : ipv6;
    if (!list.includes(canonical)) list.push(canonical);
  });
  return { ipv4, ipv6 };
}

function hostnameProblem(raw: string): { host: string } | { problem: string } {
  if (raw.trim() === "") return { problem: "hostname is missing; the entry is ignored" };
  const check = checkHostname(raw, { clusterDomain: "" });
  if (check.kind === "accepted") return { host: check.host };
  const why = check.kind === "rejected" ? check.text : "is a wildcard";
  return {
    problem: `hostname ${formatLoggedValue(raw)} ${why} (accepted: an exact DNS name of two labels or ` +
      "more, like api.example.com); the entry is ignored",
  };
}

function acceptEntry(
  entry: RecordsEntry,
  records: Records,
): { accepted?: AcceptedEntry; problems: string[] } {
  const key = objectKey(records.metadata);
  const problems: string[] = [];
  const say = (text: string) => problems.push(`Records ${key} spec.a[${entry.index}]: ${text}`);
  const forwardType = FORWARD_TYPES.find((known) => known === entry.forwardType.trim().toLowerCase());
  if (forwardType === undefined) {
    say(
      entry.forwardType === ""
        ? `forward-type is missing (accepted: ${FORWARD_TYPES.join(", ")}); the entry is ignored`
        : `forward-type ${formatLoggedValue(entry.forwardType)} is not known (accepted: ` +
          `${FORWARD_TYPES.join(", ")}); the entry is ignored`,
    );
    return { problems };
  }
  const namespace = records.metadata.namespace;
  const scope = scopeProblem(entry, namespace);
  if (scope.problem !== undefined) say(scope.problem);
  if (!scope.keep) return { problems };
  const base = { records: key, index: entry.index, namespace, labels: entry.labels, forwardType };
  if (forwardType === "proxy") return { accepted: { ...base, hostname: "", ipv4: [], ipv6: [] }, problems };

  const hostname = hostnameProblem(entry.hostname);
  if ("problem" in hostname) {
    say(hostname.problem);
    return { problems };
  }
  const { ipv4, ipv6 } = addresses(entry, say);
  if (ipv4.length === 0 && ipv6.length === 0) {
    say(
      entry.ipAddresses.length === 0
        ? "ip-addresses is empty; a manager entry needs at least one address; the entry is ignored"
        : "no ip-address is valid; the entry is ignored",
    );
    return { problems };
  }
  return { accepted: { ...base, hostname: hostname.host, ipv4, ipv6 }, problems };
}

/** The entries that take effect, in order, and one problem line per entry or part left out. */
export function acceptRecordsEntries(records: readonly Records[]): AcceptedEntries {
  const entries: AcceptedEntry[] = [];
  const problems: string[] = [];
  for (const object of records) {
    const key = objectKey(object.metadata);
    for (const problem of object.problems) problems.push(`Records ${key}: ${problem}`);
    for (const entry of object.spec.a) {
      const result = acceptEntry(entry, object);
      problems.push(...result.problems);
      if (result.accepted !== undefined) entries.push(result.accepted);
    }
  }
  return { entries, problems };
}
