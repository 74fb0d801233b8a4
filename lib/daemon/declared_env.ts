/**
 * The environment as a subcommand may see it: only the variables its option table declares.
 *
 * Reads the process environment when the returned lookup is called; building it is pure.
 *
 * @module
 */

import { envName, type OptionSpec, type OptionTable } from "../cli/options.ts";

/**
 * An environment lookup that reads only the variables a table declares, so a subcommand needs
 * permission for its own variables and nothing else (an undeclared name reads as unset).
 *
 * @example
 * ```ts
 * import { text } from "../cli/kinds.ts";
 * import { declaredEnv } from "./declared_env.ts";
 *
 * const env = declaredEnv({
 *   command: "proxy",
 *   summary: "…",
 *   options: { name: { flag: "name", kind: text("NAME", "a name"), default: "", help: "…" } },
 * });
 * env("OUROBOROS_PROXY_NAME"); // the variable's value, or undefined
 * env("HOME"); // always undefined: the table does not declare it
 * ```
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
