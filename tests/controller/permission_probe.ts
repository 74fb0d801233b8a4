/**
 * Permission probe for the controller: run as a child with exactly the `controller` set
 * (`deno run --no-prompt -P=controller tests/controller/permission_probe.ts <configuration>`) by
 * `permissions_test.ts`. It queries what the process may read, narrows permissions the way
 * `ouroboros controller` does for the configuration named by the argument (`in-cluster`,
 * `in-cluster-etc-hosts`, `in-cluster-etc-hosts-dry-run`, `kubeconfig` or
 * `kubeconfig-token-file`), queries again and prints one JSON report.
 *
 * @module
 */

import {
  HOSTS_FILE_GRANT,
  type NarrowOptions,
  type PermissionReport,
  permissionReport,
  permissionsToRevoke,
} from "../../lib/controller/permissions.ts";
import { revokePermissions } from "../../lib/daemon/revoke_permissions.ts";
import { type ClusterConfig, SERVICE_ACCOUNT_DIR } from "../../lib/kube/config.ts";
import { staticCredentials } from "../../lib/kube/credentials.ts";
import { TokenFileSource } from "../../lib/kube/token_file.ts";
import { printStdout } from "../../lib/util/stdio.ts";

/** Permission states of the things the test cares about. */
export interface ProbeRound {
  readonly readAnyFile: Deno.PermissionState;
  readonly readResolvConf: Deno.PermissionState;
  readonly readServiceAccountToken: Deno.PermissionState;
  readonly readHostsFile: Deno.PermissionState;
  readonly writeHostsFile: Deno.PermissionState;
  readonly writeAnyFile: Deno.PermissionState;
  readonly env: Deno.PermissionState;
  readonly run: Deno.PermissionState;
  readonly net: Deno.PermissionState;
}

/** What the probe prints. */
export interface ControllerProbeReport {
  readonly asStarted: ProbeRound;
  readonly afterNarrowing: ProbeRound;
  readonly reported: PermissionReport;
}

function round(): ProbeRound {
  const state = (descriptor: Deno.PermissionDescriptor) => Deno.permissions.querySync(descriptor).state;
  return {
    readAnyFile: state({ name: "read", path: "/usr/share" }),
    readResolvConf: state({ name: "read", path: "/etc/resolv.conf" }),
    readServiceAccountToken: state({ name: "read", path: `${SERVICE_ACCOUNT_DIR}/token` }),
    readHostsFile: state({ name: "read", path: HOSTS_FILE_GRANT }),
    writeHostsFile: state({ name: "write", path: HOSTS_FILE_GRANT }),
    writeAnyFile: state({ name: "write", path: "/tmp" }),
    env: state({ name: "env", variable: "KUBERNETES_SERVICE_HOST" }),
    run: state({ name: "run" }),
    net: state({ name: "net" }),
  };
}

/** What production does in two places (the skeleton revokes, the command reports), in one call. */
function narrowPermissions(config: ClusterConfig, options: NarrowOptions = {}): PermissionReport {
  revokePermissions(permissionsToRevoke(config, options));
  return permissionReport(options);
}

if (import.meta.main) {
  const configuration = Deno.args[0];
  const base = { server: "https://10.96.0.1:443", caCerts: [], namespace: "default" };
  const config: ClusterConfig = configuration?.startsWith("in-cluster")
    ? { ...base, source: "in-cluster", credentials: new TokenFileSource(`${SERVICE_ACCOUNT_DIR}/token`) }
    : configuration === "kubeconfig-token-file"
    ? { ...base, source: "kubeconfig /x, context y", credentials: new TokenFileSource("/x/token") }
    : { ...base, source: "kubeconfig /x, context y", credentials: staticCredentials({}, "token of user y") };
  const asStarted = round();
  const reported = narrowPermissions(
    config,
    configuration?.startsWith("in-cluster-etc-hosts")
      ? { hostsFile: HOSTS_FILE_GRANT, readOnly: configuration.endsWith("-dry-run") }
      : {},
  );
  const report: ControllerProbeReport = { asStarted, afterNarrowing: round(), reported };
  printStdout(`${JSON.stringify(report)}\n`);
}
