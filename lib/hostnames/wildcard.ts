/**
 * What a wildcard hostname `*.<domain>` matches, written once for every place that answers or
 * rewrites names. As TLS (RFC 6125 §6.4.3) and Gateway API listeners: the `*` is exactly one label,
 * so `*.example.com` matches `shop.example.com`, not `example.com` nor `a.shop.example.com`, and
 * a lookup is one `Set` probe of the name's parent. An exact name always wins over a wildcard.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** `--wildcards`: `rewrite` points `*.<domain>` names at the proxy too; `skip` drops them. */
export type WildcardsMode = "rewrite" | "skip";

/** Every {@linkcode WildcardsMode}, in the order `--help` lists them. */
export const WILDCARDS_MODES: readonly WildcardsMode[] = ["rewrite", "skip"];

/** The prefix of every wildcard in a desired set. */
export const WILDCARD_PREFIX = "*.";

/** Whether `host` (from a desired set) is a wildcard. */
export function isWildcard(host: string): boolean {
  return host.startsWith(WILDCARD_PREFIX);
}

/** The domain whose children a wildcard covers (`*.example.com` → `example.com`). */
export function wildcardDomain(host: string): string | undefined {
  return isWildcard(host) ? host.slice(WILDCARD_PREFIX.length) : undefined;
}

/** The name minus its first label: the only domain whose wildcard can match `name`. */
export function parentDomain(name: string): string | undefined {
  const dot = name.indexOf(".");
  return dot <= 0 || dot === name.length - 1 ? undefined : name.slice(dot + 1);
}

/** Whether the wildcard `pattern` matches the normalised `name`; false for an exact `pattern`. */
export function wildcardMatches(pattern: string, name: string): boolean {
  const domain = wildcardDomain(pattern);
  return domain !== undefined && parentDomain(name) === domain;
}

/** The split of a desired set: exact names first, then wildcards, each in the given order. */
export interface SplitHosts {
  readonly exact: readonly string[];
  readonly wildcards: readonly string[];
}

/** Splits a desired set into exact names and wildcards; ordered sinks write `exact` first. */
export function splitWildcards(hosts: readonly string[]): SplitHosts {
  const exact: string[] = [];
  const wildcards: string[] = [];
  for (const host of hosts) (isWildcard(host) ? wildcards : exact).push(host);
  return { exact, wildcards };
}

/** `hosts` with the exact names first and the wildcards after, each group in the given order. */
export function blockOrderOf(hosts: readonly string[]): readonly string[] {
  const { exact, wildcards } = splitWildcards(hosts);
  return wildcards.length === 0 ? hosts : [...exact, ...wildcards];
}

/**
 * Answers "is this name covered?" for exact names and wildcards, in at most two `Set` probes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HostnameMatcher } from "./wildcard.ts";
 *
 * const matcher = new HostnameMatcher(["api.example.com", "*.apps.example.com"]);
 * assert.equal(matcher.match("api.example.com"), "exact");
 * assert.equal(matcher.match("shop.apps.example.com"), "wildcard");
 * assert.equal(matcher.match("apps.example.com"), undefined);
 * ```
 */
export class HostnameMatcher {
  readonly #exact: ReadonlySet<string>;
  readonly #domains: ReadonlySet<string>;

  /** `hosts`: normalised names and `*.<domain>` wildcards (a desired set's hosts). */
  constructor(hosts: Iterable<string>) {
    const exact = new Set<string>();
    const domains = new Set<string>();
    for (const host of hosts) {
      const domain = wildcardDomain(host);
      if (domain === undefined) exact.add(host);
      else domains.add(domain);
    }
    this.#exact = exact;
    this.#domains = domains;
  }

  /** How the normalised `name` is covered: `exact` wins over `wildcard`; else `undefined`. */
  match(name: string): "exact" | "wildcard" | undefined {
    if (this.#exact.has(name)) return "exact";
    if (this.#domains.size === 0) return undefined;
    const parent = parentDomain(name);
    return parent !== undefined && this.#domains.has(parent) ? "wildcard" : undefined;
  }
}
