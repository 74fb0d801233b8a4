/**
 * The soak's script: what happens next, drawn from a seed, and the model of what the cluster
 * should hold after it. The same seed gives the same steps, so a violation replays.
 *
 * Decisions a reader could not guess:
 * - The model knows each hostname's fate when it makes it (accepted as written, accepted in a
 *   normalised spelling, or refused), so the expected Corefile block does not come from
 *   ouroboros's own hostname check.
 * - Hand edits of the Corefile block stay below the controller's revert guard (three reverts in
 *   30 minutes start a fight that spaces rewrites out by design): at most two per 30 minutes.
 * - Faults with a duration end at the latest when the churn window ends (the driver heals
 *   everything before the quiet period).
 *
 * Pure: a seeded generator in, steps and expectations out.
 *
 * @module
 */

import { prng } from "../support/random.ts";

/** The two replicated workloads whose leader a fault can target. */
export type Pair = "controller" | "kuberture";

/** One endpoint of the API server's EndpointSlice. */
export interface SliceEndpoint {
  readonly ip: string;
  readonly ready: boolean;
}

/** A hostname as written into an object, and what the controller must make of it. */
export interface PlannedHost {
  readonly raw: string;
  /** The name in the Corefile block; `undefined` when it must be refused. */
  readonly expected: string | undefined;
}

/** Churn: a change an operator or a workload makes. */
export type ChurnStep =
  | { readonly kind: "ingress-put"; readonly key: string; readonly hosts: readonly PlannedHost[] }
  | { readonly kind: "ingress-delete"; readonly key: string }
  | { readonly kind: "route-put"; readonly key: string; readonly hosts: readonly PlannedHost[] }
  | { readonly kind: "route-delete"; readonly key: string }
  | { readonly kind: "slice-set"; readonly endpoints: readonly SliceEndpoint[] }
  | { readonly kind: "records-set"; readonly hostname: string; readonly ips: readonly string[] }
  /** A call through the proxy from this loopback address. */
  | { readonly kind: "hairpin-call"; readonly source: string };

/** A fault: something in the cluster goes wrong. */
export type FaultStep =
  | { readonly kind: "apiserver-restart"; readonly downMs: number }
  | { readonly kind: "compaction" }
  | { readonly kind: "watches-cut" }
  | { readonly kind: "watches-stall" }
  | { readonly kind: "error-burst"; readonly code: 500 | 503 | 429; readonly count: number }
  | { readonly kind: "slow-answers"; readonly ms: number; readonly count: number }
  | { readonly kind: "leader-stop"; readonly pair: Pair; readonly ms: number }
  | { readonly kind: "leader-kill"; readonly pair: Pair }
  | { readonly kind: "leader-partition"; readonly pair: Pair; readonly ms: number }
  /** A person edits the Corefile: inside our block (a revert fight) or outside it (kept). */
  | { readonly kind: "corefile-hand-edit"; readonly where: "block" | "outside"; readonly mark: number }
  | { readonly kind: "kuberture-config-invalid"; readonly ms: number };

/** One step and the pause before the next. */
export type SoakStep = (ChurnStep | FaultStep) & { readonly afterMs: number };

/** Whether a step is a fault (else it is churn). */
export function isFault(step: ChurnStep | FaultStep): step is FaultStep {
  return (FAULT_KINDS as readonly string[]).includes(step.kind);
}

/** Every fault kind, so a test can check a long plan reaches each. */
export const FAULT_KINDS: readonly FaultStep["kind"][] = [
  "apiserver-restart",
  "compaction",
  "watches-cut",
  "watches-stall",
  "error-burst",
  "slow-answers",
  "leader-stop",
  "leader-kill",
  "leader-partition",
  "corefile-hand-edit",
  "kuberture-config-invalid",
];

/** Every churn kind. */
export const CHURN_KINDS: readonly ChurnStep["kind"][] = [
  "ingress-put",
  "ingress-delete",
  "route-put",
  "route-delete",
  "slice-set",
  "records-set",
  "hairpin-call",
];

/** The Records hostnames the soak moves its one entry between. */
export const RECORDS_HOSTNAMES: readonly string[] = [
  "partner.soak.example.org",
  "billing.soak.example.org",
  "ledger.soak.example.org",
];

/** The addresses hairpinned calls come from (loopback has a whole /8). */
export const HAIRPIN_SOURCES: readonly string[] = ["127.0.0.21", "127.0.0.22", "127.0.0.23"];

const HAND_EDITS_PER_WINDOW = 2;
const HAND_EDIT_WINDOW_MS = 30 * 60_000;

/** Names no controller may write: each is refused by a different rule. */
const HOSTILE: readonly string[] = [
  "bad host.soak.example.com",
  "brace{x}.soak.example.com",
  "10.0.0.1",
  "single-label",
  "api.kube-system.svc.cluster.local",
  "ünicode.soak.example.com",
  "*.*.soak.example.com",
  "line\nbreak.soak.example.com",
  `${"a".repeat(64)}.soak.example.com`,
  "$(env).soak.example.com",
];

/** The ready addresses of a slice, unique and sorted. */
function readyOf(endpoints: readonly SliceEndpoint[]): string[] {
  const ready = endpoints.filter((endpoint) => endpoint.ready).map((endpoint) => endpoint.ip);
  return [...new Set(ready)].sort(compareIpv4);
}

/** What the cluster holds after the steps so far, as the soak expects it. */
export class SoakModel {
  readonly ingresses = new Map<string, readonly PlannedHost[]>();
  readonly routes = new Map<string, readonly PlannedHost[]>();
  slice: readonly SliceEndpoint[] = [{ ip: "198.51.100.1", ready: true }];
  /**
   * The non-empty ready sets since kuberture was last seen settled, oldest first. While the slice
   * has ready addresses kuberture must publish them; while it has none, it keeps what it last
   * published, which can be any of these: a set that came and went while its watch was stalled or
   * cut, it never saw.
   */
  #readySets: (readonly string[])[] = [["198.51.100.1"]];
  records: { readonly hostname: string; readonly ips: readonly string[] } = {
    hostname: RECORDS_HOSTNAMES[0]!,
    ips: ["192.0.2.10"],
  };
  /** Names that were hairpinned once and are not now (to ask that they are forwarded again). */
  readonly dropped = new Set<string>();

  /** The Corefile block's hostnames: sorted, unique. */
  expectedHosts(): string[] {
    const hosts = new Set<string>();
    for (const list of [...this.ingresses.values(), ...this.routes.values()]) {
      for (const host of list) if (host.expected !== undefined) hosts.add(host.expected);
    }
    return [...hosts].sort();
  }

  /** The target sets kuberture may publish now (each sorted): the live ready set, else a recent one. */
  publishable(): readonly (readonly string[])[] {
    const live = readyOf(this.slice);
    return live.length > 0 ? [live] : this.#readySets;
  }

  /** After a quiet period held: what kuberture published is the only set it may keep from here. */
  settle(published: readonly string[]): void {
    this.#readySets = [[...published].sort(compareIpv4)];
  }

  /** Applies a churn step (faults change nothing the model holds). */
  apply(step: ChurnStep | FaultStep): void {
    const before = new Set(this.expectedHosts());
    switch (step.kind) {
      case "ingress-put":
        this.ingresses.set(step.key, step.hosts);
        break;
      case "ingress-delete":
        this.ingresses.delete(step.key);
        break;
      case "route-put":
        this.routes.set(step.key, step.hosts);
        break;
      case "route-delete":
        this.routes.delete(step.key);
        break;
      case "slice-set": {
        this.slice = step.endpoints;
        const ready = readyOf(step.endpoints);
        if (ready.length > 0) this.#readySets.push(ready);
        break;
      }
      case "records-set":
        this.records = { hostname: step.hostname, ips: step.ips };
        break;
      default:
        return;
    }
    const after = new Set(this.expectedHosts());
    for (const host of before) if (!after.has(host)) this.dropped.add(host);
    for (const host of after) this.dropped.delete(host);
  }
}

/** Orders dotted IPv4 addresses numerically. */
export function compareIpv4(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 4; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Draws the soak's steps from a seed; call {@linkcode SoakPlanner.next} for each. */
export class SoakPlanner {
  readonly model = new SoakModel();
  readonly #random: () => number;
  #serial = 0;
  #handEdits: number[] = [];
  #elapsedMs = 0;

  constructor(seed: number) {
    this.#random = prng(seed);
  }

  /** The next step: about one in six is a fault. The model already holds its effect. */
  next(): SoakStep {
    const step = this.#random() < 1 / 6 ? this.#fault() : this.#churn();
    const afterMs = 40 + Math.floor(this.#random() * 360);
    this.#elapsedMs += afterMs;
    this.model.apply(step);
    return { ...step, afterMs };
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)]!;
  }

  #int(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  #host(): PlannedHost {
    const n = this.#int(1, 60);
    const roll = this.#random();
    if (roll < 0.6) return { raw: `h${n}.soak.example.com`, expected: `h${n}.soak.example.com` };
    if (roll < 0.75) return { raw: `*.w${n}.soak.example.com`, expected: `*.w${n}.soak.example.com` };
    if (roll < 0.85) return { raw: `Mixed${n}.Soak.Example.com.`, expected: `mixed${n}.soak.example.com` };
    return { raw: this.#pick(HOSTILE), expected: undefined };
  }

  #hosts(): PlannedHost[] {
    return Array.from({ length: this.#int(1, 3) }, () => this.#host());
  }

  #churn(): ChurnStep {
    const model = this.model;
    const roll = this.#random();
    if (roll < 0.3) return { kind: "ingress-put", key: `shop/ing-${this.#int(1, 25)}`, hosts: this.#hosts() };
    if (roll < 0.4 && model.ingresses.size > 0) {
      return { kind: "ingress-delete", key: this.#pick([...model.ingresses.keys()].sort()) };
    }
    if (roll < 0.5) return { kind: "route-put", key: `shop/route-${this.#int(1, 10)}`, hosts: this.#hosts() };
    if (roll < 0.55 && model.routes.size > 0) {
      return { kind: "route-delete", key: this.#pick([...model.routes.keys()].sort()) };
    }
    if (roll < 0.7) {
      const endpoints = Array.from({ length: this.#int(0, 3) }, (_, i) => ({
        ip: `198.51.100.${i * 10 + this.#int(1, 9)}`,
        ready: this.#random() < 0.7,
      }));
      return { kind: "slice-set", endpoints };
    }
    if (roll < 0.8) {
      const ips = Array.from({ length: this.#int(1, 2) }, () => `192.0.2.${this.#int(1, 254)}`);
      return { kind: "records-set", hostname: this.#pick(RECORDS_HOSTNAMES), ips: [...new Set(ips)].sort() };
    }
    return { kind: "hairpin-call", source: this.#pick(HAIRPIN_SOURCES) };
  }

  #fault(): FaultStep {
    const kind = this.#pick(FAULT_KINDS);
    switch (kind) {
      case "apiserver-restart":
        return { kind, downMs: this.#int(200, 3_000) };
      case "compaction":
      case "watches-cut":
      case "watches-stall":
        return { kind };
      case "error-burst":
        return { kind, code: this.#pick([500, 503, 429] as const), count: this.#int(3, 30) };
      case "slow-answers":
        return { kind, ms: this.#int(200, 2_500), count: this.#int(2, 20) };
      case "leader-stop":
      case "leader-partition":
        return { kind, pair: this.#pick(["controller", "kuberture"] as const), ms: this.#int(1_000, 6_000) };
      case "leader-kill":
        return { kind, pair: this.#pick(["controller", "kuberture"] as const) };
      case "corefile-hand-edit": {
        this.#handEdits = this.#handEdits.filter((at) => this.#elapsedMs - at < HAND_EDIT_WINDOW_MS);
        const where = this.#handEdits.length < HAND_EDITS_PER_WINDOW && this.#random() < 0.6
          ? "block"
          : "outside";
        if (where === "block") this.#handEdits.push(this.#elapsedMs);
        return { kind, where, mark: ++this.#serial };
      }
      case "kuberture-config-invalid":
        return { kind, ms: this.#int(500, 4_000) };
    }
  }
}
