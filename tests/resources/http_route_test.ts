// The shared route shape and its defaults, for every route kind: gateway_route_test.ts.
import assert from "node:assert/strict";
import { decodeHttpRoute, HTTP_ROUTE } from "../../lib/resources/http_route.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = { name: "shop", namespace: "apps", resourceVersion: "5" };

Deno.test("decodeHttpRoute accepts a route without spec", () => {
  const decoded = decodeHttpRoute({ metadata: meta });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.spec, { hostnames: [], parentRefs: [] });
});

Deno.test("decodeHttpRoute refuses malformed fields, naming the field", async (t) => {
  const cases: readonly [string, unknown, string][] = [
    [
      "hostnames a string",
      { metadata: meta, spec: { hostnames: "a.example" } },
      "spec.hostnames is a string, not a list",
    ],
    [
      "hostname a number",
      { metadata: meta, spec: { hostnames: ["a", 2] } },
      "spec.hostnames[1] is a number, not a string",
    ],
    [
      "parentRefs an object",
      { metadata: meta, spec: { parentRefs: { name: "gw" } } },
      "spec.parentRefs is an object, not a list",
    ],
    [
      "parentRef without name",
      { metadata: meta, spec: { parentRefs: [{ namespace: "x" }] } },
      "spec.parentRefs[0].name is missing",
    ],
    [
      "sectionName a number",
      { metadata: meta, spec: { parentRefs: [{ name: "gw", sectionName: 1 }] } },
      "spec.parentRefs[0].sectionName is a number, not a string",
    ],
    [
      "namespace a boolean",
      { metadata: meta, spec: { parentRefs: [{ name: "gw", namespace: false }] } },
      "spec.parentRefs[0].namespace is a boolean, not a string",
    ],
    [
      "group a number",
      { metadata: meta, spec: { parentRefs: [{ name: "gw", group: 0 }] } },
      "spec.parentRefs[0].group is a number, not a string",
    ],
    [
      "kind a list",
      { metadata: meta, spec: { parentRefs: [{ name: "gw", kind: [] }] } },
      "spec.parentRefs[0].kind is an array, not a string",
    ],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeHttpRoute(raw), { ok: false, reason }));
  }
});

Deno.test("HTTP_ROUTE is the Gateway API v1 httproutes resource", () => {
  assert.equal(resourcePath(HTTP_ROUTE, {}), "/apis/gateway.networking.k8s.io/v1/httproutes");
  assert.equal(HTTP_ROUTE.decode, decodeHttpRoute);
});
