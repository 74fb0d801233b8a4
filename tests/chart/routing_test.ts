/**
 * `routing.enabled` (issue 30), rendered by Helm 4 and Helm 3:
 *
 * - Off (the default), in every mode: no `--routes*` argument, no route table volume, no Service rule,
 *   no ConfigMap Role, no hook.
 * - On, in every mode (the etc-hosts DaemonSet too): the controller gets `--routes` with this release's
 *   ConfigMap, namespace and the proxy's own PROXY version; the proxy gets `--routes-file` and
 *   `--route-read-timeout` and the ConfigMap mounted as a folder (never subPath), optional, read-only,
 *   at the one folder deno.json's proxy permission set may read; the controller's ClusterRole gains
 *   Services list and watch, and a Role grants create on ConfigMaps and list, watch and patch on that
 *   one by name (reads only in a preview). Nothing else changes but the `helm test` doctor, which
 *   takes the controller's routing flags (so it judges what the controller does) and may get that
 *   one ConfigMap.
 * - The arguments parse with the binary's own option tables into the coordinates the chart grants.
 * - Uninstall: a post-delete hook (not in a preview, nor with routing.cleanupOnUninstall=false) runs
 *   `ouroboros controller --cleanup --cleanup-routes-only` with the ConfigMap, the release and the
 *   controller pods' selector; its arguments parse with the binary's option table.
 * - The schema refuses bad `routing` values naming the key; a zero read timeout fails the render.
 *
 * The rendered hook Job runs against the fake API server in cleanup_hooks_test.ts.
 */

import assert from "node:assert/strict";
import { parseOptions } from "../../lib/cli/options.ts";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import { controllerSettings } from "../../lib/controller/controller_settings.ts";
import { cleanupProblems } from "../../lib/controller/controller_cleanup.ts";
import { DOCTOR_OPTIONS } from "../../lib/doctor/doctor_options.ts";
import { doctorSettings } from "../../lib/doctor/doctor_settings.ts";
import { PROXY_OPTIONS } from "../../lib/proxy/proxy_options.ts";
import { DENO_JSON } from "../support/deno_json.ts";
import {
  assertSchemaRefuses,
  chartHelms,
  type Container,
  container,
  envOf,
  find,
  isHook,
  type K8sObject,
  MODES,
  notes,
  ofKind,
  podSpec,
  rbacMatrix,
  renderFails,
  renderOk,
  restrictedViolations,
  rules,
  validateObject,
} from "./support.ts";

const { helm4, helms, test } = await chartHelms("chart routing tests");

const ON = "routing.enabled=true";
const MOUNT = "/etc/ouroboros/routes";
const FILE = `${MOUNT}/routes.json`;

/** The controller container of a render: the Deployment's, or the etc-hosts DaemonSet's. */
function controllerOf(objects: readonly K8sObject[], fullname = "ouroboros"): Container {
  const workload = objects.find((o) => o.kind === "Deployment" && o.metadata.name === fullname) ??
    find(objects, "DaemonSet", `${fullname}-etc-hosts`);
  return container(workload, "controller");
}

function proxyOf(objects: readonly K8sObject[], fullname = "ouroboros"): K8sObject {
  return find(objects, "Deployment", `${fullname}-proxy`);
}

/** Every argument of every container of every object (hooks and the doctor included). */
function everyArg(objects: readonly K8sObject[]): string[] {
  return objects.flatMap((object) => {
    if (!["Deployment", "DaemonSet", "Job", "Pod"].includes(object.kind)) return [];
    const spec = object.kind === "Pod" ? object.spec as { containers: Container[] } : podSpec(object);
    return spec.containers.flatMap((c) => c.args ?? []);
  });
}

/** The controller's routing arguments for `configmap` in `namespace`. */
function routesArgs(configmap: string, namespace: string, protocol = "v1"): string[] {
  return [
    "--routes",
    `--routes-configmap=${configmap}`,
    `--routes-namespace=${namespace}`,
    `--routes-proxy-protocol=${protocol}`,
  ];
}

test("off by default, in every mode: no routing argument, volume, Service rule, Role or hook", async () => {
  for (const helm of helms()) {
    for (const [mode, set] of Object.entries(MODES)) {
      const label = `${helm.label} ${mode}`;
      for (const off of [[], ["routing.enabled=false", "routing.readTimeout=9s"]]) {
        const objects = await renderOk(helm, { set: [...set, ...off], tests: true });
        assert.deepEqual(everyArg(objects).filter((arg) => /^--route/.test(arg)), [], label);
        const proxy = podSpec(proxyOf(objects));
        assert.equal(proxy.volumes, undefined, label);
        assert.equal(container(proxyOf(objects), "proxy").volumeMounts, undefined, label);
        const grants = Object.entries(rbacMatrix(objects)).flatMap(([role, set]) =>
          set.map((grant) => `${role} ${grant}`)
        );
        // The controller's ClusterRole reads no Service (the doctor's, a test hook, reads some on its own).
        assert.deepEqual(
          grants.filter((grant) => grant.startsWith("ClusterRole /ouroboros:ouroboros core/services:")),
          [],
          label,
        );
        assert.deepEqual(grants.filter((grant) => /ouroboros-routes/.test(grant)), [], label);
        assert.deepEqual(
          objects.filter((o) => /-routes(-|$)/.test(o.metadata.name)).map((o) => o.kind),
          [],
          label,
        );
      }
    }
  }
});

test("on, in every mode: exactly the routing arguments, the folder mount, the Service rule and the ConfigMap Role", async () => {
  for (const helm of helms()) {
    for (const [mode, set] of Object.entries(MODES)) {
      const label = `${helm.label} ${mode}`;
      const off = await renderOk(helm, { set, tests: true });
      const on = await renderOk(helm, { set: [...set, ON], tests: true });

      // The controller: its arguments as before, then the four routing ones.
      assert.deepEqual(
        controllerOf(on).args,
        [...controllerOf(off).args ?? [], ...routesArgs("ouroboros-routes", "ouroboros")],
        label,
      );
      // The proxy: the route file in the mounted folder and the read timeout, after its own.
      const proxyOn = container(proxyOf(on), "proxy");
      assert.deepEqual(
        proxyOn.args,
        [...container(proxyOf(off), "proxy").args ?? [], `--routes-file=${FILE}`, "--route-read-timeout=5s"],
        label,
      );
      // A folder mount (no subPath: the kubelet updates it by a symlink swap the proxy watches), read-only,
      // of a ConfigMap that may not exist yet.
      assert.deepEqual(proxyOn.volumeMounts, [{ name: "routes", mountPath: MOUNT, readOnly: true }], label);
      assert.ok(proxyOn.volumeMounts?.every((m) => !("subPath" in m) && !("subPathExpr" in m)), label);
      assert.deepEqual(podSpec(proxyOf(on)).volumes, [
        { name: "routes", configMap: { name: "ouroboros-routes", optional: true } },
      ], label);
      assert.equal(podSpec(proxyOf(on)).automountServiceAccountToken, false, "the proxy still has no token");
      assert.deepEqual(restrictedViolations(podSpec(proxyOf(on))), [], label);

      // RBAC: the ClusterRole gains Services list and watch; a Role on the table ConfigMap; the hook's Role.
      const before = rbacMatrix(off);
      const after = rbacMatrix(on);
      const clusterRole = "ClusterRole /ouroboros:ouroboros";
      const doctorRole = "Role ouroboros/ouroboros-doctor";
      assert.deepEqual(after, {
        ...before,
        [clusterRole]: [...before[clusterRole]!, ...rules("core/services: list,watch")].sort(),
        "Role ouroboros/ouroboros-routes": rules(
          "core/configmaps: create",
          "core/configmaps/ouroboros-routes: list,watch,patch",
        ),
        "Role ouroboros/ouroboros-routes-cleanup": rules(
          "core/configmaps/ouroboros-routes: get,delete",
          "core/pods: list",
          `apps/deployments/scale/${mode === "etc-hosts" ? "ouroboros-etc-hosts" : "ouroboros"}: patch`,
        ),
        [doctorRole]: [...before[doctorRole]!, ...rules("core/configmaps/ouroboros-routes: get")].sort(),
      }, label);
      const binding = find(on, "RoleBinding", "ouroboros-routes");
      assert.equal(binding.metadata.namespace, "ouroboros");
      assert.deepEqual(binding.roleRef, {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "Role",
        name: "ouroboros-routes",
      });
      assert.deepEqual(binding.subjects, [{
        kind: "ServiceAccount",
        name: "ouroboros",
        namespace: "ouroboros",
      }]);
      assert.equal(isHook(binding), false);

      // Nothing else: the same objects but the Role, its binding and the hook's four.
      const names = (objects: readonly K8sObject[]) =>
        objects.map((o) => `${o.kind} ${o.metadata.name}`).sort();
      assert.deepEqual(
        names(on).filter((name) => !names(off).includes(name)),
        [
          "Job ouroboros-routes-cleanup",
          "Role ouroboros-routes",
          "Role ouroboros-routes-cleanup",
          "RoleBinding ouroboros-routes",
          "RoleBinding ouroboros-routes-cleanup",
          "ServiceAccount ouroboros-routes-cleanup",
        ],
        label,
      );
      // The doctor takes the controller's flags: the same routing ones, and its own as before.
      const doctorArgs = (objects: readonly K8sObject[]) =>
        (find(objects, "Pod", "ouroboros-doctor").spec as { containers: Container[] }).containers[0]!.args ??
          [];
      const routing = (arg: string) => arg.startsWith("--route");
      assert.deepEqual(doctorArgs(on).filter(routing), routesArgs("ouroboros-routes", "ouroboros"), label);
      assert.deepEqual(doctorArgs(on).filter((arg) => !routing(arg)), doctorArgs(off), label);
      // The ConfigMap itself is the controller's: the chart never renders it.
      assert.deepEqual(ofKind(on, "ConfigMap").filter((o) => o.metadata.name === "ouroboros-routes"), []);
      for (const object of on) await validateObject(object);
    }
  }
});

test("--routes-proxy-protocol follows proxy.proxyProtocol, the version the proxy itself sends", async () => {
  for (const helm of helms()) {
    for (const [mode, set] of Object.entries(MODES)) {
      for (const protocol of ["v1", "v2"]) {
        const objects = await renderOk(helm, { set: [...set, ON, `proxy.proxyProtocol=${protocol}`] });
        const label = `${helm.label} ${mode} ${protocol}`;
        assert.ok(container(proxyOf(objects), "proxy").args?.includes(`--proxy-protocol=${protocol}`), label);
        const routing = (controllerOf(objects).args ?? []).filter((arg) =>
          arg.startsWith("--routes-proxy-protocol")
        );
        assert.deepEqual(routing, [`--routes-proxy-protocol=${protocol}`], label);
      }
    }
  }
});

test("the arguments parse with the binary's option tables into the coordinates the chart grants and mounts", async () => {
  const resolvConf = () => "search net.svc.cluster.local svc.cluster.local cluster.local\n";
  for (const [mode, set] of Object.entries(MODES)) {
    const objects = await renderOk(helm4(), {
      release: "edge",
      namespace: "net",
      set: [...set, ON, "proxy.proxyProtocol=v2", "routing.readTimeout=1.5s"],
      tests: true,
    });
    const c = controllerOf(objects, "edge-ouroboros");
    const [command, ...argv] = c.args ?? [];
    assert.equal(command, "controller");
    const env = envOf(c);
    const parsed = parseOptions(CONTROLLER_OPTIONS, { argv, getEnv: (name) => env[name] });
    assert.ok(parsed.kind === "ok", `${mode}: ${JSON.stringify(parsed)}`);
    const settings = controllerSettings({
      values: parsed.values,
      clusterDomainSource: parsed.sources.clusterDomain,
      readResolvConf: resolvConf,
      // Not the release namespace: the chart's --routes-namespace must win over the pod's.
      podNamespace: "elsewhere",
    });
    assert.ok(!(settings instanceof Error), settings instanceof Error ? settings.message : "");
    const coordinates = {
      namespace: "net",
      configmap: "edge-ouroboros-routes",
      instance: "edge",
      proxyProtocol: "v2",
    };
    assert.deepEqual(settings.routes, coordinates, mode);

    // The doctor, with the same flags, looks at the same table.
    const doctor = (find(objects, "Pod", "edge-ouroboros-doctor").spec as { containers: Container[] })
      .containers[0]!;
    const [doctorCommand, ...doctorArgv] = doctor.args ?? [];
    assert.equal(doctorCommand, "doctor");
    const doctorEnv = { ...envOf(doctor), POD_NAMESPACE: "net" };
    const doctorParsed = parseOptions(DOCTOR_OPTIONS, {
      argv: doctorArgv,
      getEnv: (name) => doctorEnv[name as keyof typeof doctorEnv],
    });
    assert.ok(doctorParsed.kind === "ok", `${mode}: ${JSON.stringify(doctorParsed)}`);
    const doctorSet = doctorSettings({
      values: doctorParsed.values,
      sources: doctorParsed.sources,
      readResolvConf: () => undefined,
      podNamespace: "net",
    });
    assert.ok(!(doctorSet instanceof Error), doctorSet instanceof Error ? doctorSet.message : "");
    assert.deepEqual(doctorSet.controller.routes, coordinates, mode);
    const doctorGrants = rbacMatrix([
      find(objects, "Role", "edge-ouroboros-doctor"),
    ])["Role net/edge-ouroboros-doctor"]!;
    assert.deepEqual(doctorGrants.filter((grant) => grant.startsWith("core/configmaps")), [
      "core/configmaps/edge-ouroboros-routes: get",
    ], mode);

    // The Role and the proxy's volume name the same ConfigMap, in the same namespace.
    const role = find(objects, "Role", "edge-ouroboros-routes");
    assert.equal(role.metadata.namespace, "net");
    assert.deepEqual(
      rbacMatrix([role])["Role net/edge-ouroboros-routes"],
      rules(
        "core/configmaps: create",
        "core/configmaps/edge-ouroboros-routes: list,watch,patch",
      ),
    );
    const proxy = proxyOf(objects, "edge-ouroboros");
    assert.deepEqual(podSpec(proxy).volumes, [
      { name: "routes", configMap: { name: "edge-ouroboros-routes", optional: true } },
    ]);
    const p = container(proxy, "proxy");
    const [proxyCommand, ...proxyArgv] = p.args ?? [];
    assert.equal(proxyCommand, "proxy");
    const proxyEnv = envOf(p);
    const proxyParsed = parseOptions(PROXY_OPTIONS, { argv: proxyArgv, getEnv: (name) => proxyEnv[name] });
    assert.ok(proxyParsed.kind === "ok", `${mode}: ${JSON.stringify(proxyParsed)}`);
    assert.equal(proxyParsed.values.routesFile, FILE);
    assert.equal(proxyParsed.values.routeReadTimeout, 1500);
    assert.equal(proxyParsed.values.proxyProtocol, "v2");
  }
});

Deno.test("the route table folder is one the proxy's permission set may read, and the flag's help names it", () => {
  // deno.json's `permissions.proxy` is what the image runs the proxy with: a mount outside its reads
  // would make every table read fail with NotCapable. The chart and the permission set cannot drift.
  const read = DENO_JSON.permissions.proxy?.read;
  assert.ok(Array.isArray(read), "the proxy permission set lists its reads");
  const covering = read.filter((path) =>
    path.startsWith("/") && (MOUNT === path || MOUNT.startsWith(`${path}/`))
  );
  assert.deepEqual(
    covering,
    [MOUNT],
    `deno.json permissions.proxy.read must hold ${MOUNT}: ${read.join(", ")}`,
  );
  assert.ok(FILE.startsWith(`${MOUNT}/`));
  // The binary's own help says where the chart mounts the table.
  assert.match(PROXY_OPTIONS.options.routesFile.help, new RegExp(FILE.replaceAll(".", "\\.")));
});

test("the names fit 63 characters whatever the full name, and follow fullnameOverride", async () => {
  const long = `a${"b".repeat(62)}`;
  const objects = await renderOk(helm4(), { set: [ON, `fullnameOverride=${long}`] });
  const role = ofKind(objects, "Role").find((o) => o.metadata.name.endsWith("-routes"));
  assert.ok(role !== undefined);
  assert.ok(role.metadata.name.length <= 63, role.metadata.name);
  const configmap = role.metadata.name;
  const volume =
    podSpec(ofKind(objects, "Deployment").find((o) => o.metadata.name.endsWith("-proxy"))!).volumes;
  assert.deepEqual(volume, [{ name: "routes", configMap: { name: configmap, optional: true } }]);
  const controller = ofKind(objects, "Deployment").find((o) => !o.metadata.name.endsWith("-proxy"))!;
  assert.ok(container(controller, "controller").args?.includes(`--routes-configmap=${configmap}`));
  const job = find(objects, "Job", `${long.slice(0, 62 - "routes-cleanup".length)}-routes-cleanup`);
  assert.ok(container(job, "cleanup").args?.includes(`--routes-configmap=${configmap}`));
});

test("the proxy's own volumes and mounts stay, after the route table's", async () => {
  const objects = await renderOk(helm4(), {
    set: [ON],
    values: {
      proxy: {
        extraVolumes: [{ name: "certs", secret: { secretName: "certs" } }],
        extraVolumeMounts: [{ name: "certs", mountPath: "/certs", readOnly: true }],
      },
    },
  });
  const proxy = proxyOf(objects);
  assert.deepEqual(podSpec(proxy).volumes, [
    { name: "routes", configMap: { name: "ouroboros-routes", optional: true } },
    { name: "certs", secret: { secretName: "certs" } },
  ]);
  assert.deepEqual(container(proxy, "proxy").volumeMounts, [
    { name: "routes", mountPath: MOUNT, readOnly: true },
    { name: "certs", mountPath: "/certs", readOnly: true },
  ]);
});

test("a preview (controller.dryRun) keeps the reads of routing, drops its writes, and renders no hook", async () => {
  for (const helm of helms()) {
    for (const [mode, set] of Object.entries(MODES)) {
      const label = `${helm.label} ${mode}`;
      const objects = await renderOk(helm, { set: [...set, ON, "controller.dryRun=true"] });
      const matrix = rbacMatrix(objects);
      assert.deepEqual(
        matrix["Role ouroboros/ouroboros-routes"],
        rules("core/configmaps/ouroboros-routes: list,watch"),
      );
      assert.ok(matrix["ClusterRole /ouroboros:ouroboros"]!.includes("core/services: list"), label);
      assert.ok(matrix["ClusterRole /ouroboros:ouroboros"]!.includes("core/services: watch"), label);
      assert.deepEqual(objects.filter(isHook).map((o) => `${o.kind} ${o.metadata.name}`), [], label);
      const args = controllerOf(objects).args ?? [];
      assert.ok(args.includes("--routes") && args.includes("--dry-run"), label);
    }
  }
});

test("uninstall: a post-delete hook waits for the controller's pods, then deletes this release's table", async () => {
  for (const [mode, set] of Object.entries(MODES)) {
    const objects = await renderOk(helm4(), { release: "edge", namespace: "net", set: [...set, ON] });
    const hooks = objects.filter((o) => isHook(o) && o.metadata.name === "edge-ouroboros-routes-cleanup");
    const annotations = (o: K8sObject) => {
      const a = o.metadata.annotations ?? {};
      return [a["helm.sh/hook"], a["helm.sh/hook-weight"], a["helm.sh/hook-delete-policy"]];
    };
    assert.deepEqual(
      hooks.map((o) => [o.kind, ...annotations(o)]).sort(),
      [
        ["Job", "post-delete", "0", "hook-succeeded,before-hook-creation"],
        ["Role", "post-delete", "-10", "hook-succeeded,hook-failed,before-hook-creation"],
        ["RoleBinding", "post-delete", "-10", "hook-succeeded,hook-failed,before-hook-creation"],
        ["ServiceAccount", "post-delete", "-10", "hook-succeeded,hook-failed,before-hook-creation"],
      ],
      mode,
    );
    const job = find(objects, "Job", "edge-ouroboros-routes-cleanup");
    assert.equal(job.metadata.namespace, "net");
    const c = container(job, "cleanup");
    assert.equal(c.image, "ghcr.io/ouroboros-ts/ouroboros:0.1.0");
    assert.equal(c.command, undefined, "the image's own entrypoint, no shell");
    const component = mode === "etc-hosts" ? "etc-hosts" : "controller";
    const workloadName = mode === "etc-hosts" ? "edge-ouroboros-etc-hosts" : "edge-ouroboros";
    assert.deepEqual(c.args, [
      "controller",
      "--log-level=info",
      "--log-format=json",
      ...routesArgs("edge-ouroboros-routes", "net"),
      "--cleanup",
      "--cleanup-routes-only",
      `--cleanup-quiesce=net/${workloadName}`,
      `--cleanup-quiesce-selector=app.kubernetes.io/name=ouroboros,app.kubernetes.io/instance=edge,app.kubernetes.io/component=${component}`,
      "--cleanup-quiesce-timeout=60s",
    ], mode);
    assert.equal(envOf(c).OUROBOROS_INSTANCE, "edge", mode);
    const [, ...argv] = c.args ?? [];
    const parsed = parseOptions(CONTROLLER_OPTIONS, { argv, getEnv: (name) => envOf(c)[name] });
    assert.ok(parsed.kind === "ok", `${mode}: ${JSON.stringify(parsed)}`);
    assert.deepEqual(cleanupProblems(parsed.values), [], mode);
    // The selector is the controller workload's own.
    const workload = objects.find((o) =>
      !isHook(o) && (o.kind === "Deployment" || o.kind === "DaemonSet") &&
      o.metadata.labels?.["app.kubernetes.io/component"] === component
    );
    assert.ok(workload !== undefined, mode);
    assert.deepEqual(restrictedViolations(podSpec(job)), [], mode);
    assert.equal(podSpec(job).serviceAccountName, "edge-ouroboros-routes-cleanup");
    const binding = find(objects, "RoleBinding", "edge-ouroboros-routes-cleanup");
    assert.deepEqual(binding.subjects, [
      { kind: "ServiceAccount", name: "edge-ouroboros-routes-cleanup", namespace: "net" },
    ]);
  }
  // Turned off, or no controller (nothing created the ConfigMap): no hook.
  for (const set of [["routing.cleanupOnUninstall=false"], ["controller.enabled=false"]]) {
    const objects = await renderOk(helm4(), { set: [ON, ...set] });
    assert.deepEqual(objects.filter((o) => /routes-cleanup/.test(o.metadata.name)), [], set.join());
  }
  // No controller: no Role or Service rule either (nothing would use them).
  const proxyOnly = await renderOk(helm4(), { set: [ON, "controller.enabled=false"] });
  assert.deepEqual(Object.keys(rbacMatrix(proxyOnly)), []);
});

test("NOTES: where the table is, and what the uninstall does with it", async () => {
  // Helm 4 only: `helm install --dry-run=client` of Helm 3 still asks a cluster for its version.
  const on = await notes(helm4(), { set: [ON] });
  assert.match(on, /Routing \(routing\.enabled\): a hostname in the controller's route table goes to/);
  assert.match(
    on,
    /kubectl --namespace ouroboros get configmap ouroboros-routes --output go-template='\{\{index \.data "routes\.json"\}\}'/,
  );
  assert.match(on, /A post-delete hook deletes the route table ConfigMap ouroboros-routes/);
  const kept = await notes(helm4(), { set: [ON, "routing.cleanupOnUninstall=false"] });
  assert.match(kept, /kubectl --namespace ouroboros delete configmap ouroboros-routes/);
  assert.doesNotMatch(await notes(helm4()), /Routing|route table/);
});

test("refused: bad routing values by the schema, naming the key; a zero read timeout by the render", async () => {
  for (const helm of helms()) {
    await assertSchemaRefuses(helm, [
      { set: ["routing.enabled=yes"], key: "routing.enabled" },
      { set: ["routing.readTimeout=5"], key: "routing.readTimeout" },
      { set: ["routing.cleanupOnUninstall=maybe"], key: "routing.cleanupOnUninstall" },
      { set: ["routing.configmap=mine"], key: "configmap" },
    ]);
    await assertSchemaRefuses(helm, [{ set: ["routing.readTimeout=soon"], key: "routing.readTimeout" }]);
    await assertSchemaRefuses(helm, [{ setString: ["routing.readTimeout="], key: "routing.readTimeout" }]);
    const zero = await renderFails(helm, { set: [ON, "routing.readTimeout=0s"] });
    assert.match(zero, /routing\.readTimeout=0s must be greater than 0/, helm.label);
    // Off, the timeout is not used, so it is not judged beyond the schema.
    await renderOk(helm, { set: ["routing.readTimeout=0s"] });
    // The legitimate spellings.
    for (const timeout of ["250ms", "1m30s", "2.5s"]) {
      const objects = await renderOk(helm, { set: [ON, `routing.readTimeout=${timeout}`] });
      assert.ok(container(proxyOf(objects), "proxy").args?.includes(`--route-read-timeout=${timeout}`));
    }
  }
});
