import assert from "node:assert/strict";
import { decodeService } from "../../../../lib/resources/service.ts";
import {
  targetsFromAddresses,
  targetsFromService,
} from "../../../../lib/controller/modes/external_dns/targets.ts";

function service(spec: Record<string, unknown>) {
  const decoded = decodeService({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "ouroboros-proxy", namespace: "ouroboros", resourceVersion: "1" },
    spec,
  });
  assert.ok(decoded.ok);
  return decoded.value;
}

Deno.test("targetsFromService: cluster IPs by family, canonical, in Service order", async (t) => {
  const cases: [string, Record<string, unknown>, string[], string[]][] = [
    ["single stack", { clusterIP: "10.96.0.7", clusterIPs: ["10.96.0.7"] }, ["10.96.0.7"], []],
    ["dual stack, v6 first", { clusterIPs: ["fd00:0:0:0:0:0:0:7", "10.96.0.7"] }, ["10.96.0.7"], ["fd00::7"]],
    ["IPv6 only, upper case", { clusterIPs: ["FD00::A"] }, [], ["fd00::a"]],
    ["old server: clusterIP only", { clusterIP: "10.0.0.1" }, ["10.0.0.1"], []],
    ["IPv4-mapped counts as IPv4", { clusterIPs: ["::ffff:10.0.0.9"] }, ["10.0.0.9"], []],
    ["duplicates dropped", { clusterIPs: ["10.0.0.1", "10.0.0.1"] }, ["10.0.0.1"], []],
  ];
  for (const [name, spec, ipv4, ipv6] of cases) {
    await t.step(name, () => {
      const result = targetsFromService(service(spec));
      assert.equal(result.kind, "resolved", JSON.stringify(result));
      assert.deepEqual(result.kind === "resolved" && result.targets, { ipv4, ipv6 });
    });
  }
});

Deno.test("targetsFromService: clear problems instead of targets", async (t) => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    [
      "headless",
      { clusterIP: "None", clusterIPs: ["None"] },
      "headless",
      /ouroboros\/ouroboros-proxy is headless/,
    ],
    ["headless, clusterIP only", { clusterIP: "None" }, "headless", /headless/],
    ["not allocated yet", {}, "no-cluster-ip", /has no ClusterIP yet$/],
    [
      "ExternalName",
      { type: "ExternalName", externalName: "x.example.com" },
      "no-cluster-ip",
      /ExternalName/,
    ],
    ["garbage address", { clusterIPs: ["10.0.0.300"] }, "invalid-address", /"10.0.0.300" is not an IP/],
  ];
  for (const [name, spec, problem, message] of cases) {
    await t.step(name, () => {
      const result = targetsFromService(service(spec));
      assert.equal(result.kind, "unusable");
      assert.equal(result.kind === "unusable" && result.problem, problem);
      assert.match(result.kind === "unusable" ? result.message : "", message);
    });
  }
});

Deno.test("targetsFromAddresses: one explicit address, and refusals of what is not an address", () => {
  assert.deepEqual(targetsFromAddresses(["10.1.2.3"], "--external-dns-proxy-ip"), {
    kind: "resolved",
    targets: { ipv4: ["10.1.2.3"], ipv6: [] },
    origin: "--external-dns-proxy-ip",
  });
  for (const bad of ["", "proxy.example.com", "010.1.2.3", "fe80::1%eth0", "[fd00::1]", "10.0.0.1 "]) {
    const result = targetsFromAddresses([bad], "--external-dns-proxy-ip");
    assert.equal(result.kind, "unusable", bad);
  }
  assert.equal(targetsFromAddresses([], "x").kind, "unusable");
});
