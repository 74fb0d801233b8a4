import assert from "node:assert/strict";
import { KubeRequestMetrics, requestResource, requestVerb } from "../../lib/kube/request_metrics.ts";
import { MetricsRegistry } from "../../lib/util/metrics.ts";

Deno.test("paths name the resource, with a subresource after a slash", () => {
  const cases: [string, string][] = [
    ["/api/v1/namespaces/kube-system/configmaps/coredns", "configmaps"],
    ["/api/v1/configmaps", "configmaps"],
    ["/apis/networking.k8s.io/v1/ingresses", "ingresses"],
    ["/apis/networking.k8s.io/v1/namespaces/web/ingresses/shop/status", "ingresses/status"],
    ["/apis/coordination.k8s.io/v1/namespaces/ouroboros/leases/ouroboros", "leases"],
    ["/api/v1/namespaces/ouroboros/pods/proxy-0:8081/proxy/readyz", "pods/proxy"],
    ["/api/v1/namespaces/default", "namespaces"],
    ["/api/v1/namespaces", "namespaces"],
    ["/version", "/version"],
  ];
  for (const [path, resource] of cases) assert.equal(requestResource(path), resource, path);
});

Deno.test("requests are counted under the Kubernetes verb, not the HTTP method", () => {
  assert.equal(requestVerb({ method: "GET" }), "get");
  assert.equal(requestVerb({ method: "GET", verb: "LIST" }), "list");
  assert.equal(requestVerb({ method: "GET", verb: "WATCH" }), "watch");
  assert.equal(requestVerb({ method: "PATCH", verb: "APPLY" }), "apply");
  assert.equal(requestVerb({ method: "PUT" }), "update");
  assert.equal(requestVerb({ method: "DELETE" }), "delete");
});

Deno.test("the counter and histogram render once registered, with <error> for no answer", () => {
  const requests = new KubeRequestMetrics();
  const path = "/api/v1/namespaces/a/configmaps/b";
  requests.record({ verb: "get", path, status: 200, seconds: 0.004 });
  requests.record({ verb: "get", path, status: 200, seconds: 0.2 });
  requests.record({ verb: "update", path, status: 409, seconds: 0.02 });
  requests.record({ verb: "get", path, status: undefined, seconds: 30 });
  const registry = new MetricsRegistry();
  requests.register(registry);
  const text = registry.render();
  assert.match(text, /^ouroboros_kube_requests_total\{verb="get",resource="configmaps",code="200"\} 2$/m);
  assert.match(text, /^ouroboros_kube_requests_total\{verb="update",resource="configmaps",code="409"\} 1$/m);
  assert.match(text, /^ouroboros_kube_requests_total\{verb="get",resource="configmaps",code="<error>"\} 1$/m);
  assert.match(
    text,
    /^ouroboros_kube_request_duration_seconds_count\{verb="get",resource="configmaps"\} 3$/m,
  );
  assert.match(
    text,
    /^ouroboros_kube_request_duration_seconds_bucket\{verb="get",resource="configmaps",le="0.005"\} 1$/m,
  );
  assert.throws(() => requests.register(registry), /already registered/);
});
