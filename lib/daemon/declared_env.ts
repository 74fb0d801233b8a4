/**
 * The environment as a subcommand may see it: only the variables its option table declares.
 *
 * Effects: the returned lookup reads the process environment; building it is pure.
 *
 * @module
 */

import { envName, type OptionSpec, type OptionTable } from "../cli/options.ts";

/**
 * An environment lookup for the table's variables only (others read as unset), so a subcommand
 * needs permission for its own variables and nothing else.
 */
export function declaredEnv<T extends Record<string, OptionSpec<unknown>>>(
  table: OptionTable<T>,
): (name: string) => string | undefined {
  const declared = new Set<string>();
  for (const spec of Object.values(table.options)) {
    const name = envName(table.command, spec);
    if (name !== null) declared.add(name);
  }
  return (name) => (declared.has(name) ? Deno.env.get(name) : undefined);
}
