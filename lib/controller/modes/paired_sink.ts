/**
 * Two sinks answering as one, both reconciled every pass with the same hosts: a CoreDNS mode's
 * sink and, with `--node-local-dns=manage`, the node-local-dns sink; any mode's sink and, with
 * `--routes`, the route table's.
 *
 * Effects: none of its own; the sinks do the I/O.
 *
 * One's refusal never holds the other back (each target helps on its own). Folding: any `failed`
 * wins (retrying the other is a no-op); then a refusal, its problem prefixed for the second (so a
 * metric tells them apart), scope `some-hosts` if the other wrote (told in an INFO notice naming
 * it); else the writes.
 *
 * @module
 */

import type { Notice, ReconcileContext, Sink, SinkOutcome } from "./sink.ts";

/** How the pair names its parts: the second's refusal prefix, and each one's target for notices. */
export interface Pairing {
  /** Put before the second sink's refusal problems (`node-local-dns-`); may be empty. */
  readonly secondPrefix: string;
  /** Each sink's description, in the notice that the other one wrote. */
  readonly names: readonly [string, string];
}

type Refused = Extract<SinkOutcome, { kind: "refused" }>;

/** The pair of `first` (the mode's sink) and `second`; `secondPrefix` as {@linkcode Pairing}'s. */
export function pairedSink([first, second]: readonly [Sink, Sink], secondPrefix: string): Sink {
  const pairing: Pairing = { secondPrefix, names: [first.description, second.description] };
  return {
    description: `${first.description} + ${second.description}`,
    async reconcile(hosts: readonly string[], signal: AbortSignal, context?: ReconcileContext) {
      const a = await first.reconcile(hosts, signal, context);
      const b = await second.reconcile(hosts, signal, context);
      return foldOutcomes([a, b], pairing);
    },
  };
}

/**
 * One outcome for two, as the module doc says; counts come from the first, diffs are joined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { foldOutcomes } from "./paired_sink.ts";
 *
 * const folded = foldOutcomes([
 *   { kind: "unchanged", hosts: 1 },
 *   { kind: "refused", problem: "end-before-begin", message: "…", scope: "nothing-written" },
 * ], { secondPrefix: "node-local-dns-", names: ["coredns", "node-local-dns"] });
 * assert.ok(folded.kind === "refused");
 * assert.equal(folded.problem, "node-local-dns-end-before-begin");
 * ```
 */
export function foldOutcomes(
  [first, second]: readonly [SinkOutcome, SinkOutcome],
  pairing: Pairing,
): SinkOutcome {
  const notices = [...(first.notices ?? []), ...(second.notices ?? [])];
  const out = (outcome: SinkOutcome, extra: readonly Notice[] = []): SinkOutcome => {
    const all = [...notices, ...extra];
    return all.length === 0 ? outcome : { ...outcome, notices: all };
  };
  if (first.kind === "failed" || second.kind === "failed") {
    const failed = [first, second].filter((o) => o.kind === "failed");
    const message = failed.map((o) => o.kind === "failed" ? o.message : "").join("; ");
    const cause = failed[0]?.kind === "failed" ? failed[0].cause : undefined;
    return out({ kind: "failed", message, ...(cause === undefined ? {} : { cause }) });
  }
  if (first.kind === "refused" || second.kind === "refused") {
    const refusal: Refused = first.kind === "refused"
      ? first
      : { ...(second as Refused), problem: `${pairing.secondPrefix}${(second as Refused).problem}` };
    const other = first.kind === "refused" ? second : first;
    const otherName = pairing.names[first.kind === "refused" ? 1 : 0];
    const wrote = other.kind === "written" || other.kind === "previewed";
    const extra: Notice[] = wrote
      ? [{
        level: "info",
        message: other.kind === "written"
          ? `${otherName} was written`
          : `${otherName} would be written (dry run)`,
        properties: { added: other.added, removed: other.removed, diff: other.diff },
      }]
      : [];
    const scope = wrote && refusal.scope === "nothing-written" ? "some-hosts" : refusal.scope;
    const { kind, problem, message } = refusal;
    return out({ kind, problem, message, scope }, extra);
  }
  const changed = [first, second].filter((o) => o.kind === "written" || o.kind === "previewed");
  const lead = changed[0];
  if (lead === undefined) return out({ kind: "unchanged", hosts: first.hosts });
  const diff = changed.map((o) => "diff" in o ? o.diff ?? "" : "").join("");
  const counts = first.kind === "written" || first.kind === "previewed" ? first : lead;
  const names = counts.kind === "written" || counts.kind === "previewed" ? counts.names : undefined;
  const change = {
    hosts: first.hosts,
    added: counts.added,
    removed: counts.removed,
    ...(names ? { names } : {}),
  };
  if (lead.kind === "previewed") return out({ kind: "previewed", ...change, diff });
  if (lead.kind !== "written") return out(lead);
  return out({ kind: "written", ...change, diff });
}
