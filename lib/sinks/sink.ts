/**
 * The seam between the controller and a mode: the controller computes the full desired
 * hostname set from its caches and hands it to the mode's sink, which makes the cluster (or the
 * node) match it. Nothing incremental crosses this seam, so a retry, a restart or a second
 * replica always converges to the same result.
 *
 * @module
 */

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
  | { readonly kind: "refused"; readonly problem: string; readonly message: string };

/** A mode's writer. `reconcile` rejects on transient failures (the controller backs off). */
export interface Sink {
  /** For logs: `coredns kube-system/coredns[Corefile]`. */
  readonly description: string;
  reconcile(hosts: readonly string[], signal: AbortSignal): Promise<SinkOutcome>;
}
