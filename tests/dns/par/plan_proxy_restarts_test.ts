/** par's proxy is rolled by a content hash on its pod template, only when the content changes. */

import assert from "node:assert/strict";
import {
  PAR_CONFIG_HASH_ANNOTATION,
  planProxyRestarts,
  proxyConfigHash,
} from "../../../lib/dns/par/plan_proxy_restarts.ts";
import { decodeDeployment, type Deployment } from "../../../lib/resources/deployment.ts";
import { deploymentManifest } from "../answer/fixtures.ts";

function proxyDeployment(
  name: string,
  options: { namespace?: string; label?: string; hash?: string } = {},
): Deployment {
  const manifest = deploymentManifest(name, {
    namespace: options.namespace ?? "par",
    labels: options.label === undefined ? {} : { "par.dev/proxy": options.label },
    resourceVersion: "1",
  }) as { spec: { template: { metadata: Record<string, unknown> } } };
  if (options.hash !== undefined) {
    manifest.spec.template.metadata.annotations = { [PAR_CONFIG_HASH_ANNOTATION]: options.hash };
  }
  const decoded = decodeDeployment(manifest);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value;
}

Deno.test("proxyConfigHash depends on the content only, not on the order of objects or keys", () => {
  const a = proxyConfigHash(new Map([["par/a", { x: "1", y: "2" }], ["par/b", { z: "3" }]]));
  const b = proxyConfigHash(new Map([["par/b", { z: "3" }], ["par/a", { y: "2", x: "1" }]]));
  assert.equal(a, b);
  assert.match(a, /^[0-9a-f]{16}$/);
  assert.notEqual(a, proxyConfigHash(new Map([["par/a", { x: "1", y: "2" }], ["par/b", { z: "4" }]])));
  assert.notEqual(
    proxyConfigHash(new Map([["par/a", { x: "1" }]])),
    proxyConfigHash(new Map([["par/b", { x: "1" }]])),
    "the same text in another ConfigMap is another configuration",
  );
});

Deno.test("planProxyRestarts: the par proxy Deployments without the hash, and only them", () => {
  const deployments = [
    proxyDeployment("proxy", { label: "true" }),
    proxyDeployment("proxy-current", { label: "true", hash: "abc" }),
    proxyDeployment("proxy-stale", { label: "true", hash: "old" }),
    proxyDeployment("elsewhere", { namespace: "shop", label: "true" }),
    proxyDeployment("not-proxy", { label: "false" }),
    proxyDeployment("unlabelled"),
  ];
  const restarts = planProxyRestarts(deployments, { parNamespace: "par", hash: "abc" });
  assert.deepEqual(restarts.map((restart) => restart.deployment.metadata.name), ["proxy", "proxy-stale"]);
  assert.deepEqual(restarts[0]?.patch, {
    spec: { template: { metadata: { annotations: { [PAR_CONFIG_HASH_ANNOTATION]: "abc" } } } },
  });
});
