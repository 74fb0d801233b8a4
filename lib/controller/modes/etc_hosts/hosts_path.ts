/**
 * Which paths etc-hosts mode may write to, judged from the text alone.
 *
 * Pure: no I/O.
 *
 * The controller writes as root, so a mistyped or hostile `--etc-hosts` must not name another
 * file: the base name must be `hosts` and no `..` is allowed. Links are checked by the writer.
 *
 * @module
 */

import { type HostsRefusal, hostsRefusal } from "./hosts_problems.ts";

/** The only file name etc-hosts mode writes. */
export const HOSTS_BASENAME = "hosts";

/**
 * The refusal for a path that may not be written, or `undefined` when the text is acceptable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostsPathProblem } from "./hosts_path.ts";
 *
 * assert.equal(hostsPathProblem("/host/etc/hosts"), undefined);
 * assert.equal(hostsPathProblem("/host/etc/shadow")?.problem, "unsafe-path");
 * ```
 */
export function hostsPathProblem(path: string): HostsRefusal | undefined {
  if (path === "") {
    return hostsRefusal(
      "unsafe-path",
      "the hosts file path is empty: set --etc-hosts (default /host/etc/hosts)",
    );
  }
  const parts = path.split("/");
  const basename = parts.at(-1);
  if (path.includes("\0") || basename !== HOSTS_BASENAME) {
    return hostsRefusal(
      "unsafe-path",
      `refusing to write ${JSON.stringify(path)}: its file name must be "hosts" (this guard keeps a ` +
        "mistyped or hostile --etc-hosts from overwriting another file as root)",
    );
  }
  if (parts.includes("..")) {
    return hostsRefusal(
      "unsafe-path",
      `refusing to write ${
        JSON.stringify(path)
      }: it has a ".." component; give the direct path of the mounted file`,
    );
  }
  return undefined;
}
