/**
 * Giving up permissions once a subcommand has started, so a compiled binary that was granted
 * the union of every subcommand's needs keeps only what the running subcommand still uses.
 *
 * Effect: revokes permissions of the whole process, for the rest of its life.
 *
 * @module
 */

/** Permission names a subcommand can give up once it has started (never `net`: it serves). */
export type RevocablePermission = "read" | "write" | "env" | "run" | "ffi" | "sys" | "import";

/**
 * Gives up permissions for the rest of the process.
 *
 * @example
 * ```ts
 * revokePermissions(["write", "run"]);
 * ```
 */
export function revokePermissions(names: readonly RevocablePermission[]): void {
  for (const name of names) Deno.permissions.revokeSync({ name });
}
