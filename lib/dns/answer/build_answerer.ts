/**
 * The answer planning of `ouroboros dns`: from the cluster state it watches (client pods, par
 * Records, the hairpinned hostnames, the proxies' addresses) to the {@linkcode LocalAnswerer}
 * the server asks once per question. Everything is indexed when the state changes, so a
 * question costs two `Map` lookups and one or two `Set` lookups.
 *
 * Per question, from a client address that is a known pod (any other source is forwarded):
 * 1. par `manager` entries of the pod's namespace whose labels the pod carries and whose
 *    hostname is the name: A with their IPv4 addresses, AAAA with their IPv6 ones, any other
 *    type NOERROR without data (source `records`). Several matching entries: their addresses
 *    together.
 * 2. par `proxy` entries selecting the pod, unless it is one of par's proxy pods (label
 *    `par.dev/proxy: "true"` in the par namespace; their own lookups resolve normally): every A
 *    and AAAA is answered with the par proxy Service's addresses of that family (source
 *    `par-proxy`), other types are forwarded.
 * 3. A hairpinned hostname, or a name exactly one label under a hairpinned wildcard's domain
 *    (`shop.example.com` for `*.example.com`; TLS wildcard semantics, `hostnames/wildcard.ts`):
 *    A/AAAA with the hairpin proxy Service's addresses of that family, other types NOERROR
 *    without data (source `hairpin`). The wildcard costs one more `Set` probe (the name's parent
 *    domain), and only when the exact probe missed.
 * 4. Everything else is forwarded.
 *
 * Decided:
 * - With no par proxy address known (its Service missing or headless), step 2 does not apply and
 *   the question goes on to step 3: forwarding a proxied client's lookup would hand it the real
 *   address, and for a hairpinned name that is the very address that does not work from inside.
 * - With no hairpin proxy address known, step 3 does not apply either (forward): an empty answer
 *   for every family would make the name vanish, where the upstream's answer at least works
 *   from outside the cluster.
 * - A family the proxy has no address of gets NOERROR without data, never the upstream's
 *   answer, which would route around the proxy.
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
  /** The pods that are clients, already narrowed to `--client-selector`. */
  readonly pods: readonly Pod[];
  readonly records: readonly Records[];
  /** The hostnames the hairpin answers cover, accepted and lower-case; `*.<domain>` for a wildcard. */
  readonly hairpinHosts: readonly string[];
  /** The hairpin proxy Service's ClusterIPs, both families. */
  readonly proxyAddresses: readonly string[];
  /** The ClusterIPs of the Service labelled `par.dev/proxy: "true"` in the par namespace. */
  readonly parProxyAddresses: readonly string[];
  /** Where par's proxy runs; its pods there are exempt from `proxy` entries. */
  readonly parNamespace: string;
  /** TTL of every local answer, in seconds. */
  readonly ttl: number;
}

/** The answerer and the Records problems found while building it (to be logged by the caller). */
export interface BuiltAnswerer {
  readonly answer: LocalAnswerer;
  readonly problems: readonly string[];
}

/** Precomputed answers for one name and source: one per question kind. */
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

/** The plan of every client address, sharing one plan among pods with the same matches. */
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

/**
 * Builds the answerer for one state of the cluster. Call again when anything in `inputs`
 * changes; the returned function keeps no reference to `inputs`' arrays.
 *
 * @example
 * ```ts
 * import { buildAnswerer } from "./build_answerer.ts";
 *
 * const { answer, problems } = buildAnswerer({
 *   pods: [],
 *   records: [],
 *   hairpinHosts: ["shop.example.com"],
 *   proxyAddresses: ["10.96.0.10", "fd00::10"],
 *   parProxyAddresses: [],
 *   parNamespace: "par",
 *   ttl: 30,
 * });
 * answer({ name: "shop.example.com", type: "A" }, "10.244.0.9"); // { kind: "forward" }: not a known pod
 * ```
 */
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
