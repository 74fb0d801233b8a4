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
 * Environment access goes too (every variable was read at start-up), as do write, ffi and sys,
 * and run unless credentials come from an exec plugin, which must run again when its token
 * expires. The `controller` set grants no run, so exec plugins work only where the operator adds
 * `--allow-run` (see `kube_access.ts`).
 *
 * @module
 */

import { type ClusterConfig, SERVICE_ACCOUNT_DIR } from "../kube/config.ts";
import { ExecCredentialSource } from "../kube/exec_plugin.ts";
import { TokenFileSource } from "../kube/token_file.ts";

/** The file the cluster domain is detected from (read during validation). */
const RESOLV_CONF = "/etc/resolv.conf";

/** What read access remains: none, the service-account folder, or whatever was granted. */
export type ReadAccess = "none" | "service-account" | "as-granted";

/** What {@linkcode narrowPermissions} left in place, for the start-up log line. */
export interface PermissionReport {
  readonly read: ReadAccess;
  readonly env: Deno.PermissionState;
  readonly run: Deno.PermissionState;
}

function granted(descriptor: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(descriptor).state === "granted";
}

/** Revokes what the controller no longer needs for `config`, and reports what remains. */
export function narrowPermissions(config: ClusterConfig): PermissionReport {
  const inCluster = config.source === "in-cluster";
  const rereadsOwnFile = config.credentials instanceof TokenFileSource && !inCluster;
  if (!rereadsOwnFile) {
    if (inCluster) {
      Deno.permissions.revokeSync({ name: "read", path: "/" });
      Deno.permissions.revokeSync({ name: "read", path: RESOLV_CONF });
    } else {
      Deno.permissions.revokeSync({ name: "read" });
    }
  }
  for (const name of ["env", "write", "ffi", "sys"] as const) Deno.permissions.revokeSync({ name });
  if (!(config.credentials instanceof ExecCredentialSource)) Deno.permissions.revokeSync({ name: "run" });
  const read: ReadAccess = granted({ name: "read", path: "/" })
    ? "as-granted"
    : granted({ name: "read", path: SERVICE_ACCOUNT_DIR })
    ? "service-account"
    : "none";
  return {
    read,
    env: Deno.permissions.querySync({ name: "env" }).state,
    run: Deno.permissions.querySync({ name: "run" }).state,
  };
}
