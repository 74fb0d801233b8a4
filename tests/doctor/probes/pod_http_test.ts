import assert from "node:assert/strict";
import { apiserverPodHttp, directPodHttp, type PodHttp } from "../../../lib/doctor/probes/pod_http.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { freePort } from "../../support/daemons.ts";
import { startFakeApiServer } from "../../support/fake_apiserver/mod.ts";

function pod(name: string, port: number): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "ouroboros", name },
    spec: { containers: [{ name: "c", image: "i", ports: [{ name: "health", containerPort: port }] }] },
    status: { phase: "Running", podIP: "127.0.0.1" },
  };
}

Deno.test("pod HTTP, both ways: the pod's answer whatever its status; a closed port is unreachable, never a throw", async () => {
  await using server = await startFakeApiServer();
  await using health = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) =>
      new URL(request.url).pathname === "/readyz"
        ? new Response("backend unreachable (timeout): no answer\n", { status: 503 })
        : new Response("ok\n"),
  );
  const closed = freePort();
  server.create(pod("up", health.addr.port));
  server.create(pod("gone", closed));
  using api = new KubeClient({ server: server.url });
  const ways: PodHttp[] = [directPodHttp({ timeoutMs: 2_000 }), apiserverPodHttp(api, { timeoutMs: 2_000 })];
  for (const http of ways) {
    const signal = AbortSignal.timeout(10_000);
    const up = { namespace: "ouroboros", name: "up", ip: "127.0.0.1", port: health.addr.port };
    assert.deepEqual(await http.get(up, "/readyz", signal), {
      kind: "answered",
      status: 503,
      text: "backend unreachable (timeout): no answer\n",
    }, http.reach);
    assert.deepEqual(await http.get(up, "/healthz", signal), { kind: "answered", status: 200, text: "ok\n" });
    const gone = await http.get(
      { namespace: "ouroboros", name: "gone", ip: "127.0.0.1", port: closed },
      "/readyz",
      signal,
    );
    assert.equal(gone.kind, "unreachable", http.reach);
    assert.match(
      gone.kind === "unreachable" ? gone.why : "",
      http.reach === "direct" ? /failed/ : /error trying to reach service/,
    );
  }
  assert.deepEqual(
    await directPodHttp().get(
      { namespace: "ouroboros", name: "x", port: 1 },
      "/readyz",
      AbortSignal.timeout(1_000),
    ),
    {
      kind: "unreachable",
      why: "the pod has no IP yet",
    },
  );
});

Deno.test("pod HTTP through the API server: a 403 names the verb, resource and namespace; an abort rejects", async () => {
  await using server = await startFakeApiServer();
  server.create(pod("p", 1));
  server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" }, { path: /\/proxy\// });
  using api = new KubeClient({ server: server.url });
  const http = apiserverPodHttp(api);
  const endpoint = { namespace: "ouroboros", name: "p", port: 1 };
  assert.deepEqual(await http.get(endpoint, "/readyz", AbortSignal.timeout(5_000)), {
    kind: "forbidden",
    saw: "not allowed to get pods/proxy in ouroboros",
  });
  const aborted = new AbortController();
  aborted.abort(new Error("deadline"));
  await assert.rejects(http.get(endpoint, "/readyz", aborted.signal), /deadline/);
});
