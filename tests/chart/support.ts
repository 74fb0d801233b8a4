/**
 * The opening every chart test file shares (which Helms it runs with, whether its tests are
 * ignored: {@linkcode chartHelms}), rendering the chart with the real Helm and reading what it
 * rendered: parsed objects with the
 * few typed views the chart tests need (pods, containers, RBAC rules), the RBAC rules as sets,
 * the Pod Security "restricted" rules, and validation of every object with `kubernetes-models`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import {
  type Helm,
  type HelmRun,
  installHelm3,
  installHelm4,
  requireHelm,
  runHelm,
  skipWithoutHelm,
} from "../support/helm.ts";
import { skipWithout } from "../support/tools.ts";

/** The chart folder. */
export const CHART_DIR = new URL("../../chart", import.meta.url).pathname;

/** Object metadata as the chart renders it. */
export interface Metadata {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

/** One rendered object; `spec` and the rest are read through the typed views below. */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: Metadata;
  readonly [field: string]: unknown;
}

/** An environment variable of a container. */
export interface EnvVar {
  readonly name: string;
  readonly value?: string;
}

/** The container fields the tests read. */
export interface Container {
  readonly name: string;
  readonly image: string;
  readonly imagePullPolicy?: string;
  readonly command?: string[];
  readonly args?: string[];
  readonly env?: EnvVar[];
  readonly ports?: { name?: string; containerPort: number; protocol?: string }[];
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
  readonly securityContext?: SecurityContext;
  readonly resources?: Record<string, unknown>;
  readonly volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

/** An HTTP probe. */
export interface Probe {
  readonly httpGet?: { path: string; port: string | number };
}

/** Pod- or container-level security settings. */
export interface SecurityContext {
  readonly runAsNonRoot?: boolean;
  readonly runAsUser?: number;
  readonly runAsGroup?: number;
  readonly privileged?: boolean;
  readonly allowPrivilegeEscalation?: boolean;
  readonly readOnlyRootFilesystem?: boolean;
  readonly capabilities?: { drop?: string[]; add?: string[] };
  readonly seccompProfile?: { type: string };
}

/** A volume. */
export interface Volume {
  readonly name: string;
  readonly hostPath?: { path: string; type?: string };
  readonly emptyDir?: Record<string, unknown>;
  readonly [source: string]: unknown;
}

/** The pod spec fields the tests read. */
export interface PodSpec {
  readonly serviceAccountName?: string;
  readonly automountServiceAccountToken?: boolean;
  readonly hostNetwork?: boolean;
  readonly hostPID?: boolean;
  readonly hostIPC?: boolean;
  readonly restartPolicy?: string;
  readonly securityContext?: SecurityContext;
  readonly containers: Container[];
  readonly initContainers?: Container[];
  readonly volumes?: Volume[];
  readonly tolerations?: Record<string, unknown>[];
  readonly nodeSelector?: Record<string, string>;
  readonly affinity?: Record<string, unknown>;
  readonly topologySpreadConstraints?: Record<string, unknown>[];
  readonly imagePullSecrets?: { name: string }[];
}

/** A pod template. */
export interface PodTemplate {
  readonly metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  readonly spec: PodSpec;
}

/** An RBAC rule. */
export interface PolicyRule {
  readonly apiGroups?: string[];
  readonly resources?: string[];
  readonly resourceNames?: string[];
  readonly verbs: string[];
}

/** Which Helms a chart test file runs with, and what else its tests need. */
export interface ChartHelmsOptions {
  /** Helm 3 as well as Helm 4 (default true). */
  readonly helm3?: boolean;
  /** Tools on PATH every test of the file needs besides Helm (see `skipWithout`). */
  readonly tools?: readonly string[];
}

/** The Helms of a chart test file and how it registers its tests. */
export interface ChartHelms {
  /** Helm 4 (inside a test body: throws when it is missing). */
  readonly helm4: () => Helm;
  /** Helm 4, then Helm 3 when the file runs both (inside a test body: throws when one is missing). */
  readonly helms: () => Helm[];
  /** Whether the file's tests are ignored: outside CI, when a Helm or a tool could not be found. */
  readonly ignore: boolean;
  /** Registers a test, ignored when {@linkcode ChartHelms.ignore} is. */
  readonly test: (name: string, fn: () => Promise<void>) => void;
}

/**
 * The opening of every chart test file: installs Helm 4 and, unless `options.helm3` is false,
 * Helm 3 (from the cache when there), and decides whether the tests of `what` are ignored, saying
 * why when they are.
 */
export async function chartHelms(what: string, options: ChartHelmsOptions = {}): Promise<ChartHelms> {
  const helm4 = await installHelm4();
  const helm3 = options.helm3 === false ? undefined : await installHelm3();
  const results = helm3 === undefined ? [helm4] : [helm4, helm3];
  const ignore = skipWithoutHelm(what, ...results) ||
    (options.tools !== undefined && skipWithout(what, options.tools));
  return {
    helm4: () => requireHelm(helm4),
    helms: () => results.map(requireHelm),
    ignore,
    test: (name, fn) => Deno.test({ name, ignore, fn }),
  };
}

/** The controller's modes. */
export type Mode = "coredns" | "coredns-import" | "external-dns" | "etc-hosts";

/** Values selecting each mode, with what the mode needs to render. */
export const MODES: Record<Mode, readonly string[]> = {
  "coredns": [],
  "coredns-import": ["controller.mode=coredns-import"],
  "external-dns": ["controller.mode=external-dns"],
  "etc-hosts": ["etcHosts.enabled=true", "etcHosts.proxyIP=10.96.0.50"],
};

/** The modes run by the controller Deployment (etc-hosts runs a DaemonSet instead). */
export const DEPLOYMENT_MODES = [
  "coredns",
  "coredns-import",
  "external-dns",
] as const satisfies readonly Mode[];

/** Options of one render. */
export interface RenderOptions {
  /** Release name (default "ouroboros"). */
  readonly release?: string;
  /** Release namespace (default "ouroboros"). */
  readonly namespace?: string;
  /** `--set` entries, such as "controller.mode=external-dns". */
  readonly set?: readonly string[];
  /** `--set-string` entries. */
  readonly setString?: readonly string[];
  /** Values given as a file (JSON is YAML), for keys awkward on a command line. */
  readonly values?: Record<string, unknown>;
  /** More arguments for `helm template`. */
  readonly extra?: readonly string[];
  /**
   * Also render the `helm test` objects (the doctor's Pod and read-only RBAC). Off by default, so
   * a test of what the release installs sees only that; tests of the whole chart turn it on.
   */
  readonly tests?: boolean;
}

/** A finished render: the objects when Helm succeeded, and what it printed. */
export interface Rendered extends HelmRun {
  readonly objects: K8sObject[];
}

/** The `helm template` arguments of a render (values files are written to a temporary folder). */
async function templateArgs(options: RenderOptions, command: "template" | "install"): Promise<string[]> {
  const args = [
    command,
    options.release ?? "ouroboros",
    CHART_DIR,
    "--namespace",
    options.namespace ?? "ouroboros",
  ];
  if (command === "install") args.push("--dry-run=client");
  if (command === "template" && options.tests !== true) args.push("--skip-tests");
  for (const entry of options.set ?? []) args.push("--set", entry);
  for (const entry of options.setString ?? []) args.push("--set-string", entry);
  if (options.values !== undefined) {
    const file = await Deno.makeTempFile({ prefix: "ouroboros-values-", suffix: ".yaml" });
    await Deno.writeTextFile(file, JSON.stringify(options.values));
    args.push("--values", file);
  }
  args.push(...(options.extra ?? []));
  return args;
}

async function removeValuesFiles(args: readonly string[]): Promise<void> {
  for (let i = 0; i < args.length - 1; i++) {
    if (args[i] === "--values") await Deno.remove(args[i + 1]!).catch(() => {});
  }
}

/** Parses a multi-document YAML stream, failing on any syntax error and dropping empty documents. */
export function parseObjects(text: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    assert.deepEqual(doc.errors.map((error) => error.message), [], "the rendered YAML must parse");
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    assert.ok(typeof value === "object" && !Array.isArray(value), `a rendered document is not an object`);
    const object = value as K8sObject;
    assert.equal(typeof object.kind, "string", `a rendered document has no kind: ${JSON.stringify(value)}`);
    assert.equal(typeof object.metadata?.name, "string", `a ${object.kind} has no name`);
    out.push(object);
  }
  return out;
}

/** Runs `helm template` (hooks included) and parses its output when it succeeded. */
export async function render(helm: Helm, options: RenderOptions = {}): Promise<Rendered> {
  const args = await templateArgs(options, "template");
  try {
    const run = await runHelm(helm, args);
    return { ...run, objects: run.code === 0 ? parseObjects(run.stdout) : [] };
  } finally {
    await removeValuesFiles(args);
  }
}

/** Renders and insists on success, returning the objects. */
export async function renderOk(helm: Helm, options: RenderOptions = {}): Promise<K8sObject[]> {
  const rendered = await render(helm, options);
  assert.equal(rendered.code, 0, `helm template failed: ${rendered.stderr}`);
  return rendered.objects;
}

/** Renders and insists on failure, returning what Helm printed on stderr. */
export async function renderFails(helm: Helm, options: RenderOptions = {}): Promise<string> {
  const rendered = await render(helm, options);
  assert.notEqual(rendered.code, 0, `helm template should have failed for ${JSON.stringify(options)}`);
  return rendered.stderr;
}

/** The NOTES Helm prints after `helm install --dry-run=client`. */
export async function notes(helm: Helm, options: RenderOptions = {}): Promise<string> {
  const args = await templateArgs(options, "install");
  try {
    const run = await runHelm(helm, args);
    assert.equal(run.code, 0, `helm install --dry-run failed: ${run.stderr}`);
    const at = run.stdout.indexOf("\nNOTES:\n");
    assert.ok(at >= 0, "helm printed no NOTES");
    return run.stdout.slice(at + "\nNOTES:\n".length);
  } finally {
    await removeValuesFiles(args);
  }
}

/** The one object of `kind` named `name`. */
export function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.filter((object) => object.kind === kind && object.metadata.name === name);
  assert.equal(
    found.length,
    1,
    `expected one ${kind} ${name}, found ${found.length} among ${ids(objects).join(", ")}`,
  );
  return found[0]!;
}

/** Every object of `kind`. */
export function ofKind(objects: readonly K8sObject[], kind: string): K8sObject[] {
  return objects.filter((object) => object.kind === kind);
}

/** "Kind namespace/name" for each object, sorted. */
export function ids(objects: readonly K8sObject[]): string[] {
  return objects.map((object) => `${object.kind} ${object.metadata.namespace ?? ""}/${object.metadata.name}`)
    .sort();
}

/** Whether an object is a Helm hook. */
export function isHook(object: K8sObject): boolean {
  return object.metadata.annotations?.["helm.sh/hook"] !== undefined;
}

const WORKLOADS = new Set(["Deployment", "DaemonSet", "Job"]);

/** The pod template of a Deployment, DaemonSet or Job. */
export function podTemplate(object: K8sObject): PodTemplate {
  assert.ok(WORKLOADS.has(object.kind), `${object.kind} has no pod template`);
  const spec = object.spec as { template?: PodTemplate } | undefined;
  assert.ok(spec?.template?.spec !== undefined, `${object.kind} ${object.metadata.name} has no pod template`);
  return spec.template;
}

/** The pod spec of a workload. */
export function podSpec(object: K8sObject): PodSpec {
  return podTemplate(object).spec;
}

/** A container of a workload, by name (init containers included). */
export function container(object: K8sObject, name: string): Container {
  const spec = podSpec(object);
  const found = [...spec.containers, ...(spec.initContainers ?? [])].filter((c) => c.name === name);
  assert.equal(found.length, 1, `${object.kind} ${object.metadata.name} has no single container ${name}`);
  return found[0]!;
}

/** A container's environment as a plain map. */
export function envOf(c: Container): Record<string, string> {
  return Object.fromEntries((c.env ?? []).map((variable) => [variable.name, variable.value ?? ""]));
}

/** The `selector.matchLabels` of a workload, Service selector, PDB or NetworkPolicy. */
export function selectorOf(object: K8sObject): Record<string, string> {
  const spec = object.spec as {
    selector?: Record<string, string> & { matchLabels?: Record<string, string> };
    podSelector?: { matchLabels?: Record<string, string> };
  };
  if (object.kind === "Service") return spec.selector ?? {};
  if (object.kind === "NetworkPolicy") return spec.podSelector?.matchLabels ?? {};
  return spec.selector?.matchLabels ?? {};
}

/** Whether `labels` carry every label of `selector`. */
export function matches(
  selector: Record<string, string>,
  labels: Record<string, string> | undefined,
): boolean {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([key, value]) => labels?.[key] === value);
}

/**
 * The rules of a Role or ClusterRole as a sorted set of "group/resource[/name]: verb" strings, one
 * per combination, so two renders can be compared whatever the rule grouping.
 */
export function ruleSet(object: K8sObject): string[] {
  assert.ok(object.kind === "Role" || object.kind === "ClusterRole", `${object.kind} has no rules`);
  const rules = (object.rules ?? []) as PolicyRule[];
  const out = new Set<string>();
  for (const rule of rules) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const names = rule.resourceNames ?? [""];
        for (const name of names) {
          for (const verb of rule.verbs) {
            out.add(`${group === "" ? "core" : group}/${resource}${name === "" ? "" : `/${name}`}: ${verb}`);
          }
        }
      }
    }
  }
  return [...out].sort();
}

/** Expands a compact rule description ("core/configmaps/coredns: get,update") into ruleSet's form. */
export function rules(...lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const [target, verbs] = line.split(": ");
    for (const verb of verbs!.split(",")) out.push(`${target}: ${verb}`);
  }
  return out.sort();
}

/**
 * Every Role and ClusterRole of a render, keyed by "Kind namespace/name", with its rule set: the
 * whole RBAC a release grants, hooks included.
 */
export function rbacMatrix(objects: readonly K8sObject[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const object of objects) {
    if (object.kind !== "Role" && object.kind !== "ClusterRole") continue;
    out[`${object.kind} ${object.metadata.namespace ?? ""}/${object.metadata.name}`] = ruleSet(object);
  }
  return out;
}

/** Merges the pod and container security settings the way the kubelet applies them. */
function effective(pod: SecurityContext | undefined, c: SecurityContext | undefined): SecurityContext {
  return { ...(pod ?? {}), ...(c ?? {}) };
}

const RESTRICTED_VOLUMES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);

/**
 * What keeps a pod out of the Pod Security "restricted" level (empty: it is admitted), after the
 * rules of the Kubernetes Pod Security Standards.
 */
export function restrictedViolations(spec: PodSpec): string[] {
  const problems: string[] = [];
  if (spec.hostNetwork === true) problems.push("hostNetwork");
  if (spec.hostPID === true) problems.push("hostPID");
  if (spec.hostIPC === true) problems.push("hostIPC");
  for (const volume of spec.volumes ?? []) {
    const sources = Object.keys(volume).filter((key) => key !== "name");
    for (const source of sources) {
      if (!RESTRICTED_VOLUMES.has(source)) problems.push(`volume ${volume.name} is ${source}`);
    }
  }
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    const sc = effective(spec.securityContext, c.securityContext);
    if (sc.privileged === true) problems.push(`${c.name}: privileged`);
    if (c.securityContext?.allowPrivilegeEscalation !== false) {
      problems.push(`${c.name}: allowPrivilegeEscalation`);
    }
    if (!(c.securityContext?.capabilities?.drop ?? []).includes("ALL")) {
      problems.push(`${c.name}: capabilities not dropped`);
    }
    const added = (c.securityContext?.capabilities?.add ?? []).filter((cap) => cap !== "NET_BIND_SERVICE");
    if (added.length > 0) problems.push(`${c.name}: adds ${added.join(",")}`);
    if (sc.runAsNonRoot !== true) problems.push(`${c.name}: runAsNonRoot not true`);
    if (sc.runAsUser === 0) problems.push(`${c.name}: runAsUser 0`);
    const seccomp = sc.seccompProfile?.type;
    if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost") {
      problems.push(`${c.name}: seccomp ${seccomp}`);
    }
  }
  return problems;
}

/** Kinds that live in no namespace. */
export const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding"]);

type Validator = new (data: unknown) => { validate(): void };
type Loader = () => Promise<Record<string, unknown>>;

/** The `kubernetes-models` class of each kind the chart renders. */
const MODELS: Record<string, Loader> = {
  "v1/Namespace": () => import("npm:kubernetes-models@5.1.0/v1/Namespace"),
  "v1/ServiceAccount": () => import("npm:kubernetes-models@5.1.0/v1/ServiceAccount"),
  "v1/Service": () => import("npm:kubernetes-models@5.1.0/v1/Service"),
  "v1/ConfigMap": () => import("npm:kubernetes-models@5.1.0/v1/ConfigMap"),
  "v1/Pod": () => import("npm:kubernetes-models@5.1.0/v1/Pod"),
  "apps/v1/Deployment": () => import("npm:kubernetes-models@5.1.0/apps/v1/Deployment"),
  "apps/v1/DaemonSet": () => import("npm:kubernetes-models@5.1.0/apps/v1/DaemonSet"),
  "batch/v1/Job": () => import("npm:kubernetes-models@5.1.0/batch/v1/Job"),
  "policy/v1/PodDisruptionBudget": () => import("npm:kubernetes-models@5.1.0/policy/v1/PodDisruptionBudget"),
  "networking.k8s.io/v1/NetworkPolicy": () =>
    import("npm:kubernetes-models@5.1.0/networking.k8s.io/v1/NetworkPolicy"),
  "rbac.authorization.k8s.io/v1/ClusterRole": () =>
    import("npm:kubernetes-models@5.1.0/rbac.authorization.k8s.io/v1/ClusterRole"),
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": () =>
    import("npm:kubernetes-models@5.1.0/rbac.authorization.k8s.io/v1/ClusterRoleBinding"),
  "rbac.authorization.k8s.io/v1/Role": () =>
    import("npm:kubernetes-models@5.1.0/rbac.authorization.k8s.io/v1/Role"),
  "rbac.authorization.k8s.io/v1/RoleBinding": () =>
    import("npm:kubernetes-models@5.1.0/rbac.authorization.k8s.io/v1/RoleBinding"),
};

/**
 * Kinds validated by hand instead: kubernetes-models has no Prometheus Operator types (they live
 * in a separate package), so a ServiceMonitor is checked for the fields the chart sets.
 */
const BY_HAND: Record<string, (object: K8sObject) => void> = {
  "monitoring.coreos.com/v1/PrometheusRule": (object) => {
    const groups =
      (object.spec as { groups?: { name?: unknown; rules?: { alert?: unknown; expr?: unknown }[] }[] })
        .groups ?? [];
    assert.ok(groups.length > 0, "PrometheusRule has no groups");
    for (const group of groups) {
      assert.equal(typeof group.name, "string");
      assert.ok((group.rules ?? []).length > 0, `group ${String(group.name)} has no rules`);
      for (const rule of group.rules ?? []) {
        assert.equal(typeof rule.alert, "string");
        assert.equal(typeof rule.expr, "string");
      }
    }
  },
  "monitoring.coreos.com/v1/ServiceMonitor": (object) => {
    const spec = object.spec as {
      selector?: { matchLabels?: Record<string, string> };
      endpoints?: { port?: unknown; path?: unknown }[];
    };
    assert.ok(Object.keys(spec.selector?.matchLabels ?? {}).length > 0, "ServiceMonitor selects nothing");
    assert.ok((spec.endpoints ?? []).length > 0, "ServiceMonitor has no endpoints");
    for (const endpoint of spec.endpoints ?? []) {
      assert.equal(typeof endpoint.port, "string");
      assert.equal(typeof endpoint.path, "string");
    }
  },
};

/** Validates one object against its Kubernetes schema, throwing with the object's id on a problem. */
export async function validateObject(object: K8sObject): Promise<void> {
  const key = `${object.apiVersion}/${object.kind}`;
  const byHand = BY_HAND[key];
  if (byHand !== undefined) {
    byHand(object);
    return;
  }
  const load = MODELS[key];
  assert.ok(load !== undefined, `no schema known for ${key}: add it to MODELS in tests/chart/support.ts`);
  const model = (await load())[object.kind] as Validator;
  try {
    new model(structuredClone(object)).validate();
  } catch (error) {
    throw new Error(`${object.kind} ${object.metadata.name} is invalid: ${String(error)}`);
  }
}

/** The selector labels of this release's component (the labels its pods are chosen by). */
export function selectorLabels(component: string, release = "ouroboros"): Record<string, string> {
  return {
    "app.kubernetes.io/name": "ouroboros",
    "app.kubernetes.io/instance": release,
    "app.kubernetes.io/component": component,
  };
}

/** The value at a dotted path of a parsed values tree, or `undefined`. */
export function valueAt(tree: unknown, path: string): unknown {
  let node = tree;
  for (const part of path.split(".")) {
    if (typeof node !== "object" || node === null || !(part in node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * Whether a Helm schema error names `key`: Helm 3 prints "a.b.0.c", Helm 4 "/a/b/0/c"; both name an
 * unknown key alone.
 */
export function namesKey(stderr: string, key: string): boolean {
  return stderr.includes(key) || stderr.includes(`/${key.replaceAll(".", "/")}`);
}

/** A bad value and the key its schema error must name. */
export interface SchemaRefusal extends RenderOptions {
  readonly key: string;
}

function mergeValues(into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...into };
  for (const [key, value] of Object.entries(from)) {
    const existing = out[key];
    const bothMaps = [existing, value].every((item) =>
      typeof item === "object" && item !== null && !Array.isArray(item)
    );
    out[key] = bothMaps
      ? mergeValues(existing as Record<string, unknown>, value as Record<string, unknown>)
      : value;
  }
  return out;
}

/**
 * The cases in rounds of unrelated keys (in no round does one key contain another), each round
 * one set of render options: Helm 3 and Helm 4 both report every schema error at once, so one
 * render checks a round, and a value wrongly accepted still leaves its own key unnamed.
 */
export function refusalRounds(cases: readonly SchemaRefusal[]): { options: RenderOptions; keys: string[] }[] {
  const rounds: SchemaRefusal[][] = [];
  const related = (a: string, b: string) =>
    a.toLowerCase().includes(b.toLowerCase()) ||
    b.toLowerCase().includes(a.toLowerCase());
  for (const refusal of cases) {
    const round = rounds.find((members) => members.every((member) => !related(member.key, refusal.key)));
    if (round === undefined) rounds.push([refusal]);
    else round.push(refusal);
  }
  return rounds.map((members) => ({
    keys: members.map((member) => member.key),
    options: {
      set: members.flatMap((member) => member.set ?? []),
      setString: members.flatMap((member) => member.setString ?? []),
      values: members.reduce<Record<string, unknown>>(
        (all, member) => mergeValues(all, member.values ?? {}),
        {},
      ),
    },
  }));
}

/** Asserts `helm` refuses every case with a schema error naming its key, a round per render. */
export async function assertSchemaRefuses(helm: Helm, cases: readonly SchemaRefusal[]): Promise<void> {
  for (const { options, keys } of refusalRounds(cases)) {
    const stderr = await renderFails(helm, options);
    const label = `${helm.label} ${JSON.stringify(options)}`;
    assert.match(stderr, /values don't meet the specifications of the schema/, label);
    for (const key of keys) {
      assert.ok(namesKey(stderr, key), `${label}: the error does not name ${key}:\n${stderr}`);
    }
  }
}
