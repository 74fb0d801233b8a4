/**
 * The real kubectl 1.35 against the fake API server's `pods/{name}:{port}/proxy/{path}`
 * subresource: `kubectl get --raw` reaches a process listening on the pod's `status.podIP` and
 * port, through the fake, as it reaches a pod's health endpoint through a real API server.
 */

import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { freePort } from "../support/daemons.ts";
import { ignoreWithoutKubectl as ignore, ok, withKubectl } from "./kubectl_run.ts";

function pod(name: string, port: number): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "ouroboros", name },
    spec: {
      containers: [{ name: "proxy", image: "ouroboros", ports: [{ name: "health", containerPort: port }] }],
    },
    status: { phase: "Running", podIP: "127.0.0.1" },
  };
}

Deno.test({ name: "kubectl get --raw reaches a pod's /readyz through pods/proxy", ignore }, async () => {
  await using server = await startFakeApiServer();
  await using health = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    return path === "/readyz"
      ? new Response("backend unreachable (connection-refused): Connection refused (os error 111)\n", {
        status: 503,
      })
      : new Response(`ok ${path}\n`);
  });
  const port = health.addr.port;
  server.create(pod("proxy-1", port));
  const closed = await freePort();
  server.create(pod("proxy-gone", closed));
  await withKubectl(server, async (kubectl) => {
    const path = "/api/v1/namespaces/ouroboros/pods";
    assert.equal(
      ok(await kubectl(["get", "--raw", `${path}/proxy-1:${port}/proxy/healthz`])),
      "ok /healthz\n",
    );
    // A named port resolves through the pod's container ports, as on a real API server.
    assert.equal(
      ok(await kubectl(["get", "--raw", `${path}/proxy-1:health/proxy/metrics`])),
      "ok /metrics\n",
    );

    const notReady = await kubectl(["get", "--raw", `${path}/proxy-1:${port}/proxy/readyz`]);
    assert.notEqual(notReady.code, 0);
    // kubectl shows a pod's own 503 as the API server's generic one; -v=8 prints the body.
    assert.match(notReady.stderr, /ServiceUnavailable/);
    const verbose = await kubectl(["get", "--raw", `${path}/proxy-1:${port}/proxy/readyz`, "-v=8"]);
    assert.match(verbose.stderr, /Response Body[\s\S]*backend unreachable \(connection-refused\)/);

    const gone = await kubectl(["get", "--raw", `${path}/proxy-gone:${closed}/proxy/readyz`]);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /error trying to reach service/);

    const missing = await kubectl(["get", "--raw", `${path}/nobody:${port}/proxy/readyz`]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /pods "nobody" not found/);
  });
});
