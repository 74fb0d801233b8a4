/**
 * Builds the real components of {@linkcode GO_COMPONENTS} from their Go modules, once, into
 * `.ci/cache/real/bin/<name>-<version>` (git-ignored, reused by every later run), and says what it
 * built and how long it took. `deno task real:build` runs it alone; the stack calls
 * {@linkcode ensureBuilt} before it starts anything.
 *
 * Decisions:
 * - The build runs in the component's own build module (`tests/real/build/<name>/`) with
 *   `-mod=readonly`, so `go.sum` is the authority and a build never rewrites a tracked file.
 * - A binary is published with one `rename` of a finished file, so a build cut short leaves no
 *   half-written executable that a later run would take for done.
 * - A failure is a value holding the last lines of the compiler's output, so a test that needs the
 *   component fails showing them (never a skip).
 *
 * Effects: runs `go`, writes the cache folder.
 *
 * @module
 */

import { type ComponentName, GO_COMPONENTS, type GoComponent } from "./versions.ts";

/** The cache folder of the real-component suite. */
export const REAL_CACHE = new URL("../../.ci/cache/real", import.meta.url).pathname;

/** The build modules' folder. */
export const BUILD_MODULES = new URL("./build", import.meta.url).pathname;

/** Where a component's executable lives once built. */
export function binaryPath(component: GoComponent): string {
  return `${REAL_CACHE}/bin/${component.name}-${component.version}`;
}

/** What one build did. */
export type BuildOutcome =
  | { readonly kind: "cached"; readonly component: GoComponent; readonly path: string }
  | {
    readonly kind: "built";
    readonly component: GoComponent;
    readonly path: string;
    readonly seconds: number;
  }
  | {
    readonly kind: "failed";
    readonly component: GoComponent;
    readonly seconds: number;
    readonly tail: string;
  };

/** The last `count` non-empty lines of `text`, for an error a person can act on. */
export function lastLines(text: string, count = 20): string {
  return text.split("\n").filter((line) => line.trim() !== "").slice(-count).join("\n");
}

/** The `go` executable: on PATH, or where the Go tarball installs it. */
export function goTool(): string {
  for (const dir of [...(Deno.env.get("PATH") ?? "").split(":"), "/usr/local/go/bin", "/usr/lib/go/bin"]) {
    if (dir === "") continue;
    try {
      if (Deno.statSync(`${dir}/go`).isFile) return `${dir}/go`;
    } catch {
      // Not here.
    }
  }
  throw new Error("go is not installed (the real-component suite builds its components with Go 1.26)");
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** Builds `component` unless its executable is already in the cache. Never throws for a failed build. */
export async function buildComponent(component: GoComponent): Promise<BuildOutcome> {
  const path = binaryPath(component);
  if (await exists(path)) return { kind: "cached", component, path };
  await Deno.mkdir(`${REAL_CACHE}/bin`, { recursive: true });
  const partial = `${path}.partial-${Deno.pid}`;
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 100) / 10;
  try {
    const output = await new Deno.Command(goTool(), {
      args: ["build", "-trimpath", "-mod=readonly", "-o", partial, component.mainPackage],
      cwd: `${BUILD_MODULES}/${component.buildModule}`,
      env: { GOTOOLCHAIN: "local", GOFLAGS: "-buildvcs=false" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      const text = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
      return { kind: "failed", component, seconds: seconds(), tail: lastLines(text) };
    }
    await Deno.rename(partial, path);
    return { kind: "built", component, path, seconds: seconds() };
  } catch (error) {
    await Deno.remove(partial).catch(() => {});
    return {
      kind: "failed",
      component,
      seconds: seconds(),
      tail: error instanceof Error ? error.message : String(error),
    };
  }
}

/** One line saying what a build did, for a person watching. */
export function describeOutcome(outcome: BuildOutcome): string {
  const { name, module, version } = outcome.component;
  switch (outcome.kind) {
    case "cached":
      return `${name}: ${module}@${version} already built (${outcome.path})`;
    case "built":
      return `${name}: built ${module}@${version} in ${outcome.seconds} s`;
    case "failed":
      return `${name}: building ${module}@${version} FAILED after ${outcome.seconds} s:\n${outcome.tail}`;
  }
}

const pending = new Map<ComponentName, Promise<BuildOutcome>>();

/**
 * The executable of the named component, built first when missing (once per process, whatever
 * the number of callers). Throws with the compiler's last lines when it cannot be built.
 */
export async function ensureBuilt(name: ComponentName): Promise<string> {
  const component = GO_COMPONENTS.find((candidate) => candidate.name === name);
  if (component === undefined) throw new Error(`no real component named ${name}`);
  let build = pending.get(name);
  if (build === undefined) {
    build = buildComponent(component).then((outcome) => {
      // deno-lint-ignore no-console
      if (outcome.kind !== "cached") console.error(describeOutcome(outcome));
      return outcome;
    });
    pending.set(name, build);
  }
  const outcome = await build;
  if (outcome.kind === "failed") throw new Error(describeOutcome(outcome));
  return outcome.path;
}

if (import.meta.main) {
  // deno task real:build: build every component, saying what and how long, and fail if any did.
  let failed = 0;
  const started = performance.now();
  for (const component of GO_COMPONENTS) {
    // deno-lint-ignore no-console
    console.log(`${component.name}: building ${component.module}@${component.version} …`);
    const outcome = await buildComponent(component);
    if (outcome.kind === "failed") failed++;
    // deno-lint-ignore no-console
    console.log(describeOutcome(outcome));
  }
  // deno-lint-ignore no-console
  console.log(`real components: ${Math.round((performance.now() - started) / 1000)} s in all`);
  if (failed > 0) Deno.exit(1);
}
