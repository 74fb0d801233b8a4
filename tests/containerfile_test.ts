/**
 * The Containerfile, checked without a container engine (the project's machines have none, so the image
 * itself is never built here):
 *
 * - the build stage is the Deno version `.ci/run` tests with, and runs deno.json's own compile task (so
 *   the compile flags and the permission set live in one place), and nothing else compiles;
 * - every COPY source exists and survives `.containerignore`, which keeps everything else out;
 * - the build context alone (the files `.containerignore` lets through), stamped the way the build
 *   stage stamps it, loads and runs: `ouroboros version` prints the stamped version and revision;
 * - the final stage is distroless, non-root, shell-free, with the binary as its exec-form entrypoint
 *   and the OCI labels;
 * - every base image is pinned by digest, its tag kept beside it for people;
 * - `.dockerignore` (read by Docker) is `.containerignore` (read by Podman and Buildah), byte for byte.
 */

import assert from "node:assert/strict";
import { DENO_JSON, taskCommand } from "./support/deno_json.ts";
import { tempDir } from "./support/temp_dir.ts";

const ROOT = new URL("../", import.meta.url).pathname;

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly instructions: readonly Instruction[];
}

interface Containerfile {
  /** ARGs before the first FROM, with their defaults. */
  readonly globalArgs: ReadonlyMap<string, string>;
  readonly stages: readonly Stage[];
}

/** Instructions of a Containerfile: comments dropped, `\` continuations joined. */
function parseContainerfile(text: string): Containerfile {
  const instructions: Instruction[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (pending === "" && /^\s*(#|$)/.test(line)) continue;
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1) + " ";
      continue;
    }
    const full = (pending + line).trim();
    pending = "";
    if (full === "" || full.startsWith("#")) continue;
    const match = /^(\S+)\s*(.*)$/.exec(full)!;
    instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim() });
  }
  const globalArgs = new Map<string, string>();
  const stages: { from: string; name: string | undefined; instructions: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const [from, as, name] = instruction.args.split(/\s+/);
      stages.push({ from: from!, name: as?.toUpperCase() === "AS" ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      assert.equal(instruction.keyword, "ARG", "only ARG may come before the first FROM");
      const [key, value] = instruction.args.split("=");
      globalArgs.set(key!, value ?? "");
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

const CONTAINERFILE = parseContainerfile(await Deno.readTextFile(`${ROOT}Containerfile`));
const BUILD = CONTAINERFILE.stages[0]!;
const FINAL = CONTAINERFILE.stages.at(-1)!;

/** `${NAME}` replaced by the global ARG defaults. */
function expand(text: string): string {
  return text.replace(/\$\{(\w+)\}/g, (_, name: string) => {
    const value = CONTAINERFILE.globalArgs.get(name);
    assert.ok(value !== undefined, `\${${name}} is not a global ARG`);
    return value;
  });
}

/** Splits `COPY [--flag=…]… src… dest` into flags, sources and destination. */
function copyParts(args: string): { flags: Map<string, string>; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const flags = new Map<string, string>();
  while (words[0]?.startsWith("--")) {
    const [key, value] = words.shift()!.slice(2).split("=");
    flags.set(key!, value ?? "");
  }
  const dest = words.pop()!;
  return { flags, sources: words, dest };
}

function stageArgs(stage: Stage): Map<string, string> {
  const args = new Map<string, string>();
  for (const { keyword, args: text } of stage.instructions) {
    if (keyword !== "ARG") continue;
    const [key, value] = text.split("=");
    args.set(key!, value ?? "");
  }
  return args;
}

// --- .containerignore, with the semantics of Docker's and Buildah's pattern matcher -------------------

interface IgnoreRule {
  readonly exclude: boolean;
  readonly pattern: RegExp;
}

function patternRegExp(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*" && pattern[i + 1] === "*") {
      if (pattern[i + 2] === "/") {
        source += "(?:.*/)?";
        i += 2;
      } else {
        source += ".*";
        i += 1;
      }
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

function ignoreRules(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split("\n")) {
    let line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const exclude = !line.startsWith("!");
    if (!exclude) line = line.slice(1).trim();
    line = line.replace(/^\/+/, "").replace(/^\.\//, "").replace(/\/+$/, "");
    rules.push({ exclude, pattern: patternRegExp(line) });
  }
  return rules;
}

/** Whether `path` (relative to the context) is left out: the last rule matching it or a parent decides. */
function ignored(rules: readonly IgnoreRule[], path: string): boolean {
  const parts = path.split("/");
  const candidates = parts.map((_, index) => parts.slice(0, index + 1).join("/"));
  let excluded = false;
  for (const rule of rules) {
    if (candidates.some((candidate) => rule.pattern.test(candidate))) excluded = rule.exclude;
  }
  return excluded;
}

const RULES = ignoreRules(await Deno.readTextFile(`${ROOT}.containerignore`));

/** Big or private folders that are never walked; they must be ignored as a whole. */
const NEVER_WALKED = [".git", "node_modules", ".ci/cache", "dist"];

/** Every file under `dir` (relative to the repo), skipping {@linkcode NEVER_WALKED}. */
async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (NEVER_WALKED.includes(path)) continue;
    if (entry.isDirectory) files.push(...await filesUnder(path));
    else files.push(path);
  }
  return files.sort();
}

/** The files a COPY of `source` brings in, after `.containerignore`. */
async function copied(source: string): Promise<string[]> {
  const clean = source.replace(/^\.\//, "").replace(/\/+$/, "");
  const info = await Deno.stat(`${ROOT}${clean}`);
  const files = info.isDirectory ? await filesUnder(clean) : [clean];
  return files.filter((file) => !ignored(RULES, file));
}

function denoVersionInCi(): string {
  const match = /^DENO_VERSION=(\S+)$/m.exec(Deno.readTextFileSync(`${ROOT}.ci/run`));
  assert.ok(match !== null, ".ci/run sets DENO_VERSION");
  return match[1]!;
}

// --- tests -------------------------------------------------------------------------------------------

Deno.test("the Containerfile builds with the Deno version .ci/run tests with", () => {
  const version = denoVersionInCi();
  assert.equal(CONTAINERFILE.globalArgs.get("DENO_VERSION"), version);
  const image = expand(BUILD.from).replace(/@.*$/, "");
  assert.match(image, /^docker\.io\/denoland\/deno:/);
  assert.ok(image.endsWith(`-${version}`) || image.endsWith(`:${version}`), `${image} is Deno ${version}`);
  assert.equal(CONTAINERFILE.stages.length, 2, "a build stage and a final stage");
});

Deno.test("the build stage runs deno.json's compile task and the final stage takes its output", () => {
  const compile = taskCommand("compile");
  assert.match(compile, /^deno compile /);
  assert.match(compile, / -P=binary /, "the binary permission set");
  const output = /--output (\S+)/.exec(compile)?.[1];
  assert.ok(output !== undefined, "the compile task names its output");
  assert.ok(compile.endsWith(" main.ts"));

  const runs = BUILD.instructions.filter((instruction) => instruction.keyword === "RUN");
  assert.ok(runs.some((run) => /^deno task compile(\s|$)/.test(run.args)), "RUN deno task compile");
  const all = CONTAINERFILE.stages.flatMap((stage) => stage.instructions);
  assert.ok(
    !all.some((instruction) => /deno compile/.test(instruction.args)),
    "no deno compile of its own: the flags come from deno.json",
  );
  const workdir = BUILD.instructions.find((instruction) => instruction.keyword === "WORKDIR")?.args;
  assert.ok(workdir !== undefined);
  const copies = FINAL.instructions.filter((instruction) => instruction.keyword === "COPY");
  assert.equal(copies.length, 1, "the final stage copies only the binary");
  const { flags, sources, dest } = copyParts(copies[0]!.args);
  assert.equal(flags.get("from"), BUILD.name);
  assert.deepEqual(sources, [`${workdir}/${output}`]);
  assert.equal(dest, "/ouroboros");
  assert.equal(flags.get("chmod"), "555", "read and execute only, for everyone");
});

Deno.test("every COPY source exists and is not excluded by .containerignore", async () => {
  for (const stage of CONTAINERFILE.stages) {
    for (const { keyword, args } of stage.instructions) {
      if (keyword !== "COPY" && keyword !== "ADD") continue;
      const { flags, sources } = copyParts(args);
      if (flags.has("from")) continue;
      for (const source of sources) {
        const clean = source.replace(/^\.\//, "").replace(/\/+$/, "");
        await Deno.stat(`${ROOT}${clean}`).catch(() => assert.fail(`COPY source ${source} does not exist`));
        assert.equal(ignored(RULES, clean), false, `${source} is excluded by .containerignore`);
        assert.ok((await copied(source)).length > 0, `${source} brings files into the build`);
      }
    }
  }
});

Deno.test(".containerignore lets in exactly what the Containerfile copies", async () => {
  const sources = BUILD.instructions
    .filter((instruction) => instruction.keyword === "COPY")
    .flatMap((instruction) => copyParts(instruction.args).sources);
  const wanted = new Set<string>();
  for (const source of sources) for (const file of await copied(source)) wanted.add(file);
  const inContext = (await filesUnder("")).filter((file) => !ignored(RULES, file));
  assert.deepEqual(inContext, [...wanted].sort());
  for (
    const path of [...NEVER_WALKED, ".ci/run", "chart/Chart.yaml", "tests/containerfile_test.ts", "README.md"]
  ) {
    assert.equal(ignored(RULES, path), true, `${path} stays out of the build context`);
  }
  assert.ok(inContext.includes("lib/util/version.ts") && inContext.includes("main.ts"));
  assert.ok(!inContext.some((file) => file.endsWith("_test.ts")), "no test files");
});

Deno.test("the build context alone, stamped as the build stage does, runs and reports the stamped version", async () => {
  for (const stage of CONTAINERFILE.stages) {
    const defaults = stageArgs(stage);
    if (defaults.has("VERSION")) {
      assert.equal(defaults.get("VERSION"), DENO_JSON.version, "the VERSION default is deno.json's version");
    }
  }
  const stamp = BUILD.instructions.find((instruction) =>
    instruction.keyword === "RUN" && instruction.args.includes("REVISION")
  );
  assert.ok(stamp !== undefined, "a RUN stamps VERSION and REVISION");
  await using temp = await tempDir("ouroboros-context-");
  const context = temp.path;
  const sources = BUILD.instructions
    .filter((instruction) => instruction.keyword === "COPY")
    .flatMap((instruction) => copyParts(instruction.args).sources);
  for (const source of sources) {
    for (const file of await copied(source)) {
      await Deno.mkdir(`${context}/${file}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await Deno.copyFile(`${ROOT}${file}`, `${context}/${file}`);
    }
  }
  const run = async (command: string, args: string[], env: Record<string, string> = {}) => {
    const output = await new Deno.Command(command, {
      args,
      cwd: context,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder();
    assert.equal(
      output.code,
      0,
      `${command} ${args.join(" ")} failed: ${text.decode(output.stderr)}${text.decode(output.stdout)}`,
    );
    return text.decode(output.stdout);
  };
  await run("sh", ["-c", stamp.args], { VERSION: "9.8.7", REVISION: "0123abc" });
  const printed = await run(Deno.execPath(), ["run", "--no-prompt", "--frozen", "main.ts", "version"]);
  assert.equal(printed, "ouroboros 9.8.7 (0123abc)\n");
});

Deno.test("the final stage is distroless, non-root and shell-free, with /ouroboros as its entrypoint", () => {
  assert.match(
    FINAL.from,
    /^gcr\.io\/distroless\/cc-debian12:nonroot@/,
    "glibc for the deno binary, no shell",
  );
  const keywords = FINAL.instructions.map((instruction) => instruction.keyword);
  assert.ok(
    !keywords.includes("RUN") && !keywords.includes("SHELL"),
    "nothing runs in a stage with no shell",
  );
  const user = FINAL.instructions.filter((instruction) => instruction.keyword === "USER").at(-1)?.args;
  assert.ok(user !== undefined, "USER is set");
  const [uid, gid] = user.split(":");
  assert.match(uid!, /^\d+$/, "a numeric uid, so runAsNonRoot can check it");
  assert.notEqual(Number(uid), 0);
  assert.notEqual(Number(gid ?? uid), 0);
  const entrypoints = FINAL.instructions.filter((instruction) => instruction.keyword === "ENTRYPOINT");
  assert.equal(entrypoints.length, 1);
  assert.deepEqual(JSON.parse(entrypoints[0]!.args), ["/ouroboros"], "exec form");
  assert.ok(!keywords.includes("CMD"), "no default arguments: the subcommand is always given");

  const labels = new Map<string, string>();
  for (const { keyword, args } of FINAL.instructions) {
    if (keyword !== "LABEL") continue;
    for (const match of args.matchAll(/([\w.-]+)="([^"]*)"/g)) labels.set(match[1]!, match[2]!);
  }
  for (const key of ["source", "version", "revision", "licenses", "title"]) {
    assert.ok(labels.has(`org.opencontainers.image.${key}`), `label org.opencontainers.image.${key}`);
  }
  assert.equal(labels.get("org.opencontainers.image.version"), "${VERSION}");
  assert.equal(labels.get("org.opencontainers.image.revision"), "${REVISION}");
  assert.equal(labels.get("org.opencontainers.image.licenses"), "BSD-3-Clause");
  assert.match(labels.get("org.opencontainers.image.source")!, /^https:\/\//);
});

Deno.test("every base image is pinned by digest, with its tag kept for people", () => {
  for (const stage of CONTAINERFILE.stages) {
    const image = expand(stage.from);
    const match = /^([^@\s:]+(?::\d+)?\/[^@\s:]+):([^@\s]+)@(sha256:[a-f0-9]{64})$/.exec(image);
    assert.ok(match !== null, `FROM ${stage.from} names repository:tag@sha256:<64 hex digits>`);
  }
  const digests = CONTAINERFILE.stages.map((stage) => stage.from.split("@")[1]);
  assert.equal(new Set(digests).size, digests.length, "each base its own digest");
});

Deno.test(".dockerignore is .containerignore, so Docker and Podman send the same build context", async () => {
  const containerignore = await Deno.readTextFile(`${ROOT}.containerignore`);
  const dockerignore = await Deno.readTextFile(`${ROOT}.dockerignore`);
  assert.equal(dockerignore, containerignore, "copy .containerignore over .dockerignore");
});
