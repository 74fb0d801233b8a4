/**
 * The chart's `helm test`: a Pod running `ouroboros doctor` with the controller's own arguments
 * (parsed here with the doctor's option table and accepted by its settings), a ServiceAccount of
 * its own whose RBAC only reads, every object a test hook, the NetworkPolicies letting it read
 * our health ports, and NOTES telling operators to run `helm test`.
 */

import assert from "node:assert/strict";
import { parseOptions } from "../../lib/cli/options.ts";
import { doctorSettings } from "../../lib/doctor/doctor_settings.ts";
import { DOCTOR_OPTIONS } from "../../lib/doctor/doctor_options.ts";
import {
  chartHelms,
  type K8sObject,
  type Mode,
  MODES,
  notes,
  type PodSpec,
  renderOk,
  restrictedViolations,
  ruleSet,
  selectorOf,
  validateObject,
} from "./support.ts";

const { helm4, helms, test } = await chartHelms("chart doctor test");

const READ_VERBS = new Set(["get", "list", "watch"]);

function doctorObjects(objects: readonly K8sObject[]): K8sObject[] {
  return objects.filter((object) => object.metadata.labels?.["app.kubernetes.io/component"] === "doctor");
}

function doctorPod(objects: readonly K8sObject[]): K8sObject {
  const pods = objects.filter((object) => object.kind === "Pod" && object.metadata.name.endsWith("-doctor"));
  assert.equal(pods.length, 1, "one doctor Pod");
  return pods[0]!;
}

test("helm test runs the doctor with arguments it accepts, in every mode, read-only", async () => {
  for (const helm of helms()) {
    for (const [mode, set] of Object.entries(MODES) as [Mode, readonly string[]][]) {
      const variants = [[...set], [
        ...set,
        "doctor.probeDirect=true",
        "doctor.hosts={a.example.com,b.example.com}",
      ]];
      if (mode === "coredns") variants.push([...set, "controller.leaderElection.enabled=true"]);
      for (const variant of variants) {
        const objects = await renderOk(helm, { set: variant, tests: true });
        const ours = doctorObjects(objects);
        const pod = doctorPod(objects);
        const label = `${helm.label} ${mode} ${variant.join(" ")}`;
        for (const object of ours) {
          await validateObject(object);
          const hook = object.metadata.annotations?.["helm.sh/hook"];
          assert.equal(hook, "test", `${label}: ${object.kind} ${object.metadata.name} is a test hook`);
          if (object.kind === "Role" || object.kind === "ClusterRole") {
            const writes = ruleSet(object).filter((rule) => !READ_VERBS.has(rule.split(": ")[1]!));
            assert.deepEqual(writes, [], `${label}: ${object.kind} ${object.metadata.name} only reads`);
          }
        }
        // RBAC exists before the Pod, and goes when the test ends; the Pod stays for its logs.
        for (const object of ours.filter((o) => o.kind !== "Pod")) {
          assert.ok(Number(object.metadata.annotations?.["helm.sh/hook-weight"]) < 0, object.metadata.name);
          assert.match(object.metadata.annotations?.["helm.sh/hook-delete-policy"] ?? "", /hook-succeeded/);
        }
        assert.equal(pod.metadata.annotations?.["helm.sh/hook-delete-policy"], "before-hook-creation");
        const spec = pod.spec as PodSpec;
        assert.equal(spec.serviceAccountName, ours.find((o) => o.kind === "ServiceAccount")?.metadata.name);
        const c = spec.containers[0]!;
        const [command, ...argv] = c.args ?? [];
        assert.equal(command, "doctor", label);
        const env: Record<string, string> = { POD_NAMESPACE: "ouroboros" };
        for (const variable of c.env ?? []) {
          if (variable.value !== undefined) env[variable.name] = variable.value;
        }
        const parsed = parseOptions(DOCTOR_OPTIONS, { argv, getEnv: (name) => env[name] });
        assert.equal(parsed.kind, "ok", `${label}: ${JSON.stringify(parsed)}`);
        if (parsed.kind !== "ok") continue;
        const settings = doctorSettings({
          values: parsed.values,
          sources: parsed.sources,
          readResolvConf: () => undefined,
          podNamespace: "ouroboros",
        });
        assert.ok(
          !(settings instanceof Error),
          `${label}: ${settings instanceof Error ? settings.message : ""}`,
        );
        assert.equal(parsed.values.mode, mode, label);
        if (variant.includes("doctor.probeDirect=true")) {
          assert.equal(parsed.values.probeDirect, true);
          assert.deepEqual(parsed.values.host, ["a.example.com", "b.example.com"]);
        }
        if (mode === "etc-hosts") {
          assert.equal(parsed.values.etcHosts, "/host/etc/hosts");
          assert.ok(
            spec.volumes?.some((v) => v.name === "hosts"),
            `${label}: the node's hosts file is mounted`,
          );
        } else {
          assert.deepEqual(
            restrictedViolations(spec),
            [],
            `${label}: the doctor Pod is admitted as restricted`,
          );
        }
        if (mode === "coredns-import") assert.equal(parsed.values.corednsConfigmap, "coredns", label);
        assert.equal(parsed.values.proxyServiceName, "ouroboros-proxy", label);
        assert.equal(parsed.values.proxyServiceNamespace, "ouroboros", label);
      }
    }
  }
});

test("the doctor's RBAC names each read its checks make, and nothing when doctor.enabled=false", async () => {
  const helm = helm4();
  const grants = async (set: readonly string[]): Promise<string[]> =>
    doctorObjects(await renderOk(helm, { set, tests: true }))
      .filter((o) => o.kind === "Role" || o.kind === "ClusterRole")
      .flatMap((o) => ruleSet(o).map((rule) => `${o.metadata.namespace ?? "*"} ${rule}`));
  const coredns = await grants([]);
  for (
    const rule of [
      "* networking.k8s.io/ingresses: list",
      "* core/services: list",
      "* core/events: list",
      "ouroboros core/pods: list",
      "kube-system core/configmaps/coredns: get",
      "kube-system core/configmaps/node-local-dns: get",
    ]
  ) assert.ok(coredns.includes(rule), `coredns mode grants ${rule}: ${coredns.join("; ")}`);
  // Exactly the reads the checks make (the real suite's doctor scenario audits them): what they
  // only list (Ingresses, Events, our pods, records, Gateway API objects) is not granted get.
  assert.deepEqual(coredns.sort(), [
    "* core/events: list",
    "* core/services: get",
    "* core/services: list",
    "* networking.k8s.io/ingresses: list",
    "kube-system core/configmaps/coredns: get",
    "kube-system core/configmaps/node-local-dns: get",
    "ouroboros core/pods: list",
  ]);
  const listedOnly = /(ingresses|events|pods|dnsendpoints|gateways|httproutes|grpcroutes|tlsroutes): get$/;
  for (const set of [MODES["external-dns"], ["controller.gatewayApi.enabled=true"]]) {
    const granted = await grants(set);
    assert.deepEqual(
      granted.filter((rule) => listedOnly.test(rule)),
      [],
      `${set.join(" ")}: get never used`,
    );
  }
  const imports = await grants(MODES["coredns-import"]);
  const elsewhere = await grants([...MODES["coredns-import"], "controller.corednsImport.namespace=dns"]);
  assert.ok(elsewhere.includes("dns apps/deployments: list"), elsewhere.join("; "));
  assert.ok(elsewhere.includes("dns core/configmaps/coredns-custom: get"), elsewhere.join("; "));
  assert.ok(imports.includes("kube-system core/configmaps/coredns-custom: get"), imports.join("; "));
  assert.ok(imports.includes("kube-system apps/deployments: list"), imports.join("; "));
  const records = await grants(MODES["external-dns"]);
  assert.ok(records.includes("ouroboros externaldns.k8s.io/dnsendpoints: list"), records.join("; "));
  const elected = await grants(["controller.leaderElection.enabled=true"]);
  assert.ok(elected.some((rule) => /coordination.k8s.io\/leases\/.*: get$/.test(rule)), elected.join("; "));
  assert.deepEqual(doctorObjects(await renderOk(helm, { set: ["doctor.enabled=false"], tests: true })), []);
});

test("NOTES tell operators to run helm test; the NetworkPolicies let the doctor read our health ports", async () => {
  const helm = helm4();
  const text = await notes(helm, { release: "edge" });
  assert.match(text, /helm test edge --namespace \S+ --logs/);
  const objects = await renderOk(helm, { set: ["networkPolicy.enabled=true"], tests: true });
  const pod = doctorPod(objects);
  for (const [name, port] of [["ouroboros-proxy", 8081], ["ouroboros", 8082]] as const) {
    const policy = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata.name === name);
    assert.ok(policy !== undefined, name);
    const ingress = (policy.spec as {
      ingress: {
        from?: { podSelector?: { matchLabels?: Record<string, string> } }[];
        ports: { port: number }[];
      }[];
    }).ingress;
    const admits = ingress.some((rule) =>
      rule.ports.some((p) => p.port === port) &&
      (rule.from ?? []).some((peer) =>
        Object.entries(peer.podSelector?.matchLabels ?? {}).every(([k, v]) => pod.metadata.labels?.[k] === v)
      )
    );
    assert.ok(admits, `NetworkPolicy ${name} admits the doctor Pod on ${port}`);
    assert.ok(Object.keys(selectorOf(policy)).length > 0);
  }
});
