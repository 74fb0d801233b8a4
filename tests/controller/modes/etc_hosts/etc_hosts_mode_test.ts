/**
 * etc-hosts mode as the controller sees it: a hosts file cannot express a wildcard, so the mode
 * does not claim wildcards and the controller keeps them from its sink (and warns, once per
 * object change; see `tests/controller/runtime_test.ts`).
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../../../lib/kube/client.ts";
import { DEFAULT_MARKERS } from "../../../../lib/controller/modes/markers.ts";
import type { ModeContext } from "../../../../lib/controller/modes/sink.ts";
import { etcHostsMode } from "../../../../lib/controller/modes/etc_hosts/etc_hosts_mode.ts";

Deno.test("etcHostsMode() keeps its hosts file and does not take wildcards", () => {
  using client = new KubeClient({ server: "http://127.0.0.1:9" });
  const context: ModeContext = {
    client,
    recorder: { record: () => Promise.resolve({ kind: "suppressed" }) },
    watch: () => {
      throw new Error("etc-hosts mode watches nothing");
    },
    podNamespace: undefined,
  };
  const mode = etcHostsMode(
    { path: "/host/etc/hosts", proxyIp: "10.96.0.50", markers: DEFAULT_MARKERS },
    context,
  );
  assert.equal(mode.hostsFile, "/host/etc/hosts");
  assert.notEqual(mode.wildcards, true);
});
