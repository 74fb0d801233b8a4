import assert from "node:assert/strict";
import { dnsEndpointName, serviceName } from "../../../../lib/controller/modes/external_dns/record_names.ts";
import type { HostSource } from "../../../../lib/hostnames/sources.ts";
import {
  type BuildInput,
  buildRecords,
  type HostBuild,
  recordGroups,
} from "../../../../lib/controller/modes/external_dns/build_records.ts";
import { INSTANCE, NAMESPACE, ownedLabels, PREFIX, resolved, settings } from "./support.ts";

function built(build: HostBuild | undefined): Extract<HostBuild, { kind: "built" }> {
  assert.ok(build !== undefined && build.kind === "built", `not built: ${JSON.stringify(build)}`);
  return build;
}

Deno.test("crd output: an IPv4-only proxy gives one DNSEndpoint with an A record", () => {
  const [build] = buildRecords({
    hosts: ["shop.example.com"],
    targets: resolved(["10.96.0.10"]),
    settings: settings(),
  });
  const { records } = built(build);
  assert.equal(records.length, 1);
  assert.deepEqual(records[0]!.manifest, {
    apiVersion: "externaldns.k8s.io/v1alpha1",
    kind: "DNSEndpoint",
    metadata: {
      name: dnsEndpointName("shop.example.com", 4),
      namespace: NAMESPACE,
      labels: ownedLabels(),
      annotations: { "ouroboros.lexfrei.tech/source": "unknown" },
    },
    spec: {
      endpoints: [{ dnsName: "shop.example.com", recordType: "A", recordTTL: 60, targets: ["10.96.0.10"] }],
    },
  });
});

Deno.test("crd output: dual-stack gives an A record with every IPv4 target and an AAAA with every IPv6", () => {
  const [build] = buildRecords({
    hosts: ["shop.example.com"],
    targets: resolved(["10.96.0.10", "10.96.1.10"], ["fd00::10", "fd00::11"]),
    settings: settings({ recordTtl: 300 }),
  });
  const endpoints = built(build).records.map((record) => ({
    name: record.name,
    spec: record.manifest.spec,
  }));
  assert.deepEqual(endpoints, [
    {
      name: dnsEndpointName("shop.example.com", 4),
      spec: {
        endpoints: [{
          dnsName: "shop.example.com",
          recordType: "A",
          recordTTL: 300,
          targets: ["10.96.0.10", "10.96.1.10"],
        }],
      },
    },
    {
      name: dnsEndpointName("shop.example.com", 6),
      spec: {
        endpoints: [{
          dnsName: "shop.example.com",
          recordType: "AAAA",
          recordTTL: 300,
          targets: ["fd00::10", "fd00::11"],
        }],
      },
    },
  ]);
});

Deno.test("crd output: an IPv6-only proxy gives only the AAAA record", () => {
  const [build] = buildRecords({
    hosts: ["shop.example.com"],
    targets: resolved([], ["fd00::10"]),
    settings: settings(),
  });
  assert.deepEqual(built(build).records.map((record) => record.name), [
    dnsEndpointName("shop.example.com", 6),
  ]);
});

Deno.test("service output: one headless Service, no selector, no ports, the three prefixed annotations", () => {
  const [build] = buildRecords({
    hosts: ["shop.example.com"],
    targets: resolved(["10.96.0.10"], ["fd00::10"]),
    settings: settings({ output: "service", recordTtl: 120 }),
  });
  const { records } = built(build);
  assert.equal(records.length, 1);
  assert.deepEqual(records[0]!.manifest, {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: serviceName("shop.example.com"),
      namespace: NAMESPACE,
      labels: ownedLabels(),
      annotations: {
        "ouroboros.lexfrei.tech/source": "unknown",
        [`${PREFIX}hostname`]: "shop.example.com",
        [`${PREFIX}target`]: "10.96.0.10,fd00::10",
        [`${PREFIX}ttl`]: "120",
      },
    },
    spec: { type: "ClusterIP", clusterIP: "None" },
  });
});

Deno.test("service output: a custom prefix names the keys exactly; targets are IPv4 first, then IPv6", () => {
  const [build] = buildRecords({
    hosts: ["shop.example.com"],
    targets: resolved(["10.0.0.1", "10.0.0.2"], ["fd00::1"]),
    settings: settings({ output: "service", annotationPrefix: "internal-dns/" }),
  });
  const annotations = built(build).records[0]!.annotations;
  assert.deepEqual(Object.keys(annotations).sort(), [
    "internal-dns/hostname",
    "internal-dns/target",
    "internal-dns/ttl",
    "ouroboros.lexfrei.tech/source",
  ]);
  assert.equal(annotations["internal-dns/target"], "10.0.0.1,10.0.0.2,fd00::1");
});

Deno.test("labels: the operator's are kept, the ownership labels always win", () => {
  const [build] = buildRecords({
    hosts: ["shop.example.com"],
    targets: resolved(["10.0.0.1"]),
    settings: settings({
      labels: {
        team: "edge",
        "app.kubernetes.io/managed-by": "helm",
        "ouroboros.lexfrei.tech/instance": "other",
      },
    }),
  });
  assert.deepEqual(built(build).records[0]!.labels, ownedLabels({ team: "edge" }));
});

Deno.test("annotations: the operator's are kept; ours (source, and the prefixed ones) always win", () => {
  const [build] = buildRecords({
    hosts: ["shop.example.com"],
    targets: resolved(["10.0.0.1"]),
    settings: settings({
      output: "service",
      annotations: {
        "external-dns.alpha.kubernetes.io/cloudflare-proxied": "false",
        [`${PREFIX}hostname`]: "evil.example.com",
        "ouroboros.lexfrei.tech/source": "forged",
      },
    }),
  });
  const annotations = built(build).records[0]!.annotations;
  assert.equal(annotations["external-dns.alpha.kubernetes.io/cloudflare-proxied"], "false");
  assert.equal(annotations[`${PREFIX}hostname`], "shop.example.com");
  assert.equal(annotations["ouroboros.lexfrei.tech/source"], "unknown");
});

Deno.test("the source annotation names the real kinds a hostname came from, in a fixed order", async (t) => {
  const cases: [string, readonly HostSource[] | undefined, string][] = [
    ["Ingress", ["ingress"], "ingress"],
    ["Gateway listener", ["gateway-listener"], "gateway-listener"],
    ["HTTPRoute", ["httproute"], "httproute"],
    ["several, any order, duplicates", ["httproute", "ingress", "httproute"], "ingress,httproute"],
    ["nobody said", undefined, "unknown"],
    ["said nothing", [], "unknown"],
  ];
  for (const [name, kinds, expected] of cases) {
    await t.step(name, () => {
      const sources = new Map<string, readonly HostSource[]>(
        kinds === undefined ? [] : [["a.example.com", kinds]],
      );
      const [build] = buildRecords({
        hosts: ["a.example.com"],
        targets: resolved(["10.0.0.1"]),
        settings: settings(),
        sources,
      });
      assert.equal(built(build).records[0]!.annotations["ouroboros.lexfrei.tech/source"], expected);
    });
  }
});

Deno.test("hostnames are built once each, sorted", () => {
  const builds = buildRecords({
    hosts: ["b.example.com", "a.example.com", "b.example.com"],
    targets: resolved(["10.0.0.1"]),
    settings: settings(),
  });
  assert.deepEqual(builds.map((build) => build.host), ["a.example.com", "b.example.com"]);
});

Deno.test("a hostname that is not a lower-case DNS name fails alone; the others are built", async (t) => {
  const bad = [
    "*",
    "*.com",
    "a.*.example.com",
    "**.example.com",
    "*foo.example.com",
    "?.example.com",
    "*.Example.com",
    "Shop.example.com",
    "shop..example.com",
    ".example.com",
    "-shop.example.com",
    "shop-.example.com",
    "shop example.com",
    `${"a".repeat(64)}.example.com`,
    `${"a.".repeat(127)}com`,
    "shop.example.com.",
    "",
  ];
  for (const host of bad) {
    await t.step(JSON.stringify(host), () => {
      const builds = buildRecords({
        hosts: [host, "good.example.com"],
        targets: resolved(["10.0.0.1"]),
        settings: settings(),
      });
      const failed = builds.find((build) => build.host === host);
      assert.equal(failed?.kind, "failed");
      assert.equal(failed.kind === "failed" && failed.problem, "invalid-hostname");
      assert.equal(builds.find((build) => build.host === "good.example.com")?.kind, "built");
    });
  }
  const builds = buildRecords({
    hosts: ["_acme-challenge.example.com", "x.y"],
    targets: resolved(["10.0.0.1"]),
    settings: settings(),
  });
  assert.deepEqual(
    builds.map((build) => build.kind),
    ["built", "built"],
    "underscores and short names are names",
  );
});

Deno.test("without usable targets every hostname fails, carrying the reason", async (t) => {
  const cases: [string, BuildInput["targets"], RegExp][] = [
    ["not resolved yet", undefined, /not been resolved yet/],
    [
      "headless proxy Service",
      { kind: "unusable", problem: "headless", message: "Service ouroboros/proxy is headless" },
      /is headless/,
    ],
    ["resolved to nothing", resolved([], []), /no address/],
  ];
  for (const [name, targets, message] of cases) {
    await t.step(name, () => {
      const builds = buildRecords({
        hosts: ["a.example.com", "b.example.com"],
        targets,
        settings: settings(),
      });
      for (const build of builds) {
        assert.equal(build.kind, "failed");
        assert.equal(build.kind === "failed" && build.problem, "no-targets");
        assert.match(build.kind === "failed" ? build.message : "", message);
      }
    });
  }
});

Deno.test("settings that cannot make a valid object fail every hostname", async (t) => {
  const cases: [string, Parameters<typeof settings>[0], RegExp][] = [
    ["TTL 0", { recordTtl: 0 }, /TTL 0 is outside/],
    ["TTL over a day", { recordTtl: 86_401 }, /TTL 86401 is outside/],
    ["fractional TTL", { recordTtl: 1.5 }, /TTL 1.5/],
    [
      "service prefix without slash",
      { output: "service", annotationPrefix: "internal-dns" },
      /end with '\/'/,
    ],
    ["no instance", { instance: "" }, /instance/],
    ["no namespace", { namespace: "" }, /namespace/],
    ["instance that would widen the selector", { instance: "edge,!x" }, /not a valid label value/],
    ["instance too long for a label", { instance: "i".repeat(64) }, /not a valid label value/],
    ["operator label value with a space", { labels: { team: "edge ops" } }, /label "team" is not a valid/],
  ];
  for (const [name, overrides, message] of cases) {
    await t.step(name, () => {
      const [build] = buildRecords({
        hosts: ["a.example.com"],
        targets: resolved(["10.0.0.1"]),
        settings: settings(overrides),
      });
      assert.equal(build?.kind, "failed");
      assert.equal(build.kind === "failed" && build.problem, "invalid-settings");
      assert.match(build.kind === "failed" ? build.message : "", message);
    });
  }
  const [crd] = buildRecords({
    hosts: ["a.example.com"],
    targets: resolved(["10.0.0.1"]),
    settings: settings({ annotationPrefix: "x" }),
  });
  assert.equal(crd?.kind, "built", "the prefix only matters to output=service");
  const [edge] = buildRecords({
    hosts: ["a.example.com"],
    targets: resolved(["10.0.0.1"]),
    settings: settings({ recordTtl: 86_400 }),
  });
  assert.equal(edge?.kind, "built");
  assert.equal(INSTANCE, built(edge).records[0]!.labels["ouroboros.lexfrei.tech/instance"]);
});

Deno.test("recordGroups: one group per hostname, holding every name it may have, built or not", () => {
  const builds = buildRecords({
    hosts: ["a.*.example.com", "shop.example.com"],
    targets: resolved(["10.0.0.1"]),
    settings: settings(),
  });
  assert.deepEqual(
    recordGroups(builds, "crd").map((group) => [group.key, group.names, group.objects?.length]),
    [
      [
        "a.*.example.com",
        [dnsEndpointName("a.*.example.com", 4), dnsEndpointName("a.*.example.com", 6)],
        undefined,
      ],
      [
        "shop.example.com",
        [dnsEndpointName("shop.example.com", 4), dnsEndpointName("shop.example.com", 6)],
        1,
      ],
    ],
  );
  const services = buildRecords({
    hosts: ["shop.example.com"],
    targets: resolved(["10.0.0.1"]),
    settings: settings({ output: "service" }),
  });
  assert.deepEqual(recordGroups(services, "service")[0]?.names, [serviceName("shop.example.com")]);
});

Deno.test("a wildcard is published as the wildcard record *.<domain>, under a name of its own", () => {
  const builds = buildRecords({
    hosts: ["*.example.com", "example.com"],
    targets: resolved(["10.96.0.10"]),
    settings: settings(),
  });
  const wildcard = built(builds.find((build) => build.host === "*.example.com"));
  const exact = built(builds.find((build) => build.host === "example.com"));
  assert.deepEqual(wildcard.records[0]!.manifest.spec, {
    endpoints: [{ dnsName: "*.example.com", recordType: "A", recordTTL: 60, targets: ["10.96.0.10"] }],
  });
  const name = wildcard.records[0]!.manifest.metadata.name;
  assert.equal(name, dnsEndpointName("*.example.com", 4));
  assert.match(name, /^ouroboros-wildcard-example-com-[0-9a-f]{12}-v4$/);
  assert.notEqual(name, exact.records[0]!.manifest.metadata.name);
  const service = built(
    buildRecords({
      hosts: ["*.example.com"],
      targets: resolved(["10.96.0.10"]),
      settings: settings({ output: "service" }),
    })[0],
  );
  assert.equal(service.records[0]!.manifest.metadata.annotations?.[`${PREFIX}hostname`], "*.example.com");
  assert.match(serviceName("*.example.com"), /^ouroboros-wildcard-example-com-[0-9a-f]{12}$/);
});
