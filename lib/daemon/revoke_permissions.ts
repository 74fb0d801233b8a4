/**
 * Giving up permissions once a subcommand has started: a binary granted every subcommand's needs
 * keeps only what the running one still uses.
 *
 * Effect: revokes permissions of the whole process, for the rest of its life.
 *
 * @module
 */

/** A permission a subcommand can give up; never the network, which every health listener needs. */
export type RevocableDescriptor = Exclude<Deno.PermissionDescriptor, Deno.NetPermissionDescriptor>;

/**
 * Gives up each permission of `list`, in order. Revoking a path revokes every granted entry that
 * contains it, none inside it: Deno drops path grants entry by entry, a global grant only whole.
 */
export function revokePermissions(list: readonly RevocableDescriptor[]): void {
  for (const descriptor of list) Deno.permissions.revokeSync(descriptor);
}
