/**
 * The text a hook Job runs with `/bin/sh -c`, built the way the chart builds it, so the tests run and
 * compare exactly what the Job runs. No side effects on import (render_test.ts uses it without kubectl).
 *
 * @module
 */

/** Where the scripts live; the shared files are in its `lib/` folder. */
export const SCRIPTS_DIR = new URL("../../chart/scripts/", import.meta.url).pathname;

/** The chart's hook scripts. */
export type HookScript =
  | "etc-hosts-quiesce.sh"
  | "etc-hosts-cleanup.sh"
  | "routes-cleanup.sh";

/**
 * The shared files (in `chart/scripts/lib/`) each script runs after, in order: the `libs` each template
 * passes to `ouroboros.hookJob`. render_test.ts checks every rendered Job against {@linkcode hookScript},
 * so this table and the templates cannot drift apart.
 */
export const HOOK_LIBS: Readonly<Record<HookScript, readonly string[]>> = {
  "etc-hosts-quiesce.sh": ["common.sh"],
  "etc-hosts-cleanup.sh": ["common.sh"],
  "routes-cleanup.sh": ["common.sh"],
};

/**
 * The `/bin/sh -c` text of `script`'s hook Job, as `ouroboros.hookScript` in chart/templates/_helpers.tpl
 * assembles it: `chart/scripts/lib/<lib>` for each of {@linkcode HOOK_LIBS}`[script]` in order, then
 * `chart/scripts/<script>`, each with a final newline added when it has none. Throws, as the render
 * fails, when one of them is missing or empty (only whitespace).
 */
export function hookScript(script: HookScript): string {
  const paths = [...HOOK_LIBS[script].map((lib) => `lib/${lib}`), script];
  let text = "";
  for (const path of paths) {
    let part: string;
    try {
      part = Deno.readTextFileSync(`${SCRIPTS_DIR}${path}`);
    } catch (error) {
      throw new Error(`scripts/${path} is missing from the chart`, { cause: error });
    }
    if (part.trim() === "") throw new Error(`scripts/${path} is empty`);
    text += part.endsWith("\n") ? part : `${part}\n`;
  }
  return text;
}
