/**
 * The program's version, taken from `deno.json` so there is one place to bump it.
 *
 * Pure: constants read at import.
 *
 * @module
 */

import config from "../../deno.json" with { type: "json" };
import { REVISION } from "./revision.ts";

/** Semantic version of this build. */
export const VERSION: string = config.version;

/** The line `ouroboros version` prints: `ouroboros <version> (<revision>)`. */
export function versionLine(): string {
  return `ouroboros ${VERSION} (${REVISION})`;
}
