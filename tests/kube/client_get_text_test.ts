import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import { isForbidden, isNotFound, KubeTransportError } from "../../lib/kube/errors.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";

Deno.test("KubeClient.getText: a proxied endpoint's answer comes back whatever its status; the API server's own errors reject", async () => {
  await using server = await startFakeApiServer();
  await using pod = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("not ready: no reconcile has finished yet\n", { status: 503 }),
  );
  server.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "ouroboros", name: "c" },
    spec: { containers: [{ name: "c", image: "i" }] },
    status: { podIP: "127.0.0.1" },
  });
  using api = new KubeClient({ server: server.url });
  const path = `/api/v1/namespaces/ouroboros/pods/c:${pod.addr.port}/proxy/readyz`;
  assert.deepEqual(await api.getText(path), {
    status: 503,
    text: "not ready: no reconcile has finished yet\n",
  });
  await assert.rejects(api.getText("/api/v1/namespaces/ouroboros/pods/nobody:1/proxy/readyz"), isNotFound);
  server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" });
  await assert.rejects(api.getText(path), isForbidden);
  server.faults.inject("get", { type: "delay", ms: 2_000 });
  await assert.rejects(
    api.getText(path, { timeoutMs: 100 }),
    (error: unknown) => error instanceof KubeTransportError && error.kind === "timeout",
  );
});
