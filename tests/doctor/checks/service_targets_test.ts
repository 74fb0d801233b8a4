import assert from "node:assert/strict";
import { serviceTargets } from "../../../lib/doctor/checks/service_targets.ts";
import type { Service, ServicePort } from "../../../lib/resources/service.ts";

function service(clusterIPs: readonly string[], ports: readonly ServicePort[], clusterIP?: string): Service {
  return {
    metadata: {
      namespace: "ouroboros",
      name: "ouroboros-proxy",
      resourceVersion: "1",
      uid: "u",
      labels: {},
      annotations: {},
      ownerReferences: [],
    },
    spec: {
      type: "ClusterIP",
      clusterIPs,
      ports,
      selector: {},
      ...(clusterIP === undefined ? {} : { clusterIP }),
    },
    status: { loadBalancer: { ingress: [] } },
  };
}

Deno.test("serviceTargets: named ports first, then 80/443; every family's ClusterIP; headless has none", () => {
  const tcp = (port: number, name?: string): ServicePort => ({
    protocol: "TCP",
    port,
    ...(name ? { name } : {}),
  });
  const cases: readonly [string, Service, ReturnType<typeof serviceTargets>][] = [
    ["the chart's names", service(["10.96.0.50", "fd00::50"], [tcp(8080, "http"), tcp(8443, "https")]), {
      addresses: ["10.96.0.50", "fd00::50"],
      httpPort: 8080,
      httpsPort: 8443,
    }],
    ["numbers without names", service(["10.96.0.50"], [tcp(443), tcp(80)]), {
      addresses: ["10.96.0.50"],
      httpPort: 80,
      httpsPort: 443,
    }],
    ["a name wins over a number", service(["10.96.0.50"], [tcp(80, "metrics"), tcp(81, "http")]), {
      addresses: ["10.96.0.50"],
      httpPort: 81,
    }],
    ["UDP does not count", service(["10.96.0.50"], [{ protocol: "UDP", port: 80, name: "http" }]), {
      addresses: ["10.96.0.50"],
    }],
    ["clusterIP only", service([], [], "10.96.0.51"), { addresses: ["10.96.0.51"] }],
    ["headless", service(["None"], [tcp(80)], "None"), { addresses: [], httpPort: 80 }],
  ];
  for (const [name, given, expected] of cases) assert.deepEqual(serviceTargets(given), expected, name);
});
