/**
 * How the loop words a sink call that went through (`unchanged`, `written`, `previewed`), and
 * when it says a dry run's diff again.
 *
 * - `unchanged`: nothing (the DEBUG "reconcile" line already says it).
 * - `written`: INFO "hostnames updated" with the counts and the names added and removed (at most
 *   `MAX_LOGGED_NAMES` of each, then `addedHostsMore`/`removedHostsMore` count the rest), and the
 *   diff of the write at DEBUG (a first write of thousands of hostnames is a long diff; the counts
 *   and the first names are what an operator scans).
 * - `previewed` (`--dry-run`): INFO with the counts, the names and the whole diff, since the diff is the
 *   point of a dry run; the same diff again (every resync, every target event that changed
 *   nothing we write) is DEBUG with `repeated: true`. Any other outcome since forgets it, so the
 *   same change coming back after it was gone is news again.
 *
 * Pure: the lines are values; the loop logs them.
 *
 * @module
 */

import type { HostnameChange, SinkOutcome } from "./modes/sink.ts";

/** How many added (and how many removed) hostnames one INFO line names; the rest are counted. */
export const MAX_LOGGED_NAMES = 10;

/** A sink outcome that left the target matching, or would have (a dry run). */
export type Change = Extract<SinkOutcome, { kind: "unchanged" | "written" | "previewed" }>;

/** One line the loop logs, with the sink as `target` added by the loop. */
export interface ChangeLine {
  readonly level: "debug" | "info";
  readonly message: string;
  readonly properties: Readonly<Record<string, unknown>>;
}

/** The lines for one change, and the dry-run diff to remember as the last one logged. */
export interface ChangeWording {
  readonly lines: readonly ChangeLine[];
  /** Pass it back as `lastPreview` next time; `undefined` unless the outcome was `previewed`. */
  readonly preview: string | undefined;
}

/** The message of a dry run's line. */
export const PREVIEW_MESSAGE = "dry run: the target would change; nothing written";

/**
 * The lines for `change`, given the diff of the preview logged last (`undefined` when none was,
 * or another outcome came since).
 *
 * @example
 * ```ts
 * import { changeWording } from "./change_wording.ts";
 *
 * const previewed = { kind: "previewed", hosts: 1, added: 1, removed: 0, diff: "--- a/x\n+++ b/x\n…" } as const;
 * const first = changeWording(previewed, undefined);
 * first.lines[0]?.level; // "info"
 * changeWording(previewed, first.preview).lines[0]?.level; // "debug": the same diff again
 * ```
 */
export function changeWording(change: Change, lastPreview: string | undefined): ChangeWording {
  switch (change.kind) {
    case "unchanged":
      return { lines: [], preview: undefined };
    case "written": {
      const counts = {
        added: change.added,
        removed: change.removed,
        total: change.hosts,
        ...nameFields(change.names),
      };
      const diff: ChangeLine[] = change.diff === undefined
        ? []
        : [{ level: "debug", message: "the write's diff", properties: { diff: change.diff } }];
      return {
        lines: [{ level: "info", message: "hostnames updated", properties: counts }, ...diff],
        preview: undefined,
      };
    }
    case "previewed": {
      const repeated = change.diff === lastPreview;
      const properties = {
        added: change.added,
        removed: change.removed,
        total: change.hosts,
        ...nameFields(change.names),
        diff: change.diff,
        ...(repeated ? { repeated } : {}),
      };
      return {
        lines: [{ level: repeated ? "debug" : "info", message: PREVIEW_MESSAGE, properties }],
        preview: change.diff,
      };
    }
  }
}

/**
 * `addedHosts`/`removedHosts` with at most {@linkcode MAX_LOGGED_NAMES} names each, and
 * `addedHostsMore`/`removedHostsMore` for the rest; empty lists are left out.
 */
function nameFields(names: HostnameChange | undefined): Record<string, unknown> {
  if (names === undefined) return {};
  const out: Record<string, unknown> = {};
  for (const [key, list] of [["addedHosts", names.added], ["removedHosts", names.removed]] as const) {
    if (list.length === 0) continue;
    out[key] = list.slice(0, MAX_LOGGED_NAMES);
    if (list.length > MAX_LOGGED_NAMES) out[`${key}More`] = list.length - MAX_LOGGED_NAMES;
  }
  return out;
}
