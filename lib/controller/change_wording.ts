/**
 * How the loop words a sink call that went through (`unchanged`, `written`, `previewed`).
 *
 * `written` is INFO with the counts and the first names; its diff is DEBUG, since a first write of
 * thousands of names is a long diff. A dry run's diff is its point, so it is INFO; the same diff
 * again is DEBUG (`repeated: true`) until another outcome comes between.
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
 * The lines for `change`; `lastPreview` is the diff logged last (`undefined`: none, or another
 * outcome came since).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { changeWording } from "./change_wording.ts";
 *
 * const previewed = { kind: "previewed", hosts: 1, added: 1, removed: 0, diff: "--- a/x\n+++ b/x\n…" } as const;
 * const first = changeWording(previewed, undefined);
 * assert.equal(first.lines[0]?.level, "info");
 * assert.equal(changeWording(previewed, first.preview).lines[0]?.level, "debug"); // the same diff again
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

/** `addedHosts`/`removedHosts` (at most {@linkcode MAX_LOGGED_NAMES} each) and `…More` counts. */
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
