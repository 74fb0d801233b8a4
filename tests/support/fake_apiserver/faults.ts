/**
 * Fault injection for the fake API server: a queue of scripted faults, each aimed at the next N
 * requests of a verb (optionally only on paths matching a regexp, optionally only from one
 * user), plus controls that act on the watch streams already open.
 *
 * Pure: no I/O. The HTTP layer asks {@linkcode FaultPlan.take} for every request and carries
 * the fault out.
 *
 * @module
 */

/** What the server does wrong, once. */
export type Fault =
  /** Answer with this Status instead (and `Retry-After` when `retryAfterSeconds` is set). */
  | {
    type: "status";
    code: number;
    reason: string;
    message?: string;
    retryAfterSeconds?: number;
    causes?: string[];
  }
  /** Watch: 200, then an `ERROR` event with this Status, then close. Other requests: the Status itself. */
  | { type: "watch-error-event"; code: number; reason: string }
  /** Watch: 200 and close with zero events. Other requests: 200 with an empty body. */
  | { type: "close-immediately" }
  /** 200 with headers, then nothing, never closes (until `close()`/`stop()`). */
  | { type: "stall" }
  /** Watch: half of the next event's JSON line, then close. Other requests: half of the JSON body. */
  | { type: "cut-mid-json" }
  /** Watch: a line that is not JSON first, then the stream as usual. Other requests: a body that is not JSON. */
  | { type: "malformed-line" }
  /** Answer after `ms` milliseconds. */
  | { type: "delay"; ms: number }
  /** Accept the request and never answer (until `close()`/`stop()`), even if the client gives up. */
  | { type: "blackhole" };

/** How a request is classified for fault matching. */
export type Verb =
  | "list"
  | "watch"
  | "get"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deletecollection"
  | "discovery"
  | "other";

/** Verbs `inject` accepts: a request verb, or `"any"`. */
export const FAULT_VERBS: readonly string[] = [
  "list",
  "watch",
  "get",
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
  "discovery",
  "other",
  "any",
];

/** The controls tests use. */
export interface FaultControls {
  /**
   * The next `count` requests (default 1) matching `verb` (`"list"`, `"watch"`, `"get"`,
   * `"create"`, `"update"`, `"patch"`, `"delete"` (also collection deletes),
   * `"deletecollection"`, `"discovery"`, `"other"` or `"any"`), the optional path regexp and the
   * optional `user` (a user name of the `users`/`token` options; `""` with authentication off)
   * get `fault`. Faults are used in the order injected; a fault for one user leaves the requests
   * of every other user alone.
   */
  inject(verb: string, fault: Fault, options?: InjectOptions): void;
  /** Ends every open watch cleanly now (like a server-side timeout). */
  dropWatches(): void;
  /** Open watches stop sending anything and never close (no FIN) until `close()`/`stop()`. */
  stallWatches(): void;
  /** Forgets every injected fault not yet used. */
  clear(): void;
}

/** Which requests a fault is aimed at, beyond the verb, and how many. */
export interface InjectOptions {
  /** Only requests whose path matches. */
  readonly path?: RegExp;
  /** How many requests get the fault. @default 1 */
  readonly count?: number;
  /** Only requests from this user. */
  readonly user?: string;
}

interface Rule {
  readonly verb: string;
  readonly fault: Fault;
  readonly path: RegExp | undefined;
  readonly user: string | undefined;
  remaining: number;
}

/** The fault queue, with the two watch controls delegated to the server. */
export class FaultPlan implements FaultControls {
  #rules: Rule[] = [];
  readonly #watches: { drop(): void; stall(): void };

  /** `watches` acts on the open watch streams. */
  constructor(watches: { drop(): void; stall(): void }) {
    this.#watches = watches;
  }

  inject(verb: string, fault: Fault, options: InjectOptions = {}): void {
    if (!FAULT_VERBS.includes(verb)) {
      throw new Error(`unknown verb for a fault: ${verb} (one of ${FAULT_VERBS.join(", ")})`);
    }
    const count = options.count ?? 1;
    if (!Number.isInteger(count) || count < 1) {
      throw new Error(`fault count must be a positive integer, got ${count}`);
    }
    this.#rules.push({ verb, fault, path: options.path, user: options.user, remaining: count });
  }

  dropWatches(): void {
    this.#watches.drop();
  }

  stallWatches(): void {
    this.#watches.stall();
  }

  clear(): void {
    this.#rules = [];
  }

  /** The fault for this request (its `user` is `""` when unauthenticated), if one is scripted; uses it up. */
  take(verb: Verb, request: { readonly path: string; readonly user: string }): Fault | undefined {
    const { path, user } = request;
    const index = this.#rules.findIndex((rule) =>
      (rule.verb === "any" || rule.verb === verb ||
        (rule.verb === "delete" && verb === "deletecollection")) &&
      (rule.path === undefined || matchPath(rule.path, path)) &&
      (rule.user === undefined || rule.user === user)
    );
    if (index < 0) return undefined;
    const rule = this.#rules[index]!;
    rule.remaining--;
    if (rule.remaining === 0) this.#rules.splice(index, 1);
    return rule.fault;
  }

  /** Faults still waiting (for tests of the fake itself). */
  get pending(): number {
    return this.#rules.reduce((sum, rule) => sum + rule.remaining, 0);
  }
}

function matchPath(pattern: RegExp, path: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(path);
}
