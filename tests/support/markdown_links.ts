/**
 * The links of a Markdown text and the anchors its headings make, by GitHub's rules, so a test can
 * check that every relative link of the docs leads to a file that exists and, with a `#fragment`, to
 * a heading (or an explicit `<a id>`/`<a name>`) that exists in it.
 *
 * GitHub's heading anchor: the heading's text (Markdown marks and HTML tags dropped, a link's text
 * kept), lower-cased, every character that is not a letter, a digit, a space, `-` or `_` removed,
 * each space turned into `-`; the second heading with the same anchor gets `-1`, the third `-2`.
 * Fenced code blocks hold no headings and no links; inline code holds no links.
 *
 * Pure: text in, values out; {@linkcode brokenLinks} reads files through the lookup it is given.
 *
 * @module
 */

/** One link of a Markdown text. */
export interface MarkdownLink {
  /** 1-based line of the link's target. */
  readonly line: number;
  /** The target as written: `docs/proxy.md#flags`, `#install`, `https://…`. */
  readonly target: string;
}

/** GitHub's anchor for a heading's text (before the duplicate suffix). */
export function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replaceAll(" ", "-");
}

/** The lines of `markdown` with fenced code blocks blanked (kept as empty lines, so numbers hold). */
function withoutFences(markdown: string): string[] {
  const lines = markdown.split("\n");
  let fence: string | undefined;
  return lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (marker === undefined) return line;
      fence = marker;
      return "";
    }
    if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    return "";
  });
}

/** Every anchor a file offers: its headings' slugs (duplicates numbered) and explicit `<a>` ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown)) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = headingSlug(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const match of line.matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) {
      anchors.add(match[1]!);
    }
  }
  return anchors;
}

/** Inline code spans blanked with spaces (a span may cross lines, never a blank line). */
function withoutInlineCode(text: string): string {
  return text.replace(
    /(`+)(?!`)((?:(?!\n[ \t]*\n)[\s\S])*?[^`])\1(?!`)/g,
    (span) => span.replace(/[^\n]/g, " "),
  );
}

/** Every inline link and image, and every reference definition, outside code. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const text = withoutInlineCode(
    withoutFences(markdown).join("\n").replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, " ")),
  );
  const lineAt = (index: number) => text.slice(0, index).split("\n").length;
  const links: MarkdownLink[] = [];
  for (const match of text.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ line: lineAt(match.index), target: match[1]!.replace(/^<|>$/g, "") });
  }
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*(\S+)/gm)) {
    links.push({ line: lineAt(match.index), target: match[1]!.replace(/^<|>$/g, "") });
  }
  return links.sort((a, b) => a.line - b.line);
}

/** What {@linkcode brokenLinks} reads besides the file itself. */
export interface LinkLookup {
  /** The text of a file, by its path from the repository root; `undefined` when it does not exist. */
  readonly read: (path: string) => string | undefined;
  /** Whether a path exists at all (a folder, or a file that is not Markdown). */
  readonly exists: (path: string) => boolean;
}

/** `a/b/../c` as `a/c`; the paths never leave the repository root. */
function normalise(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

/**
 * Every link of the file at `path` (from the repository root) that leads nowhere: a relative file
 * that does not exist, or an anchor its target lacks. Web and mail links are not followed.
 */
export function brokenLinks(path: string, markdown: string, lookup: LinkLookup): string[] {
  const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
  const problems: string[] = [];
  for (const { line, target } of markdownLinks(markdown)) {
    if (/^(https?|mailto):/i.test(target)) continue;
    const hash = target.indexOf("#");
    const file = hash < 0 ? target : target.slice(0, hash);
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = file === "" ? path : normalise(folder + decodeURIComponent(file));
    if (file !== "" && !lookup.exists(resolved)) {
      problems.push(`${path}:${line}: ${target}: no file ${resolved}`);
      continue;
    }
    if (anchor === undefined) continue;
    const text = resolved === path ? markdown : lookup.read(resolved);
    if (text === undefined) {
      problems.push(`${path}:${line}: ${target}: ${resolved} has no anchors to link to`);
      continue;
    }
    if (!anchorsOf(text).has(anchor)) {
      problems.push(`${path}:${line}: ${target}: no anchor #${anchor} in ${resolved}`);
    }
  }
  return problems;
}
