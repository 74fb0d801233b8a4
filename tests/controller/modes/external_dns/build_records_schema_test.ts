/**
 * The rendered records against independent judges: the Kubernetes OpenAPI schema of Service (via
 * `kubernetes-models`), external-dns' DNSEndpoint CRD shape (checked by hand: the package has no
 * schema for it), and the real kubectl creating them on the fake API server.
 */

import assert from "node:assert/strict";
import { Service as ServiceModel } from "npm:kubernetes-models@5.1.0/v1/Service";
import type { Manifest } from "../../../../lib/kube/client.ts";
import {
  buildRecords,
  type RecordSettings,
} from "../../../../lib/controller/modes/external_dns/build_records.ts";
import type { TargetsResult } from "../../../../lib/controller/modes/external_dns/targets.ts";
import { startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { installKubeTools, requireKubeTools, skipWithoutKubectl } from "../../../support/kubectl.ts";
import { DNS1035_LABEL, dnsEndpointProblems, resolved, settings } from "./support.ts";
import { tempDir } from "../../../support/temp_dir.ts";

const tools = await installKubeTools();

const LONG = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
const HOSTS = ["shop.example.com", "a.b.com", "a-b.com", "a_b.com", "_acme.example.com", LONG];
const TARGETS: TargetsResult[] = [
  resolved(["10.96.0.10"]),
  resolved([], ["fd00::10"]),
  resolved(["10.96.0.10", "10.96.1.1"], ["fd00::10", "fd00::11"]),
];
const VARIANTS: RecordSettings[] = [
  settings(),
  settings({
    recordTtl: 86_400,
    labels: { team: "edge", "example.com/tier": "1" },
    annotations: { "external-dns.alpha.kubernetes.io/cloudflare-proxied": "false" },
  }),
];

/** A Service model of `raw`, which is what the test wants judged (any shape). */
function serviceModel(raw: unknown): ServiceModel {
  return new ServiceModel(structuredClone(raw) as ConstructorParameters<typeof ServiceModel>[0]);
}

function manifests(output: "crd" | "service"): Manifest[] {
  const out: Manifest[] = [];
  for (const targets of TARGETS) {
    for (const variant of VARIANTS) {
      for (
        const build of buildRecords({
          hosts: HOSTS,
          targets,
          settings: { ...variant, output, annotationPrefix: "internal-dns/" },
        })
      ) {
        assert.equal(build.kind, "built");
        if (build.kind === "built") out.push(...build.records.map((record) => record.manifest));
      }
    }
  }
  return out;
}

Deno.test("rendered Services validate against the Kubernetes v1 Service schema", () => {
  const rendered = manifests("service");
  assert.equal(rendered.length, HOSTS.length * TARGETS.length * VARIANTS.length);
  for (const manifest of rendered) {
    serviceModel(manifest).validate();
    assert.match(String(manifest.metadata.name), DNS1035_LABEL);
    assert.ok(String(manifest.metadata.name).length <= 63);
  }
  // The schema is a real judge: a wrong type in the same place is refused.
  const broken = { ...structuredClone(rendered[0]!), spec: { clusterIP: 5 } };
  assert.throws(() => serviceModel(broken).validate(), /clusterIP must be string/);
});

Deno.test("rendered DNSEndpoints have the CRD's shape and external-dns' A/AAAA rules", () => {
  const rendered = manifests("crd");
  assert.equal(rendered.length, HOSTS.length * VARIANTS.length * (1 + 1 + 2));
  for (const manifest of rendered) {
    assert.deepEqual(dnsEndpointProblems(manifest), [], JSON.stringify(manifest));
  }
  // The checker is a real judge: each of these mistakes is caught.
  const good = structuredClone(rendered[0]!) as Manifest & { spec: { endpoints: Record<string, unknown>[] } };
  const mistakes: [string, (endpoint: Record<string, unknown>) => void][] = [
    ["trailing-dot target", (e) => e.targets = ["10.96.0.10."]],
    ["IPv6 in an A record", (e) => e.targets = ["fd00::1"]],
    ["TTL as a string", (e) => e.recordTTL = "60"],
    ["CNAME", (e) => e.recordType = "CNAME"],
    ["dotted dnsName", (e) => e.dnsName = "shop.example.com."],
  ];
  for (const [name, mistake] of mistakes) {
    const bad = structuredClone(good);
    mistake(bad.spec.endpoints[0]!);
    assert.notDeepEqual(dnsEndpointProblems(bad), [], name);
  }
});

Deno.test({
  name: "the real kubectl creates every rendered record on the fake API server",
  ignore: skipWithoutKubectl("kubectl create of rendered records", tools),
  fn: async () => {
    const { kubectl } = requireKubeTools(tools);
    await using server = await startFakeApiServer();
    const unique = new Map<string, Manifest>();
    for (const manifest of [...manifests("crd"), ...manifests("service")]) {
      unique.set(`${manifest.kind}/${manifest.metadata.name}`, manifest);
    }
    await using temp = await tempDir("records-kubectl-");
    const dir = temp.path;
    const file = `${dir}/records.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify({ apiVersion: "v1", kind: "List", items: [...unique.values()] }),
    );
    const output = await new Deno.Command(kubectl, {
      args: [
        "--kubeconfig=/dev/null",
        `--server=${server.url}`,
        `--cache-dir=${dir}/cache`,
        "create",
        "--validate=false",
        "-f",
        file,
      ],
      clearEnv: true,
      env: { HOME: dir, PATH: "/usr/bin:/bin" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    for (const manifest of unique.values()) {
      const stored = server.get(
        String(manifest.apiVersion),
        String(manifest.kind),
        "ouroboros",
        manifest.metadata.name!,
      );
      assert.ok(stored !== undefined, `${manifest.kind} ${manifest.metadata.name} was not created`);
      assert.deepEqual(stored.spec, manifest.spec);
      assert.deepEqual((stored.metadata as Manifest["metadata"]).labels, manifest.metadata.labels);
    }
  },
});
