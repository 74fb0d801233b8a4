/**
 * What the controller gives up once started. The `controller` set grants read and write of `/`
 * (the kubeconfig and the files it names are known only at run time) beside entries of their own.
 * Revoking a path revokes every entry containing it but none inside it, so revoking `/` keeps the
 * {@linkcode HOSTS_FILE_GRANT} entry. A `tokenFile` kubeconfig or another `--etc-hosts` path keeps
 * `/` (Deno cannot narrow it to one file); run stays only for exec credential plugins.
 *
 * `permissionsToRevoke` is pure; `permissionReport` queries the process's permissions.
 *
 * @module
 */

import { type ClusterConfig, SERVICE_ACCOUNT_DIR } from "../kube/config.ts";
import { ExecCredentialSource } from "../kube/exec_plugin.ts";
import { TokenFileSource } from "../kube/token_file.ts";
import type { RevocableDescriptor } from "../daemon/revoke_permissions.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";

/** The hosts file the permission sets grant as an entry of its own (where the chart mounts it). */
export const HOSTS_FILE_GRANT = "/host/etc/hosts";

/** What read access remains apart from the hosts file. */
export type ReadAccess = "none" | "service-account" | "as-granted";

/** What write access remains. */
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
  /** `--dry-run`: write access goes entirely (the hosts file is only read). */
  readonly readOnly?: boolean;
}

function granted(descriptor: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(descriptor).state === "granted";
}

/** What the skeleton revokes once the controller has started, for `config` and the mode. Pure. */
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
