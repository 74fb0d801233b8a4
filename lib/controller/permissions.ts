/**
 * What the controller gives up once it has started.
 *
 * The `controller` permission set (and the compiled binary's) grants read of `/` as a path
 * entry, next to `/etc/resolv.conf` and the service-account folder: `--kubeconfig` and the
 * certificates and token files it names can be anywhere, and are only known at run time. Deno
 * narrows a path-list grant entry by entry (a global `--allow-read` cannot be narrowed), so once
 * the configuration is loaded the `/` entry is revoked and only what is still needed stays:
 *
 * | configuration                               | read kept afterwards                      |
 * |---------------------------------------------|-------------------------------------------|
 * | in-cluster (the chart)                      | the service-account folder: the projected |
 * |                                             | token is re-read every minute             |
 * | kubeconfig: inline token, certificates      | nothing                                   |
 * | kubeconfig with a `tokenFile`               | everything granted (the file is re-read   |
 * |                                             | and its path is the source's own secret)  |
 *
 * Environment access goes too (every variable was read at start-up), as do ffi and sys, and run
 * unless credentials come from an exec plugin, which must run again when its token expires. The
 * `controller` set grants no run, so exec plugins work only where the operator adds
 * `--allow-run` (see `kube/kube_access.ts`).
 *
 * Write goes too, except in etc-hosts mode, which edits the node's hosts file for as long as it
 * runs (and not even then with `--dry-run`, which only reads it). The set grants write of `/`
 * and, as entries of their own, read and write of {@linkcode HOSTS_FILE_GRANT} (where the chart
 * mounts the node's file). Revoking a path revokes every entry that contains it but none inside
 * it, so revoking `/` keeps the hosts file entry:
 *
 * | `--etc-hosts`                 | read and write kept for the hosts file afterwards          |
 * |-------------------------------|------------------------------------------------------------|
 * | `/host/etc/hosts` (default)   | that file only, next to the read access of the table above  |
 * | any other path                | read and write as granted: the set cannot name the path,    |
 * |                               | and Deno cannot narrow `/` down to one file                 |
 *
 * `permissionsToRevoke` is pure (the skeleton, `daemon/subcommand.ts`, revokes its list after
 * start-up); `permissionReport` queries the process's permissions for the start-up line.
 *
 * @module
 */

import { type ClusterConfig, SERVICE_ACCOUNT_DIR } from "../kube/config.ts";
import { ExecCredentialSource } from "../kube/exec_plugin.ts";
import { TokenFileSource } from "../kube/token_file.ts";
import type { RevocableDescriptor } from "../daemon/revoke_permissions.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";

/**
 * The hosts file path the `controller` and `binary` permission sets grant read and write of as
 * an entry of its own (the chart mounts the node's `/etc/hosts` there; `--etc-hosts` default).
 */
export const HOSTS_FILE_GRANT = "/host/etc/hosts";

/**
 * What read access remains apart from the hosts file: none, the service-account folder, or
 * whatever was granted.
 */
export type ReadAccess = "none" | "service-account" | "as-granted";

/** What write access remains: none, the hosts file (read too) only, or whatever was granted. */
export type WriteAccess = "none" | "hosts-file" | "as-granted";

/** What the narrowing left in place, for the start-up log line. */
export interface PermissionReport {
  readonly read: ReadAccess;
  readonly write: WriteAccess;
  readonly env: Deno.PermissionState;
  readonly run: Deno.PermissionState;
}

/** What the running mode still needs besides the API server. */
export interface NarrowOptions {
  /** etc-hosts mode: the hosts file, read and written on every reconcile. */
  readonly hostsFile?: string;
  /** `--dry-run`: nothing is written, so write access goes entirely (the hosts file is only read). */
  readonly readOnly?: boolean;
}

function granted(descriptor: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(descriptor).state === "granted";
}

/**
 * What the controller gives up for `config` and the mode (`options`), in order: the explicit
 * list the subcommand skeleton revokes once the controller has started. Pure.
 *
 * @example
 * ```ts
 * import { TokenFileSource } from "../kube/token_file.ts";
 * import { permissionsToRevoke } from "./permissions.ts";
 *
 * const config = {
 *   server: "https://10.96.0.1:443",
 *   caCerts: [],
 *   namespace: "ouroboros",
 *   source: "in-cluster",
 *   credentials: new TokenFileSource("/var/run/secrets/kubernetes.io/serviceaccount/token"),
 * } as const;
 * permissionsToRevoke(config);
 * // read of "/", "/etc/resolv.conf" and "/host/etc/hosts"; write; env, ffi, sys; run
 * ```
 */
export function permissionsToRevoke(
  config: ClusterConfig,
  options: NarrowOptions = {},
): RevocableDescriptor[] {
  const revoke: RevocableDescriptor[] = [];
  const inCluster = config.source === "in-cluster";
  const rereadsOwnFile = config.credentials instanceof TokenFileSource && !inCluster;
  const hostsFile = options.hostsFile;
  // A hosts file the set does not name is reachable only through the `/` entries: keep them.
  const keepsEverything = hostsFile !== undefined && hostsFile !== HOSTS_FILE_GRANT;
  if (!rereadsOwnFile && !keepsEverything) {
    if (inCluster) {
      revoke.push({ name: "read", path: "/" }, { name: "read", path: RESOLV_CONF });
      // The hosts file is an entry of its own, which revoking `/` leaves in place.
      if (hostsFile === undefined) revoke.push({ name: "read", path: HOSTS_FILE_GRANT });
    } else if (hostsFile !== undefined) {
      // Entry by entry, so the hosts file entry stays.
      for (const path of ["/", RESOLV_CONF, SERVICE_ACCOUNT_DIR]) revoke.push({ name: "read", path });
    } else {
      revoke.push({ name: "read" });
    }
  }
  if (hostsFile === undefined || options.readOnly) revoke.push({ name: "write" });
  else if (!keepsEverything) revoke.push({ name: "write", path: "/" });
  revoke.push({ name: "env" }, { name: "ffi" }, { name: "sys" });
  if (!(config.credentials instanceof ExecCredentialSource)) revoke.push({ name: "run" });
  return revoke;
}

/** What remains after {@linkcode permissionsToRevoke}'s list was revoked, for the start-up line. */
export function permissionReport(options: NarrowOptions = {}): PermissionReport {
  const hostsFile = options.hostsFile;
  const read: ReadAccess = granted({ name: "read", path: "/" })
    ? "as-granted"
    : granted({ name: "read", path: SERVICE_ACCOUNT_DIR })
    ? "service-account"
    : "none";
  const write: WriteAccess = granted({ name: "write", path: "/" })
    ? "as-granted"
    : hostsFile !== undefined && granted({ name: "write", path: hostsFile })
    ? "hosts-file"
    : "none";
  return {
    read,
    write,
    env: Deno.permissions.querySync({ name: "env" }).state,
    run: Deno.permissions.querySync({ name: "run" }).state,
  };
}
