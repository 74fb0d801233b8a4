import assert from "node:assert/strict";
import { needFindings, type NeedInput } from "../../../lib/doctor/checks/need_check.ts";
import type { Service } from "../../../lib/resources/service.ts";

function lb(ingress: Service["status"]["loadBalancer"]["ingress"], type = "LoadBalancer"): Service {
  return {
    metadata: {
      namespace: "ingress-nginx",
      name: "ingress-nginx-controller",
      resourceVersion: "1",
      uid: "u-1",
      labels: {},
      annotations: {},
      ownerReferences: [],
    },
    spec: { type, clusterIPs: ["10.96.0.100"], clusterIP: "10.96.0.100", ports: [], selector: {} },
    status: { loadBalancer: { ingress } },
  };
}

const V132 = { major: 1, minor: 32 };

Deno.test("needFindings: one verdict per situation an operator meets", () => {
  const cases: readonly { name: string; input: NeedInput; verdict: string; saw: RegExp; todo?: RegExp }[] = [
    {
      name: "VIP (ipMode unset): short-circuited, ouroboros is needed",
      input: { version: V132, services: [lb([{ ip: "203.0.113.10" }])] },
      verdict: "ok",
      saw: /203\.0\.113\.10 has ipMode VIP \(unset\).*ouroboros is needed/,
    },
    {
      name: "explicit VIP",
      input: { version: V132, services: [lb([{ ip: "203.0.113.10", ipMode: "VIP" }])] },
      verdict: "ok",
      saw: /ipMode VIP: in-cluster calls/,
    },
    {
      name: "every address Proxy on 1.32: you may not need us",
      input: { version: V132, services: [lb([{ ip: "203.0.113.10", ipMode: "Proxy" }])] },
      verdict: "warning",
      saw: /ipMode: Proxy \(KEP-1860\).*kube-proxy from 1\.30; Cilium/,
      todo: /you may not need ouroboros/,
    },
    {
      name: "Proxy on 1.29: not honoured by default",
      input: { version: { major: 1, minor: 29 }, services: [lb([{ ip: "203.0.113.10", ipMode: "Proxy" }])] },
      verdict: "warning",
      saw: /older than 1\.30/,
      todo: /keep ouroboros/,
    },
    {
      name: "mixed modes count as short-circuited",
      input: {
        version: V132,
        services: [lb([{ ip: "203.0.113.10", ipMode: "Proxy" }, { ip: "203.0.113.11", ipMode: "VIP" }])],
      },
      verdict: "ok",
      saw: /ipMode Proxy, VIP/,
    },
    {
      name: "hostname only: nothing to short-circuit",
      input: { version: V132, services: [lb([{ hostname: "a1b2.elb.amazonaws.com" }])] },
      verdict: "ok",
      saw: /hostname only \(a1b2\.elb\.amazonaws\.com\).*may not need ouroboros/,
    },
    {
      name: "no address yet",
      input: { version: V132, services: [lb([])] },
      verdict: "warning",
      saw: /no address yet/,
    },
    {
      name: "no LoadBalancer Service at all",
      input: { version: V132, services: [lb([], "ClusterIP")] },
      verdict: "warning",
      saw: /no LoadBalancer Service/,
      todo: /--ingress-service/,
    },
    {
      name: "the configured Service could not be read",
      input: { version: V132, services: [], backendProblem: "not allowed to get services in ingress-nginx" },
      verdict: "could-not-check",
      saw: /not allowed to get services/,
    },
  ];
  for (const { name, input, verdict, saw, todo } of cases) {
    const [finding] = needFindings(input);
    assert.ok(finding !== undefined, name);
    assert.equal(finding.verdict, verdict, name);
    assert.match(finding.saw, saw, name);
    if (todo !== undefined) assert.match(finding.todo ?? "", todo, name);
  }
});

Deno.test("needFindings: an unreadable /version is said, and the rest still judged", () => {
  const findings = needFindings({
    version: { error: "403 Forbidden" },
    services: [lb([{ ip: "203.0.113.10" }])],
  });
  assert.deepEqual(findings.map((finding) => finding.verdict), ["ok", "could-not-check"]);
  assert.match(findings[1]?.saw ?? "", /GET \/version failed: 403 Forbidden/);
});
