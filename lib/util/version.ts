/**
 * The program's version, taken from `deno.json` so there is one place to bump it.
 *
 * Pure: constants read at import.
 *
 * @module
 */

import config from "../../deno.json" with { type: "json" };

/** Semantic version of this build. */
export const VERSION: string = config.version;

/** Source revision; `deno task compile` runs from a checkout, plain `deno run` reports `unknown`. */
export const REVISION = "unknown";

/** The line `ouroboros version` prints: `ouroboros <version> (<revision>)`. */
export function versionLine(): string {
  return `ouroboros ${VERSION} (${REVISION})`;
}
