/**
 * Reads the "Embedded Files" tree `deno compile` prints: which npm packages a binary embeds and how
 * many bytes of npm code that is. Pure: text in, figures out.
 *
 * Decisions a reader could not guess:
 * - The tree folds single-child folders into one label (`@logtape/logtape/*`, `yaml/2.9.1/*`) and
 *   opens the others (`@types` with `node/*` under it), so a package's name is rebuilt from the path:
 *   its first segment, or its first two when the first is a scope.
 * - Sizes are the first figure of each label (the total, not the "unique" one); KB and MB are read as
 *   1,024-based, which is what the figures sum to.
 *
 * @module
 */

/** What a binary embeds from npm. */
export interface NpmListing {
  /** Bytes of npm code in all (the `.deno_compile_node_modules` line). */
  readonly totalBytes: number;
  /** Each embedded package with its bytes, by name (`@scope/name` or `name`). */
  readonly packages: ReadonlyMap<string, number>;
}

const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** `1.14MB` in bytes; throws on anything else, naming it. */
export function listingBytes(size: string): number {
  const match = /^([\d.]+)(B|KB|MB|GB)$/.exec(size);
  if (match === null) throw new Error(`not a size from deno compile's listing: ${JSON.stringify(size)}`);
  return Math.round(Number(match[1]) * UNITS[match[2]!]!);
}

const NODE = /^([│ ]*)[├└]─[─┬] (.+?) \(([\d.]+(?:B|KB|MB|GB))(?: - [^)]*)?\)$/;

/** The npm part of a `deno compile` listing; a listing without npm code embeds none. */
export function npmListing(text: string): NpmListing {
  const stack: string[] = [];
  let totalBytes = 0;
  const packages = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = NODE.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 2;
    const label = match[2]!;
    const bytes = listingBytes(match[3]!);
    stack.length = depth;
    stack.push(label);
    if (stack[0] !== ".deno_compile_node_modules") continue;
    if (depth === 0) totalBytes = bytes;
    // Depth 1 is the registry (`localhost`); below it, folders and packages.
    if (depth < 2) continue;
    const segments = stack.slice(2).join("/").split("/").filter((segment) => segment !== "*");
    const scoped = segments[0]!.startsWith("@");
    if (scoped && segments.length < 2) continue; // A scope's folder; its packages follow.
    const name = scoped ? `${segments[0]}/${segments[1]}` : segments[0]!;
    // A package's folder comes before its version folders, and its figure covers them.
    if (!packages.has(name)) packages.set(name, bytes);
  }
  return { totalBytes, packages };
}
