/**
 * Permission probe: run as a child with exactly the proxy's permission set
 * (`deno run --no-prompt -P=proxy tests/support/permission_probe.ts`) by
 * `tests/permissions_test.ts`. It tries what the proxy needs and what it must not be
 * able to do, first as started and then after giving up permissions the way `ouroboros proxy`
 * does, and prints one JSON {@linkcode ProbeReport} on stdout.
 *
 * Each check records `"ok"` when the operation succeeded, or the error's class name
 * (`"NotCapable"`, `"NotFound"`, …) when it threw, so the test sees exactly why something
 * failed.
 *
 * @module
 */

import { PROXY_REVOKED_PERMISSIONS } from "../../lib/proxy/proxy_command.ts";
import { RESOLV_CONF } from "../../lib/util/resolv_conf.ts";
import { revokePermissions } from "../../lib/daemon/revoke_permissions.ts";
import { printStdout } from "../../lib/util/stdio.ts";

/** The environment variable the test sets for the probe to read back. */
export const PROBE_ENV = "OUROBOROS_PROXY_PERMISSION_PROBE";

/** Outcome of one attempted operation: `"ok"` or the name of the error it threw. */
export type Outcome = string;

/** One round of checks. */
export interface ProbeRound {
  /** Reading the declared `OUROBOROS_PROXY_*` variable; on success, `value` holds what was read. */
  readonly readProxyEnv: { readonly outcome: Outcome; readonly value?: string };
  readonly readResolvConf: Outcome;
  readonly readPasswd: Outcome;
  readonly readHomeEnv: Outcome;
  readonly writeFile: Outcome;
  readonly spawnProcess: Outcome;
  readonly listenTcp: Outcome;
}

/** What the probe prints: checks with the start-up permissions, then after revocation. */
export interface ProbeReport {
  readonly asStarted: ProbeRound;
  readonly afterRevoke: ProbeRound;
  readonly revoked: readonly string[];
}

function attempt(operation: () => void): Outcome {
  try {
    operation();
    return "ok";
  } catch (error) {
    return error instanceof Error ? error.constructor.name : typeof error;
  }
}

function round(writeTarget: string): ProbeRound {
  let value: string | undefined;
  const readProxyEnv = attempt(() => {
    value = Deno.env.get(PROBE_ENV);
  });
  return {
    readProxyEnv: value === undefined ? { outcome: readProxyEnv } : { outcome: readProxyEnv, value },
    readResolvConf: attempt(() => Deno.readTextFileSync(RESOLV_CONF)),
    readPasswd: attempt(() => Deno.readTextFileSync("/etc/passwd")),
    readHomeEnv: attempt(() => Deno.env.get("HOME")),
    writeFile: attempt(() => Deno.writeTextFileSync(writeTarget, "the proxy must not write files\n")),
    // An absolute path: with a cleared environment a bare name would fail on the PATH lookup first.
    spawnProcess: attempt(() => new Deno.Command("/bin/sh", { args: ["-c", "exit 0"] }).outputSync()),
    listenTcp: attempt(() => Deno.listen({ hostname: "127.0.0.1", port: 0 }).close()),
  };
}

if (import.meta.main) {
  // The write target is passed in so a probe that wrongly could write leaves the file where the
  // test cleans up.
  const writeTarget = Deno.args[0] ?? "/tmp/ouroboros-permission-probe";
  const asStarted = round(writeTarget);
  revokePermissions(PROXY_REVOKED_PERMISSIONS);
  const afterRevoke = round(writeTarget);
  const report: ProbeReport = {
    asStarted,
    afterRevoke,
    revoked: PROXY_REVOKED_PERMISSIONS.map((descriptor) => descriptor.name),
  };
  printStdout(`${JSON.stringify(report)}\n`);
}
