/**
 * The real kubectl 1.35 against the Gateway API route kinds the fake serves for
 * `--gateway-route-kinds`: GRPCRoute at v1 and TLSRoute at v1, v1alpha3 and v1alpha2, so their
 * discovery facts and paths are the ones a real client resolves (and a kind left out is absent
 * from discovery, as a CRD not installed is).
 */

import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { ignoreWithoutKubectl as ignore, ok, withKubectl } from "./kubectl_run.ts";

const GROUP = "gateway.networking.k8s.io";

function route(version: string, kind: string, name: string, hostname: string): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${version}`,
    kind,
    metadata: { name, namespace: "shop" },
    spec: { hostnames: [hostname], parentRefs: [{ name: "gw" }] },
  };
}

function hostnames(list: { items: { spec: { hostnames: string[] } }[] }): string[] {
  return list.items.flatMap((item) => item.spec.hostnames);
}

Deno.test({
  name: "kubectl finds grpcroutes and tlsroutes through discovery, TLSRoute at each version",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  server.create(route("v1", "GRPCRoute", "orders", "grpc.example.com"));
  server.create(route("v1alpha2", "TLSRoute", "db", "db.example.com"));
  await withKubectl(server, async (kubectl) => {
    const rows = ok(await kubectl(["api-resources", "--api-group", GROUP, "--no-headers"])).trim().split("\n")
      .map((line) => line.split(/\s+/));
    const byName = new Map(rows.map((row) => [row[0]!, row]));
    assert.deepEqual(byName.get("grpcroutes"), ["grpcroutes", `${GROUP}/v1`, "true", "GRPCRoute"]);
    assert.deepEqual(byName.get("tlsroutes"), ["tlsroutes", `${GROUP}/v1`, "true", "TLSRoute"]);

    const grpc = JSON.parse(ok(await kubectl(["get", "grpcroutes", "-A", "-o", "json"])));
    assert.deepEqual(hostnames(grpc), ["grpc.example.com"]);
    // The fake keeps each TLSRoute version apart: the object was written at v1alpha2.
    const alpha2 = JSON.parse(
      ok(await kubectl(["get", `tlsroutes.v1alpha2.${GROUP}`, "-n", "shop", "-o", "json"])),
    );
    assert.deepEqual(hostnames(alpha2), ["db.example.com"]);
    assert.equal(alpha2.items[0].apiVersion, `${GROUP}/v1alpha2`);
    assert.equal(alpha2.items[0].metadata.generation, 1, "route kinds keep a generation");
    const alpha3 = JSON.parse(ok(await kubectl(["get", `tlsroutes.v1alpha3.${GROUP}`, "-A", "-o", "json"])));
    assert.deepEqual(alpha3.items, []);
  });
});

Deno.test(
  { name: "kubectl: a route kind left out is absent from discovery, the others stay", ignore },
  async () => {
    await using server = await startFakeApiServer({ omitKinds: ["GRPCRoute", `${GROUP}/v1/TLSRoute`] });
    await withKubectl(server, async (kubectl) => {
      const resources = ok(
        await kubectl(["api-resources", "--api-group", GROUP, "--no-headers", "-o", "name"]),
      );
      assert.doesNotMatch(resources, /grpcroutes/);
      assert.match(resources, /httproutes/);
      const missing = await kubectl(["get", "grpcroutes", "-A"]);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /the server doesn't have a resource type "grpcroutes"/);
      // TLSRoute without v1: kubectl resolves the newest version still served.
      server.create(route("v1alpha3", "TLSRoute", "db", "db.example.com"));
      const tls = JSON.parse(ok(await kubectl(["get", "tlsroutes", "-A", "-o", "json"])));
      assert.deepEqual(hostnames(tls), ["db.example.com"]);
    });
  },
);
