/**
 * The controller's start-up checks under the chart's RBAC: each check that reads an object the
 * controller does not otherwise use exists only to WARN about a silent problem, so the chart must
 * grant exactly its read, or the warning can never be given.
 *
 * - coredns-import mode: the check of the Corefile's `reload` plugin and import line gets the main
 *   CoreDNS ConfigMap. The chart grants `get` on that one ConfigMap by name (never a write, in a
 *   preview too) and passes its coordinates as `--coredns-*`, so the read the controller makes is
 *   the one granted, wherever `controller.coredns` points.
 * - external-dns mode: the orphan probe lists the record kind not in use, by label, limit 1, in the
 *   records namespace. The chart grants `list` on that kind there, nothing else on it (kept in a
 *   preview: it only reads).
 *
 * Each render's controller arguments are parsed with the binary's option table, and the probes
 * themselves run against a client that records what they ask for; every request must be covered
 * by a Role bound to the controller's ServiceAccount. (The node-local-dns read, the third such
 * check, has its own file: node_local_dns_test.ts.)
 */

import assert from "node:assert/strict";
import { parseOptions } from "../../lib/cli/options.ts";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import { type ControllerSettings, controllerSettings } from "../../lib/controller/controller_settings.ts";
import type { KubeClient } from "../../lib/kube/client.ts";
import type { ResourceNames } from "../../lib/resources/resource_type.ts";
import { runStartupProbes } from "../../lib/controller/modes/coredns/startup_probes.ts";
import { probeOrphans } from "../../lib/controller/modes/external_dns/orphan_probe.ts";
import {
  chartHelms,
  container,
  envOf,
  find,
  isHook,
  type K8sObject,
  ofKind,
  podTemplate,
  type PolicyRule,
  rbacMatrix,
  renderOk,
  rules,
} from "./support.ts";

const { helm4, test } = await chartHelms("chart start-up check RBAC tests", { helm3: false });

const DRY_RUN = "controller.dryRun=true";

/** One API request a probe made. */
interface Request {
  readonly verb: "get" | "list";
  readonly group: string;
  readonly plural: string;
  readonly namespace: string;
  readonly name?: string;
}

/** A client that records each request and answers a get with a failure, a list with nothing. */
function recordingClient(): { client: Pick<KubeClient, "get" | "list">; requests: Request[] } {
  const requests: Request[] = [];
  const fake = {
    get: (type: ResourceNames, ref: { namespace?: string; name: string }) => {
      requests.push({
        verb: "get",
        group: type.group,
        plural: type.plural,
        namespace: ref.namespace ?? "",
        name: ref.name,
      });
      return Promise.reject(new Error("not served by this test"));
    },
    list: (type: ResourceNames, options: { namespace?: string }) => {
      requests.push({
        verb: "list",
        group: type.group,
        plural: type.plural,
        namespace: options.namespace ?? "",
      });
      return Promise.resolve({ items: [], rejected: [], resourceVersion: "1" });
    },
  };
  return { client: fake as unknown as Pick<KubeClient, "get" | "list">, requests };
}

/** The controller Deployment's settings, parsed from its rendered arguments and variables. */
function settingsOf(objects: readonly K8sObject[]): ControllerSettings {
  const c = container(find(objects, "Deployment", "ouroboros"), "controller");
  const [command, ...argv] = c.args ?? [];
  assert.equal(command, "controller");
  const env = envOf(c);
  const parsed = parseOptions(CONTROLLER_OPTIONS, { argv, getEnv: (name) => env[name] });
  assert.ok(parsed.kind === "ok", JSON.stringify(parsed));
  const settings = controllerSettings({
    values: parsed.values,
    clusterDomainSource: parsed.sources.clusterDomain,
    readResolvConf: () => "search ouroboros.svc.cluster.local svc.cluster.local cluster.local\n",
    podNamespace: "ouroboros",
  });
  assert.ok(!(settings instanceof Error), settings instanceof Error ? settings.message : "");
  return settings;
}

/** The rules of the non-hook Roles bound to the controller's ServiceAccount, in `namespace`. */
function controllerRules(objects: readonly K8sObject[], namespace: string): PolicyRule[] {
  const bound = new Set(
    ofKind(objects, "RoleBinding")
      .filter((binding) =>
        !isHook(binding) && binding.metadata.namespace === namespace &&
        ((binding.subjects ?? []) as { kind: string; name: string; namespace?: string }[]).some((s) =>
          s.kind === "ServiceAccount" && s.name === "ouroboros" && s.namespace === "ouroboros"
        )
      )
      .map((binding) => (binding.roleRef as { kind: string; name: string }).name),
  );
  return ofKind(objects, "Role")
    .filter((role) => !isHook(role) && role.metadata.namespace === namespace && bound.has(role.metadata.name))
    .flatMap((role) => (role.rules ?? []) as PolicyRule[]);
}

/** Whether the controller's Roles allow `request` (resourceNames narrow only a named get). */
function allowed(objects: readonly K8sObject[], request: Request): boolean {
  return controllerRules(objects, request.namespace).some((rule) =>
    (rule.apiGroups ?? []).includes(request.group) && (rule.resources ?? []).includes(request.plural) &&
    rule.verbs.includes(request.verb) &&
    (rule.resourceNames === undefined ||
      (request.name !== undefined && rule.resourceNames.includes(request.name)))
  );
}

function describe(request: Request): string {
  const group = request.group === "" ? "core" : request.group;
  return `${request.verb} ${group}/${request.plural} in ${request.namespace}${
    request.name === undefined ? "" : ` named ${request.name}`
  }`;
}

/** Runs coredns-import mode's start-up probes as the controller would, with its rendered settings. */
async function corednsImportReads(objects: readonly K8sObject[]): Promise<Request[]> {
  const settings = settingsOf(objects);
  assert.equal(settings.values.mode, "coredns-import");
  const { client, requests } = recordingClient();
  await runStartupProbes(client, {
    mode: "coredns-import",
    coredns: settings.coredns,
    corednsImport: settings.corednsImport,
    nodeLocalDns: {
      namespace: settings.values.nodeLocalDnsNamespace,
      configmap: settings.values.nodeLocalDnsConfigmap,
      mode: settings.values.nodeLocalDns,
    },
    signal: new AbortController().signal,
  });
  return requests;
}

test("coredns-import mode: the Corefile check's get is granted, on that one ConfigMap by name, and nothing more of it", async () => {
  const variants: { set: string[]; namespace: string; configmap: string; key: string }[] = [
    { set: [], namespace: "kube-system", configmap: "coredns", key: "Corefile" },
    {
      set: [
        "controller.coredns.namespace=dns-system",
        "controller.coredns.configmap=corefile",
        "controller.coredns.key=Corefile.main",
      ],
      namespace: "dns-system",
      configmap: "corefile",
      key: "Corefile.main",
    },
  ];
  for (const variant of variants) {
    for (const dry of [[], [DRY_RUN]]) {
      const label = [...variant.set, ...dry].join(" ") || "defaults";
      const objects = await renderOk(helm4(), {
        set: ["controller.mode=coredns-import", ...variant.set, ...dry],
      });
      // The controller is told the coordinates the chart grants: they are always passed.
      const settings = settingsOf(objects);
      assert.deepEqual(
        settings.coredns,
        { namespace: variant.namespace, configmap: variant.configmap, key: variant.key },
        label,
      );
      // Exactly get, by name, in controller.coredns's namespace: never a write, live or preview.
      const role = find(objects, "Role", "ouroboros:ouroboros-coredns");
      assert.equal(role.metadata.namespace, variant.namespace, label);
      assert.deepEqual(role.rules, [
        { apiGroups: [""], resources: ["configmaps"], resourceNames: [variant.configmap], verbs: ["get"] },
      ], label);
      const binding = find(objects, "RoleBinding", "ouroboros:ouroboros-coredns");
      assert.equal(binding.metadata.namespace, variant.namespace, label);
      assert.deepEqual(binding.roleRef, {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "Role",
        name: "ouroboros:ouroboros-coredns",
      }, label);
      assert.deepEqual(binding.subjects, [{
        kind: "ServiceAccount",
        name: "ouroboros",
        namespace: "ouroboros",
      }]);
      // No Role of the release, hooks included, grants more than that get on the main Corefile.
      const onCorefile = Object.entries(rbacMatrix(objects)).flatMap(([id, grants]) =>
        id.startsWith(`Role ${variant.namespace}/`)
          ? grants.filter((grant) => grant.startsWith(`core/configmaps/${variant.configmap}:`))
          : []
      );
      assert.deepEqual(onCorefile, rules(`core/configmaps/${variant.configmap}: get`), label);

      // The probes' reads, as the controller makes them: the Corefile and node-local-dns, each granted.
      const reads = await corednsImportReads(objects);
      assert.deepEqual(
        reads.map(describe).sort(),
        [
          `get core/configmaps in ${variant.namespace} named ${variant.configmap}`,
          "get core/configmaps in kube-system named node-local-dns",
        ].sort(),
        label,
      );
      for (const read of reads) {
        assert.ok(allowed(objects, read), `${label}: ${describe(read)} is not granted`);
      }
    }
  }
  // Without the Role, the same read would be refused: the check above is not vacuous.
  const objects = await renderOk(helm4(), { set: ["controller.mode=coredns-import"] });
  const without = objects.filter((object) => object.metadata.name !== "ouroboros:ouroboros-coredns");
  const corefile = (await corednsImportReads(objects)).find((read) => read.name === "coredns")!;
  assert.ok(!allowed(without, corefile));
});

test("coredns-import mode: the import ConfigMap's Role is unchanged, and the other modes never get the Corefile's read-only Role", async () => {
  const objects = await renderOk(helm4(), { set: ["controller.mode=coredns-import"] });
  assert.deepEqual(
    rbacMatrix(objects)["Role kube-system/ouroboros:ouroboros-coredns-import"],
    rules("core/configmaps/coredns-custom: get,list,watch,patch"),
  );
  // coredns mode keeps its editing rights on the same Role name.
  assert.deepEqual(
    rbacMatrix(await renderOk(helm4()))["Role kube-system/ouroboros:ouroboros-coredns"],
    rules("core/configmaps/coredns: get,list,watch,patch"),
  );
  for (
    const set of [["controller.mode=external-dns"], ["etcHosts.enabled=true", "etcHosts.proxyIP=10.0.0.5"]]
  ) {
    const other = await renderOk(helm4(), { set });
    assert.ok(!other.some((object) => object.metadata.name === "ouroboros:ouroboros-coredns"), set.join(" "));
    const args = other
      .filter((o) => !isHook(o) && (o.kind === "Deployment" || o.kind === "DaemonSet"))
      .flatMap((o) => podTemplate(o).spec.containers.flatMap((c) => c.args ?? []));
    assert.ok(args.length > 0, set.join(" "));
    assert.ok(!args.some((arg) => arg.startsWith("--coredns-")), set.join(" "));
  }
});

test("external-dns mode: the orphan probe's list of the inactive kind is granted, list only, in the records namespace", async () => {
  const kinds = {
    crd: { apiGroups: ["externaldns.k8s.io"], resources: ["dnsendpoints"] },
    service: { apiGroups: [""], resources: ["services"] },
  } as const;
  for (const output of ["crd", "service"] as const) {
    const inactive = output === "crd" ? "service" : "crd";
    for (const namespace of ["", "dns"]) {
      for (const dry of [[], [DRY_RUN]]) {
        const set = [
          "controller.mode=external-dns",
          `externalDns.output=${output}`,
          ...(namespace === "" ? [] : [`externalDns.namespace=${namespace}`]),
          ...dry,
        ];
        const label = set.join(" ");
        const records = namespace === "" ? "ouroboros" : namespace;
        const objects = await renderOk(helm4(), { set });
        const role = find(objects, "Role", "ouroboros:ouroboros-externaldns");
        assert.equal(role.metadata.namespace, records, label);
        const active = dry.length > 0 ? ["get", "list"] : ["get", "list", "create", "patch", "delete"];
        assert.deepEqual(role.rules, [
          { ...kinds[output], verbs: active },
          // Not narrowed by name: the probe lists by the ownership labels, which RBAC cannot see.
          { ...kinds[inactive], verbs: ["list"] },
        ], label);

        const settings = settingsOf(objects);
        assert.equal(settings.externalDns.output, output, label);
        assert.equal(settings.externalDns.namespace, records, label);
        const { client, requests } = recordingClient();
        const found = await probeOrphans(client, {
          activeOutput: settings.externalDns.output,
          namespace: settings.externalDns.namespace,
          instance: settings.externalDns.instance,
          signal: new AbortController().signal,
        });
        assert.deepEqual(found, { kind: "none" }, label);
        assert.deepEqual(requests, [{
          verb: "list",
          group: kinds[inactive].apiGroups[0],
          plural: kinds[inactive].resources[0],
          namespace: records,
        }], label);
        for (const request of requests) {
          assert.ok(allowed(objects, request), `${label}: ${describe(request)} is not granted`);
        }
      }
    }
  }
});
