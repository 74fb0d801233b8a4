/**
 * The floors `deno task bench:controller` prints beside the controller's memory: the resident
 * memory of an empty Deno program (`controller_floor_empty.ts`) and of one that has loaded the
 * controller's modules (`controller_floor_graph.ts`), each waiting idle, started exactly as the
 * controller is (`deno run --quiet --no-prompt -P=controller`, the same `DENO_V8_FLAGS` and
 * environment). Read once the program says `ready`, when its start-up is over.
 *
 * Effects: processes.
 *
 * @module
 */

import { ROOT } from "../support/ouroboros_process.ts";
import { type Memory, memoryOf } from "./controller_proc.ts";

/** The two floors. */
export interface Floors {
  readonly empty: Memory;
  readonly graph: Memory;
}

const EMPTY = new URL("./controller_floor_empty.ts", import.meta.url).pathname;
const GRAPH = new URL("./controller_floor_graph.ts", import.meta.url).pathname;

/** Runs `script` as the controller would be run, reads its memory once it is ready, kills it. */
async function idleMemory(script: string, env: Record<string, string>): Promise<Memory> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "-P=controller", script],
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let text = "";
    while (!text.includes("ready")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${script} ended before it was ready`);
      text += value;
    }
    return await memoryOf(child.pid);
  } finally {
    child.kill("SIGKILL");
    await reader.cancel().catch(() => {});
    await child.status;
  }
}

/** Both floors, with the controller's environment (its `DENO_V8_FLAGS` and the rest). */
export async function measureFloors(env: Record<string, string>): Promise<Floors> {
  return { empty: await idleMemory(EMPTY, env), graph: await idleMemory(GRAPH, env) };
}
