/**
 * Reads kuberture's config file: the one reader for start-up and every hot reload, so both judge
 * a file alike. Synchronous: the file is small and start-up settings are computed synchronously.
 *
 * Effects: reads one file.
 *
 * @module
 */

import { errorMessage } from "../../util/error_message.ts";
import { type KubertureConfig, parseKubertureConfig } from "./kuberture_config.ts";

/** What {@linkcode readKubertureConfig} found; `text` is what was read, if it could be. */
export type ReadKubertureConfig =
  | { readonly ok: true; readonly config: KubertureConfig; readonly text: string }
  | { readonly ok: false; readonly problems: readonly string[]; readonly text: string | undefined };

/**
 * Reads and parses `path`. A file that cannot be read (missing, no permission, not UTF-8) is one
 * problem naming the path.
 */
export function readKubertureConfig(path: string): ReadKubertureConfig {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch (error) {
    return { ok: false, problems: [`${path}: cannot be read: ${errorMessage(error)}`], text: undefined };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, problems: [`${path}: cannot be read: it is not UTF-8 text`], text: undefined };
  }
  const parsed = parseKubertureConfig(text, { path });
  return parsed.ok
    ? { ok: true, config: parsed.config, text }
    : { ok: false, problems: parsed.problems, text };
}
