/**
 * Giving up permissions once a subcommand has started, so a compiled binary that was granted
 * the union of every subcommand's needs keeps only what the running subcommand still uses.
 *
 * Effect: revokes permissions of the whole process, for the rest of its life.
 *
 * @module
 */

/**
 * A permission a subcommand can give up: a whole kind (`{ name: "env" }`) or one entry of a
 * path list (`{ name: "read", path: "/" }`). Never the network: every long-running subcommand
 * serves a health listener.
 */
export type RevocableDescriptor = Exclude<Deno.PermissionDescriptor, Deno.NetPermissionDescriptor>;

/**
 * Gives up each permission of `list`, in order, for the rest of the process. Revoking a path
 * revokes every granted entry that contains it, but none inside it: Deno narrows a path-list
 * grant entry by entry, and cannot narrow a global grant at all.
 *
 * @example
 * ```ts
 * import { revokePermissions } from "./revoke_permissions.ts";
 *
 * revokePermissions([{ name: "write" }, { name: "run" }, { name: "read", path: "/etc/resolv.conf" }]);
 * ```
 */
export function revokePermissions(list: readonly RevocableDescriptor[]): void {
  for (const descriptor of list) Deno.permissions.revokeSync(descriptor);
}
