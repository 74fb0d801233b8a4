/**
 * The real stack a scenario runs against: a control plane (`control_plane.ts`) whose token file
 * holds one identity per ServiceAccount the chart's workloads run as (plus the peers' own, such
 * as CoreDNS's), with the chart's RBAC objects, as `helm template` renders them for the scenario's
 * values, applied as they are with the real kubectl. Nothing is granted by hand to ouroboros: a
 * verb the chart forgot is a 403 in the scenario.
 *
 * Decisions:
 * - The chart is rendered before the apiserver starts, because the token file is read once at
 *   start-up and must already name every ServiceAccount a workload of the render runs as.
 * - Only the RBAC objects, ServiceAccounts, Namespaces and CRDs of the render are applied: the
 *   workloads themselves are run by the scenario as processes on loopback, with the flags the
 *   rendered container would get (see {@linkcode containerArgs}).
 * - Everything lives in one temporary folder, removed on dispose unless the stack failed (then
 *   the logs stay and their path is printed).
 *
 * Effects: processes, files, the real kubectl and Helm.
 *
 * @module
 */

import { type K8sObject, renderOk } from "../chart/support.ts";
import { installHelm4, requireHelm } from "../support/helm.ts";
import { installKubeTools, requireKubeTools } from "../support/kubectl.ts";
import { type ControlPlane, startControlPlane } from "./control_plane.ts";
import { type Identity, newToken, serviceAccountIdentity } from "./identities.ts";
import {
  type AuditedRequest,
  describeGrant,
  type Grant,
  grantsOf,
  parseAuditLog,
  type ResourceRule,
  unusedGrants,
  withClusterWide,
} from "./rbac_usage.ts";

/** One chart release to render and install the RBAC of. */
export interface ReleaseSpec {
  readonly release: string;
  readonly namespace: string;
  /** `--set` entries. */
  readonly set?: readonly string[];
  /** Values given as a file, for trees awkward on a command line (such as a list of maps). */
  readonly values?: Record<string, unknown>;
  /**
   * Render the `helm test` hooks too (the doctor Pod, its ServiceAccount and read-only RBAC), so
   * the test Pod's ServiceAccount gets a token and its RBAC is installed. Default: without them.
   */
  readonly tests?: boolean;
}

/** A ServiceAccount another component (not ouroboros) runs as, with the RBAC it needs. */
export interface PeerAccount {
  readonly namespace: string;
  readonly name: string;
  /** ClusterRole rules granted to it (a ClusterRoleBinding is made). */
  readonly rules: readonly Record<string, unknown>[];
}

/** What a stack is started with. */
export interface StackOptions {
  readonly releases?: readonly ReleaseSpec[];
  readonly peers?: readonly PeerAccount[];
  /**
   * More tokens for a ServiceAccount of a release, one per replica: the same user and groups (so
   * RBAC judges them alike), each its own uid, so the audit log tells the replicas' requests apart.
   * Their labels are `<namespace>/<name>@<index>`, from 1.
   */
  readonly replicas?: readonly {
    readonly namespace: string;
    readonly name: string;
    readonly count: number;
  }[];
  /** More objects to apply (as the admin) once the RBAC is in, such as CRDs of peers. */
  readonly objects?: readonly Record<string, unknown>[];
  readonly random?: () => number;
}

/** A release as rendered, with the identities of its workloads. */
export interface RenderedRelease extends ReleaseSpec {
  readonly objects: readonly K8sObject[];
}

/** The output of a kubectl run. */
export interface KubectlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running stack. */
export interface Stack extends AsyncDisposable {
  readonly dir: string;
  readonly plane: ControlPlane;
  readonly releases: readonly RenderedRelease[];
  /** Every identity by label (`<namespace>/<serviceaccount>`), the admin's as "admin". */
  readonly identities: ReadonlyMap<string, Identity>;
  /** The identity of a ServiceAccount; throws when the stack has none by that name. */
  identity(namespace: string, name: string): Identity;
  /** A kubeconfig file for a ServiceAccount's identity. */
  kubeconfig(namespace: string, name: string): Promise<string>;
  /** Runs the real kubectl (as the admin unless `identity` is given). */
  kubectl(args: readonly string[], options?: { identity?: Identity; stdin?: string }): Promise<KubectlRun>;
  /** Runs kubectl and throws with its stderr unless it succeeded; returns stdout. */
  kubectlOk(args: readonly string[], options?: { identity?: Identity; stdin?: string }): Promise<string>;
  /**
   * Applies objects (server-side, as the admin, taking over fields other managers own, as a person
   * editing does), creating the namespaces they live in first.
   */
  apply(objects: readonly Record<string, unknown>[]): Promise<void>;
  /** Every completed resource request the apiserver has audited so far. */
  audited(): Promise<AuditedRequest[]>;
  /** What `identity` may do in `namespace` (a SelfSubjectRulesReview asked as that identity). */
  rulesReview(identity: Identity, namespace: string): Promise<ResourceRule[]>;
  /**
   * Every grant `identity` has in `namespaces`, with the rules it also has in a namespace no Role
   * is bound in made one cluster-wide grant each (see `rbac_usage.ts`).
   */
  grants(identity: Identity, namespaces: readonly string[]): Promise<Grant[]>;
  /**
   * The grants of {@linkcode grants} no audited request of `identity` used, described (`verb
   * group/resource in namespace [names]`): read after the identity's processes stopped, since a
   * watch is audited when it ends.
   */
  unusedGrants(identity: Identity, namespaces: readonly string[]): Promise<string[]>;
  /** The ClusterIP the apiserver gave a Service (a loopback address: see `control_plane.ts`). */
  clusterIp(namespace: string, name: string): Promise<string>;
  /** Marks the stack failed: its folder is kept for the logs. */
  keep(): void;
}

/** Kinds of a render the stack installs (the rest are workloads the scenarios run as processes). */
const INSTALLED_KINDS = new Set([
  "Namespace",
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
  "CustomResourceDefinition",
]);

/**
 * The ServiceAccounts the workloads of a render run as: `[namespace, name]` pairs. A hook Job (the
 * uninstall cleanup) and a bare Pod of the render (the `helm test` doctor, rendered with
 * {@linkcode ReleaseSpec.tests}) count too.
 */
export function workloadAccounts(objects: readonly K8sObject[], namespace: string): [string, string][] {
  const found = new Map<string, [string, string]>();
  for (const object of objects) {
    if (!["Deployment", "DaemonSet", "StatefulSet", "Job", "Pod"].includes(object.kind)) continue;
    const spec = object.spec as
      | { serviceAccountName?: string; template?: { spec?: { serviceAccountName?: string } } }
      | undefined;
    const name =
      (object.kind === "Pod" ? spec?.serviceAccountName : spec?.template?.spec?.serviceAccountName) ??
        "default";
    const ns = object.metadata.namespace ?? namespace;
    found.set(`${ns}/${name}`, [ns, name]);
  }
  return [...found.values()];
}

/** The namespaces the objects live in, so they can be created first. */
export function namespacesOf(objects: readonly Record<string, unknown>[]): string[] {
  const names = new Set<string>();
  for (const object of objects) {
    const metadata = object.metadata as { namespace?: unknown } | undefined;
    if (typeof metadata?.namespace === "string") names.add(metadata.namespace);
    const subjects = object.subjects as { namespace?: unknown }[] | undefined;
    for (const subject of subjects ?? []) {
      if (typeof subject.namespace === "string") names.add(subject.namespace);
    }
  }
  return [...names].sort();
}

/**
 * The arguments the rendered chart gives the container `container` of the workload `name`
 * (command after the image's entrypoint dropped: the subcommand first), so a scenario runs
 * ouroboros as the chart would.
 */
export function containerArgs(objects: readonly K8sObject[], workload: string, container: string): string[] {
  const found = objects.find((object) =>
    ["Deployment", "DaemonSet", "Job"].includes(object.kind) && object.metadata.name === workload
  );
  if (found === undefined) {
    throw new Error(`the render has no Deployment, DaemonSet or Job named ${workload}`);
  }
  const containers =
    (found.spec as { template: { spec: { containers: { name: string; args?: string[] }[] } } })
      .template.spec.containers;
  const match = containers.find((candidate) => candidate.name === container);
  if (match === undefined) throw new Error(`${workload} has no container named ${container}`);
  return [...(match.args ?? [])];
}

/** Starts the control plane with the releases' identities and installs their RBAC. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const random = options.random ?? Math.random;
  const helm = requireHelm(await installHelm4());
  const tools = requireKubeTools(await installKubeTools());
  const releases: RenderedRelease[] = [];
  for (const spec of options.releases ?? []) {
    const objects = await renderOk(helm, {
      release: spec.release,
      namespace: spec.namespace,
      set: spec.set ?? [],
      ...(spec.values === undefined ? {} : { values: spec.values }),
      ...(spec.tests === true ? { tests: true } : {}),
    });
    releases.push({ ...spec, objects });
  }
  const identities = new Map<string, Identity>();
  for (const release of releases) {
    for (const [namespace, name] of workloadAccounts(release.objects, release.namespace)) {
      identities.set(`${namespace}/${name}`, serviceAccountIdentity(namespace, name, newToken(random)));
    }
  }
  for (const { namespace, name, count } of options.replicas ?? []) {
    for (let index = 1; index <= count; index++) {
      const base = serviceAccountIdentity(namespace, name, newToken(random));
      identities.set(`${namespace}/${name}@${index}`, {
        ...base,
        label: `${namespace}/${name}@${index}`,
        uid: `${base.uid}-replica-${index}`,
      });
    }
  }
  for (const peer of options.peers ?? []) {
    identities.set(
      `${peer.namespace}/${peer.name}`,
      serviceAccountIdentity(peer.namespace, peer.name, newToken(random)),
    );
  }
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-real-" });
  let keep = false;
  let plane: ControlPlane;
  try {
    plane = await startControlPlane({ dir, identities: [...identities.values()], random });
  } catch (error) {
    // deno-lint-ignore no-console
    console.error(`real stack failed to start; its files are kept in ${dir}`);
    throw error;
  }
  identities.set("admin", plane.admin);
  const cacheDir = `${dir}/kubectl-cache`;
  // Namespaces known to exist: apply creates any other that its objects live in, first.
  const known = new Set(["default", "kube-system", "kube-public", "kube-node-lease"]);

  const kubectl = async (args: readonly string[], opts: { identity?: Identity; stdin?: string } = {}) => {
    const kubeconfig = opts.identity === undefined
      ? plane.adminKubeconfig
      : await plane.kubeconfig(opts.identity);
    const child = new Deno.Command(tools.kubectl, {
      args: [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`, ...args],
      stdin: opts.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: dir },
    }).spawn();
    if (opts.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(opts.stdin));
      await writer.close();
    }
    const output = await child.output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  };
  const kubectlOk = async (args: readonly string[], opts: { identity?: Identity; stdin?: string } = {}) => {
    const run = await kubectl(args, opts);
    if (run.code !== 0) {
      throw new Error(`kubectl ${args.join(" ")} failed (${run.code}): ${run.stderr.trim()}`);
    }
    return run.stdout;
  };
  const apply = async (objects: readonly Record<string, unknown>[]) => {
    if (objects.length === 0) return;
    const missing = namespacesOf(objects).filter((name) => !known.has(name));
    const namespaces = missing.map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }));
    const list = { apiVersion: "v1", kind: "List", items: [...namespaces, ...objects] };
    await kubectlOk(
      ["apply", "--server-side", "--force-conflicts", "--field-manager=real-suite", "-f", "-"],
      {
        stdin: JSON.stringify(list),
      },
    );
    for (const name of missing) known.add(name);
  };

  const stack: Stack = {
    dir,
    plane,
    releases,
    identities,
    identity(namespace, name) {
      const found = identities.get(`${namespace}/${name}`);
      if (found === undefined) throw new Error(`the stack has no identity for ${namespace}/${name}`);
      return found;
    },
    kubeconfig: (namespace, name) => plane.kubeconfig(stack.identity(namespace, name), namespace),
    kubectl,
    kubectlOk,
    apply,
    audited: async () => parseAuditLog(await Deno.readTextFile(plane.auditLogPath).catch(() => "")),
    async rulesReview(identity, namespace) {
      const response = await plane.request("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
        identity,
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectRulesReview",
          spec: { namespace },
        }),
      });
      if (!response.ok) {
        throw new Error(`rules review as ${identity.user}: ${response.status} ${await response.text()}`);
      }
      const review = await response.json() as {
        status?: { resourceRules?: ResourceRule[]; incomplete?: boolean };
      };
      if (review.status?.incomplete === true) {
        throw new Error(`the rules review as ${identity.user} is incomplete`);
      }
      return review.status?.resourceRules ?? [];
    },
    async grants(identity, namespaces) {
      const namespaced: Grant[] = [];
      for (const namespace of namespaces) {
        namespaced.push(...grantsOf(await stack.rulesReview(identity, namespace), namespace));
      }
      // A namespace nothing is installed in: only ClusterRoleBindings' rules show there.
      const unbound = grantsOf(await stack.rulesReview(identity, "rbac-probe"), "rbac-probe");
      return withClusterWide(unbound, namespaced);
    },
    async unusedGrants(identity, namespaces) {
      const grants = await stack.grants(identity, namespaces);
      return unusedGrants(grants, await stack.audited(), identity.user).map(describeGrant);
    },
    async clusterIp(namespace, name) {
      const ip = await kubectlOk([
        "get",
        "service",
        "-n",
        namespace,
        name,
        "-o",
        "jsonpath={.spec.clusterIP}",
      ]);
      if (ip.trim() === "") throw new Error(`the Service ${namespace}/${name} has no ClusterIP`);
      return ip.trim();
    },
    keep: () => keep = true,
    async [Symbol.asyncDispose]() {
      await plane[Symbol.asyncDispose]();
      if (keep) {
        // deno-lint-ignore no-console
        console.error(`real stack files kept in ${dir}`);
      } else {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  };

  try {
    const installed = releases.flatMap((release) =>
      release.objects.filter((object) => INSTALLED_KINDS.has(object.kind)) as unknown as Record<
        string,
        unknown
      >[]
    );
    const peerObjects = (options.peers ?? []).flatMap((peer) => peerRbac(peer));
    const all = [...installed, ...peerObjects, ...(options.objects ?? [])];
    // CRDs first: objects of their kinds can only be applied once they are established.
    const crds = all.filter((object) => object.kind === "CustomResourceDefinition");
    await apply(crds);
    for (const crd of crds) {
      const name = (crd.metadata as { name: string }).name;
      await kubectlOk(["wait", "--for=condition=Established", "--timeout=60s", `crd/${name}`]);
    }
    await apply(all.filter((object) => object.kind !== "CustomResourceDefinition"));
  } catch (error) {
    keep = true;
    await stack[Symbol.asyncDispose]();
    throw error;
  }
  return stack;
}

/** A peer's ServiceAccount with a ClusterRole of its rules and the binding. */
function peerRbac(peer: PeerAccount): Record<string, unknown>[] {
  const name = `real-peer-${peer.namespace}-${peer.name}`;
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: peer.name, namespace: peer.namespace } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: peer.rules,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name: peer.name, namespace: peer.namespace }],
    },
  ];
}
