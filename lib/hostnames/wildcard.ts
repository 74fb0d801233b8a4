/**
 * What a wildcard hostname matches, written once for every place that answers or rewrites names.
 *
 * A desired set may hold, next to exact names, wildcards `*.<domain>` (see `hostname.ts`, kind
 * `wildcard`). They follow TLS's rule for a wildcard certificate (RFC 6125 §6.4.3, and the Gateway
 * API's listener hostnames): the `*` stands for exactly one whole label. `*.example.com` matches
 * `shop.example.com`, never `example.com` itself nor `a.shop.example.com`. An exact name always
 * wins over a wildcard: a sink that can tell the two apart puts exact rules first.
 *
 * Because the `*` is exactly one label, a name has at most one wildcard that can match it, the
 * one for the name minus its first label: a lookup is one `Set` probe of that parent (see
 * {@linkcode HostnameMatcher}), however many wildcards there are.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** `--wildcards`: `rewrite` points `*.<domain>` names at the proxy too; `skip` drops them (the original). */
export type WildcardsMode = "rewrite" | "skip";

/** Every {@linkcode WildcardsMode}, in the order `--help` lists them. */
export const WILDCARDS_MODES: readonly WildcardsMode[] = ["rewrite", "skip"];

/** The prefix of every wildcard in a desired set. */
export const WILDCARD_PREFIX = "*.";

/**
 * Whether `host` (from a desired set) is a wildcard.
 *
 * @example
 * ```ts
 * import { isWildcard } from "./wildcard.ts";
 *
 * isWildcard("*.example.com"); // true
 * isWildcard("shop.example.com"); // false
 * ```
 */
export function isWildcard(host: string): boolean {
  return host.startsWith(WILDCARD_PREFIX);
}

/**
 * The domain a wildcard covers the children of (`*.example.com` → `example.com`), or `undefined`
 * for an exact name.
 *
 * @example
 * ```ts
 * import { wildcardDomain } from "./wildcard.ts";
 *
 * wildcardDomain("*.apps.example.com"); // "apps.example.com"
 * wildcardDomain("apps.example.com"); // undefined
 * ```
 */
export function wildcardDomain(host: string): string | undefined {
  return isWildcard(host) ? host.slice(WILDCARD_PREFIX.length) : undefined;
}

/**
 * The name minus its first label (`a.example.com` → `example.com`): the only domain whose
 * wildcard can match `name`. `undefined` for a single label.
 *
 * @example
 * ```ts
 * import { parentDomain } from "./wildcard.ts";
 *
 * parentDomain("shop.example.com"); // "example.com"
 * parentDomain("localhost"); // undefined
 * ```
 */
export function parentDomain(name: string): string | undefined {
  const dot = name.indexOf(".");
  return dot <= 0 || dot === name.length - 1 ? undefined : name.slice(dot + 1);
}

/**
 * Whether the wildcard `pattern` (`*.<domain>`) matches the normalised name `name` (lower-case,
 * no trailing dot): exactly one non-empty label before `.<domain>`. False for an exact `pattern`.
 *
 * @example
 * ```ts
 * import { wildcardMatches } from "./wildcard.ts";
 *
 * wildcardMatches("*.example.com", "a.example.com"); // true
 * wildcardMatches("*.example.com", "example.com"); // false
 * wildcardMatches("*.example.com", "a.b.example.com"); // false
 * ```
 */
export function wildcardMatches(pattern: string, name: string): boolean {
  const domain = wildcardDomain(pattern);
  return domain !== undefined && parentDomain(name) === domain;
}

/** The split of a desired set: exact names first, then wildcards, each in the given order. */
export interface SplitHosts {
  readonly exact: readonly string[];
  readonly wildcards: readonly string[];
}

/**
 * Splits a desired set into its exact names and its wildcards, keeping the order of each. Sinks
 * that write ordered rules write `exact` first, so an exact name wins over a wildcard.
 *
 * @example
 * ```ts
 * import { splitWildcards } from "./wildcard.ts";
 *
 * splitWildcards(["*.example.com", "a.example.com"]);
 * // { exact: ["a.example.com"], wildcards: ["*.example.com"] }
 * ```
 */
export function splitWildcards(hosts: readonly string[]): SplitHosts {
  const exact: string[] = [];
  const wildcards: string[] = [];
  for (const host of hosts) (isWildcard(host) ? wildcards : exact).push(host);
  return { exact, wildcards };
}

/**
 * `hosts` with the exact names first and the wildcards after, each group in the given order.
 *
 * @example
 * ```ts
 * import { blockOrderOf } from "./wildcard.ts";
 *
 * blockOrderOf(["*.example.com", "b.example.com"]); // ["b.example.com", "*.example.com"]
 * ```
 */
export function blockOrderOf(hosts: readonly string[]): readonly string[] {
  const { exact, wildcards } = splitWildcards(hosts);
  return wildcards.length === 0 ? hosts : [...exact, ...wildcards];
}

/**
 * Answers "is this name covered?" for a set of exact names and wildcards, in two `Set` probes
 * per name: the name itself, then its parent domain among the wildcards' domains.
 *
 * @example
 * ```ts
 * import { HostnameMatcher } from "./wildcard.ts";
 *
 * const matcher = new HostnameMatcher(["api.example.com", "*.apps.example.com"]);
 * matcher.match("api.example.com"); // "exact"
 * matcher.match("shop.apps.example.com"); // "wildcard"
 * matcher.match("apps.example.com"); // undefined
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

  /**
   * How `name` (normalised: lower-case, no trailing dot) is covered: `exact` first (an exact name
   * wins), then `wildcard`, else `undefined`.
   */
  match(name: string): "exact" | "wildcard" | undefined {
    if (this.#exact.has(name)) return "exact";
    if (this.#domains.size === 0) return undefined;
    const parent = parentDomain(name);
    return parent !== undefined && this.#domains.has(parent) ? "wildcard" : undefined;
  }
}
