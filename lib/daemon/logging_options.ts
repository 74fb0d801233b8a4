/**
 * The logging flags every subcommand shares (`--log-level`, `--log-format`).
 *
 * Pure: data.
 *
 * @module
 */

import { oneOf } from "../cli/kinds.ts";
import type { OptionSpec } from "../cli/options.ts";
import { LOG_FORMATS, LOG_LEVELS } from "../util/log_format.ts";

/** Flags shared by every subcommand for logging. */
export const LOGGING_OPTIONS = {
  logLevel: {
    flag: "log-level",
    kind: oneOf(LOG_LEVELS, { warning: "warn" }),
    default: "info",
    help: "Lowest level logged. A typo fails start-up instead of silently changing the level.",
  },
  logFormat: {
    flag: "log-format",
    kind: oneOf(LOG_FORMATS),
    default: "json",
    help: "json writes one JSON object per line to stderr; text writes key=value lines.",
  },
} as const satisfies Record<string, OptionSpec<unknown>>;
