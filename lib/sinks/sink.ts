/**
 * The seam between the controller and a mode: the controller computes the full desired
 * hostname set from its caches and hands it to the mode's sink, which makes the cluster (or the
 * node) match it. Nothing incremental crosses this seam, so a retry, a restart or a second
 * replica always converges to the same result.
 *
 * @module
 */

/**
 * The kinds of object a hostname comes from, spelled as external-dns mode's source annotation
 * spells them: an Ingress, a Gateway listener, an HTTPRoute.
 */
export type HostSource = "ingress" | "gateway-listener" | "httproute";

/** What a pass may know beyond the hostnames; a sink that needs none of it ignores it. */
export interface ReconcileContext {
  /** The kinds each hostname came from (every host of the call, sorted kinds); absent: unknown. */
  readonly sources?: ReadonlyMap<string, readonly HostSource[]>;
}

/**
 * How much a refusal held back, so the controller words and rates it correctly:
 * - `nothing-written` (the default): the sink wrote nothing at all;
 * - `some-hosts`: the hostnames the message names were left alone, the others were written;
 * - `guard`: a safety guard kept objects that a prune would have deleted; nothing was written,
 *   and what is published stays as it was (a warning with a remedy, not a failure).
 */
export type RefusalScope = "nothing-written" | "some-hosts" | "guard";

/** What one reconcile did. */
export type SinkOutcome =
  /** The target already matched: nothing was written. */
  | { readonly kind: "unchanged"; readonly hosts: number }
  /** The target was written. `added`/`removed` count hostnames compared with what it held. */
  | { readonly kind: "written"; readonly hosts: number; readonly added: number; readonly removed: number }
  /**
   * The sink refused to write because writing would be unsafe (damaged markers, size limit,
   * a missing prerequisite). Retrying without a change on the cluster side will not help;
   * `problem` is a short code for metrics, `message` says what to fix.
   */
  | {
    readonly kind: "refused";
    readonly problem: string;
    readonly message: string;
    /** @default {"nothing-written"} */
    readonly scope?: RefusalScope;
    /**
     * The sink has already logged this refusal itself, at its own level and once per change,
     * so the controller records it (metrics, readiness) and logs it only at DEBUG.
     */
    readonly logged?: boolean;
  };

/** A mode's writer. `reconcile` rejects on transient failures (the controller backs off). */
export interface Sink {
  /** For logs: `coredns kube-system/coredns[Corefile]`. */
  readonly description: string;
  /** Makes the target hold exactly `hosts` (sorted, unique); `context` is optional extra input. */
  reconcile(hosts: readonly string[], signal: AbortSignal, context?: ReconcileContext): Promise<SinkOutcome>;
}
