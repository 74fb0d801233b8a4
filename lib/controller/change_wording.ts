/**
 * How the loop words a sink call that went through (`unchanged`, `written`, `previewed`), and
 * when it says a dry run's diff again.
 *
 * - `unchanged`: nothing (the DEBUG "reconcile" line already says it).
 * - `written`: INFO "hostnames updated" with the counts, and the diff of the write at DEBUG (a
 *   first write of thousands of hostnames is a long diff; the counts are what an operator scans).
 * - `previewed` (`--dry-run`): INFO with the counts and the whole diff, since the diff is the
 *   point of a dry run; the same diff again (every resync, every target event that changed
 *   nothing we write) is DEBUG with `repeated: true`. Any other outcome since forgets it, so the
 *   same change coming back after it was gone is news again.
 *
 * Pure: the lines are values; the loop logs them.
 *
 * @module
 */

import type { SinkOutcome } from "../sinks/sink.ts";

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
      const counts = { added: change.added, removed: change.removed, total: change.hosts };
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
