/**
 * The project's deno.json as tests read it: its version, tasks and permission sets.
 *
 * @module
 */

import assert from "node:assert/strict";

/** The parts of deno.json the tests look at. */
export interface DenoJson {
  readonly version: string;
  readonly tasks: Readonly<Record<string, string | { readonly command: string }>>;
  readonly permissions: Readonly<Record<string, Readonly<Record<string, boolean | string[]>>>>;
}

/** deno.json, read once. */
export const DENO_JSON = JSON.parse(
  await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
) as DenoJson;

/** The command line of a deno.json task, failing the test when there is no such task. */
export function taskCommand(name: string): string {
  const task = DENO_JSON.tasks[name];
  assert.ok(task !== undefined, `deno.json has a ${name} task`);
  return typeof task === "string" ? task : task.command;
}
