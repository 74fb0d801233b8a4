/**
 * Reading kuberture's config file from disk, the one reader: the start-up load (through
 * `kubertureSettings`) and each hot reload read the whole file and parse it with
 * {@linkcode parseKubertureConfig}, so both say the same thing about the same file. Synchronous:
 * the file is small, and the start-up settings are computed synchronously.
 *
 * Effects: reads one file.
 *
 * @module
 */

import { errorMessage } from "../../util/error_message.ts";
import { type KubertureConfig, parseKubertureConfig } from "./kuberture_config.ts";

/** The outcome of {@linkcode readKubertureConfig}. */
export type ReadKubertureConfig =
  /** The file was read and accepted; `text` is what was read, for later comparisons. */
  | { readonly ok: true; readonly config: KubertureConfig; readonly text: string }
  /** The file could not be read (`text` undefined) or was refused (`text` is what was read). */
  | { readonly ok: false; readonly problems: readonly string[]; readonly text: string | undefined };

/**
 * Reads and parses the config file at `path`. A file that cannot be read (missing, a directory,
 * no permission, not UTF-8) is one problem naming the path; otherwise the parser's problems.
 *
 * @example
 * ```ts
 * import { readKubertureConfig } from "./read_kuberture_config.ts";
 *
 * const read = readKubertureConfig("/etc/kuberture/config.yaml");
 * if (read.ok) read.config.outputs.length; // 1 or more
 * else read.problems; // ["/etc/kuberture/config.yaml: cannot be read: No such file or directory …"]
 * ```
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
