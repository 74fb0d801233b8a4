/**
 * From the watched cluster state to the {@linkcode LocalAnswerer}, indexed once per change so a
 * question costs a few `Map`/`Set` lookups. Only known pods get local answers, in this order:
 * par `manager` entries, par `proxy` entries (not for par's proxy pods), hairpinned hostnames.
 * - With no par proxy address, a proxied client falls through to the hairpin (forwarding would
 *   hand it the address that does not work from inside); with no hairpin address, forward.
 * - A family the proxy has no address of gets NOERROR without data, never a route around it.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Pod } from "../../resources/pod.ts";
import type { Records } from "../../resources/records.ts";
import { formatIp, parseIp } from "../../util/ip.ts";
import { HostnameMatcher } from "../../hostnames/wildcard.ts";
import type { LocalAnswerer, LocalDecision, LocalSource } from "../local_answer.ts";
import { indexClients } from "./client_index.ts";
import { type AcceptedEntry, acceptRecordsEntries, labelsMatch } from "./records_entries.ts";

/** The label par puts on its forward proxy's pods, Deployment and Service. */
export const PAR_PROXY_LABEL = "par.dev/proxy";

/** Everything the answers depend on. */
export interface AnswerInputs {
  /** Already narrowed to `--client-selector`. */
  readonly pods: readonly Pod[];
  readonly records: readonly Records[];
  /** Accepted and lower-case; `*.<domain>` for a wildcard. */
  readonly hairpinHosts: readonly string[];
  /** The hairpin proxy Service's ClusterIPs, both families. */
  readonly proxyAddresses: readonly string[];
  readonly parProxyAddresses: readonly string[];
  readonly parNamespace: string;
  /** In seconds. */
  readonly ttl: number;
}

/** The answerer and the Records problems found while building it, for the caller to log. */
export interface BuiltAnswerer {
  readonly answer: LocalAnswerer;
  readonly problems: readonly string[];
}

/** Precomputed answers for one name and source. */
interface Answers {
  readonly a: LocalDecision;
  readonly aaaa: LocalDecision;
  readonly other: LocalDecision;
}

/** What one client gets, shared by every client with the same matching entries. */
interface ClientPlan {
  readonly names: ReadonlyMap<string, Answers>;
  readonly proxied: boolean;
}

const FORWARD: LocalDecision = Object.freeze({ kind: "forward" });

function split(addresses: readonly string[]): { v4: string[]; v6: string[] } {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const text of addresses) {
    const parsed = parseIp(text);
    if (parsed === undefined) continue;
    const list = parsed.family === 4 ? v4 : v6;
    const canonical = formatIp(parsed);
    if (!list.includes(canonical)) list.push(canonical);
  }
  return { v4, v6 };
}

function local(source: LocalSource, ttl: number, addresses: readonly string[]): LocalDecision {
  return Object.freeze({ kind: "local", source, ttl, addresses: Object.freeze([...addresses]) });
}

function answers(source: LocalSource, ttl: number, v4: readonly string[], v6: readonly string[]): Answers {
  return { a: local(source, ttl, v4), aaaa: local(source, ttl, v6), other: local(source, ttl, []) };
}

function recordAnswers(entries: readonly AcceptedEntry[], ttl: number): Map<string, Answers> {
  const byName = new Map<string, { v4: string[]; v6: string[] }>();
  for (const entry of entries) {
    if (entry.forwardType !== "manager") continue;
    const found = byName.get(entry.hostname) ?? { v4: [], v6: [] };
    for (const ip of entry.ipv4) if (!found.v4.includes(ip)) found.v4.push(ip);
    for (const ip of entry.ipv6) if (!found.v6.includes(ip)) found.v6.push(ip);
    byName.set(entry.hostname, found);
  }
  return new Map([...byName].map(([name, { v4, v6 }]) => [name, answers("records", ttl, v4, v6)]));
}

/** The plan of every client address; pods with the same matches share one. */
function planClients(inputs: AnswerInputs, entries: readonly AcceptedEntry[]): Map<string, ClientPlan> {
  const byNamespace = new Map<string, AcceptedEntry[]>();
  for (const entry of entries) {
    const list = byNamespace.get(entry.namespace) ?? [];
    list.push(entry);
    byNamespace.set(entry.namespace, list);
  }
  const shared = new Map<string, ClientPlan>();
  const plans = new Map<string, ClientPlan>();
  for (const [address, pod] of indexClients(inputs.pods)) {
    const { namespace, labels } = pod.metadata;
    const matching = (byNamespace.get(namespace) ?? []).filter((entry) => labelsMatch(entry.labels, labels));
    const parProxyPod = namespace === inputs.parNamespace && labels[PAR_PROXY_LABEL] === "true";
    const proxied = !parProxyPod && matching.some((entry) => entry.forwardType === "proxy");
    const signature = `${proxied}|${matching.map((entry) => `${entry.records}#${entry.index}`).join("|")}`;
    let plan = shared.get(signature);
    if (plan === undefined) {
      plan = { names: recordAnswers(matching, inputs.ttl), proxied };
      shared.set(signature, plan);
    }
    plans.set(address, plan);
  }
  return plans;
}

function normaliseName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** Builds the answerer for one state of the cluster; it keeps no reference to `inputs`' arrays. */
export function buildAnswerer(inputs: AnswerInputs): BuiltAnswerer {
  const { entries, problems } = acceptRecordsEntries(inputs.records);
  const clients = planClients(inputs, entries);
  const ttl = inputs.ttl;
  const proxy = split(inputs.proxyAddresses);
  const hairpin = proxy.v4.length + proxy.v6.length === 0
    ? undefined
    : answers("hairpin", ttl, proxy.v4, proxy.v6);
  const hairpinHosts = new HostnameMatcher(inputs.hairpinHosts.map(normaliseName));
  const par = split(inputs.parProxyAddresses);
  const parProxy = par.v4.length + par.v6.length === 0
    ? undefined
    : answers("par-proxy", ttl, par.v4, par.v6);

  const pick = (found: Answers, type: string): LocalDecision =>
    type === "A" ? found.a : type === "AAAA" ? found.aaaa : found.other;

  const answer: LocalAnswerer = (question, client) => {
    const plan = clients.get(client);
    if (plan === undefined) return FORWARD;
    const name = normaliseName(question.name);
    const type = question.type;
    const record = plan.names.get(name);
    if (record !== undefined) return pick(record, type);
    if (plan.proxied && parProxy !== undefined) {
      return type === "A" || type === "AAAA" ? pick(parProxy, type) : FORWARD;
    }
    if (hairpin !== undefined && hairpinHosts.match(name) !== undefined) return pick(hairpin, type);
    return FORWARD;
  };
  return { answer, problems };
}
