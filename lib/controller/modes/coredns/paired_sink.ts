/**
 * Two sinks answering as one: a CoreDNS mode's own sink and, with `--node-local-dns=manage`, the
 * node-local-dns sink, both reconciled every pass with the same hosts.
 *
 * Effects: none of its own; the sinks do the I/O.
 *
 * One's refusal never holds the other back (each block helps on its own). Folding: any `failed`
 * wins (retrying the other is a no-op); then a refusal, its problem prefixed `node-local-dns-` for
 * the second, scope `some-hosts` if the other wrote (told in an INFO notice); else the writes.
 *
 * @module
 */

import type { Notice, ReconcileContext, Sink, SinkOutcome } from "../sink.ts";

type Refused = Extract<SinkOutcome, { kind: "refused" }>;

/** The pair of `first` (the mode's sink) and `second` (the node-local-dns sink). */
export function pairedSink(first: Sink, second: Sink): Sink {
  return {
    description: `${first.description} + ${second.description}`,
    async reconcile(hosts: readonly string[], signal: AbortSignal, context?: ReconcileContext) {
      const a = await first.reconcile(hosts, signal, context);
      const b = await second.reconcile(hosts, signal, context);
      return foldOutcomes(a, b);
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
 * const folded = foldOutcomes(
 *   { kind: "unchanged", hosts: 1 },
 *   { kind: "refused", problem: "end-before-begin", message: "…", scope: "nothing-written" },
 * );
 * assert.ok(folded.kind === "refused");
 * assert.equal(folded.problem, "node-local-dns-end-before-begin");
 * ```
 */
export function foldOutcomes(first: SinkOutcome, second: SinkOutcome): SinkOutcome {
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
      : { ...(second as Refused), problem: `node-local-dns-${(second as Refused).problem}` };
    const other = first.kind === "refused" ? second : first;
    const wrote = other.kind === "written" || other.kind === "previewed";
    const extra: Notice[] = wrote
      ? [{
        level: "info",
        message: other.kind === "written"
          ? "the other Corefile was written"
          : "the other Corefile would be written (dry run)",
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
