/**
 * Every relative link of the documentation leads somewhere: the README, every page of `docs/`, the
 * chart's README, CONTRIBUTING.md and CHANGELOG.md. A link to a file needs the file; a link with a
 * `#fragment` needs that anchor in its target, by GitHub's rules (`tests/support/markdown_links.ts`).
 * Web and mail links are not followed.
 */

import assert from "node:assert/strict";
import {
  anchorsOf,
  brokenLinks,
  headingSlug,
  type LinkLookup,
  markdownLinks,
} from "./support/markdown_links.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** The documentation files, from the repository root. */
async function documentation(): Promise<string[]> {
  const pages: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}docs`)) {
    if (entry.isFile && entry.name.endsWith(".md")) pages.push(`docs/${entry.name}`);
  }
  return ["README.md", ...pages.sort(), "chart/README.md", "CONTRIBUTING.md", "CHANGELOG.md"];
}

const DISK: LinkLookup = {
  read: (path) => {
    if (!path.endsWith(".md")) return undefined;
    try {
      return Deno.readTextFileSync(`${ROOT}${path}`);
    } catch {
      return undefined;
    }
  },
  exists: (path) => {
    try {
      Deno.statSync(`${ROOT}${path}`);
      return true;
    } catch {
      return false;
    }
  },
};

Deno.test("docs: every relative link and #anchor of the documentation resolves", async () => {
  const files = await documentation();
  assert.ok(files.length >= 15, `the documentation files: ${files.join(", ")}`);
  const problems: string[] = [];
  let checked = 0;
  for (const file of files) {
    const text = DISK.read(file);
    assert.ok(text !== undefined, `${file} exists`);
    checked += markdownLinks(text).length;
    problems.push(...brokenLinks(file, text, DISK));
  }
  assert.ok(checked > 100, `links found: ${checked}`);
  assert.deepEqual(problems, []);
});

Deno.test("docs: a heading's anchor follows GitHub's rules", () => {
  const cases: [string, string][] = [
    ["Quick start", "quick-start"],
    ["Troubleshooting: `ouroboros doctor`", "troubleshooting-ouroboros-doctor"],
    ["High availability: leader election", "high-availability-leader-election"],
    ["Without Helm: `chart/quickstart.yaml`", "without-helm-chartquickstartyaml"],
    ["How the stack is set up (`tests/real/`)", "how-the-stack-is-set-up-testsreal"],
    ["1. Do you need ouroboros? (`need`)", "1-do-you-need-ouroboros-need"],
    ["The reflector (`bench:kube`)", "the-reflector-benchkube"],
    ["Leader-election failover", "leader-election-failover"],
    ["snake_case stays, so does kebab-case", "snake_case-stays-so-does-kebab-case"],
    ["A / B", "a--b"],
    ["[Unreleased]", "unreleased"],
    ["[0.1.0] - 2026-12-05", "010---2026-12-05"],
    ["See [the chart](chart/README.md)", "see-the-chart"],
    ["**Bold** and <em>tags</em>", "bold-and-tags"],
    ["Écoute, café", "écoute-café"],
  ];
  for (const [heading, slug] of cases) assert.equal(headingSlug(heading), slug, heading);
});

Deno.test("docs: anchors number duplicates, skip code blocks and include explicit ids", () => {
  const text = [
    "# Flags",
    "## Flags",
    "```sh",
    "# not a heading",
    "```",
    "### Flags ###",
    '<a id="kept"></a>',
    '<a name="old-name"></a>',
  ].join("\n");
  assert.deepEqual([...anchorsOf(text)].sort(), ["flags", "flags-1", "flags-2", "kept", "old-name"]);
});

Deno.test("docs: links are found outside code, with their lines", () => {
  const text = [
    "See [the proxy](docs/proxy.md#flags) and [top](#top).",
    "`[not](a-link.md)` in code, and",
    "```md",
    "[nor](this.md)",
    "```",
    "an image ![logo](logo.png), a [web link](https://example.com/x) and",
    "[ref]: CONTRIBUTING.md",
  ].join("\n");
  assert.deepEqual(markdownLinks(text), [
    { line: 1, target: "docs/proxy.md#flags" },
    { line: 1, target: "#top" },
    { line: 6, target: "logo.png" },
    { line: 6, target: "https://example.com/x" },
    { line: 7, target: "CONTRIBUTING.md" },
  ]);
});

Deno.test("docs: the checker catches a missing file and a missing anchor, and accepts what exists", () => {
  const page = [
    "# `ouroboros proxy`",
    "## Flags",
    "## Flags",
    "[ok](proxy.md#flags-1) [ok](../README.md#install) [ok](#flags) [ok](shot.png) [ok](../docs)",
    "[web](https://example.com/nowhere.md#x) [mail](mailto:someone@example.com)",
    "[gone](operations.md) [no anchor](proxy.md#flags-2) [no anchor here](#install)",
    "[not markdown](shot.png#top) [no anchor there](../README.md#flags)",
  ].join("\n");
  const files: Record<string, string> = {
    "README.md": "# ouroboros\n\n## Install\n",
    "docs/proxy.md": page,
    "docs/shot.png": "",
  };
  const lookup: LinkLookup = {
    read: (path) => path.endsWith(".md") ? files[path] : undefined,
    exists: (path) => path in files || path === "docs",
  };
  assert.deepEqual(brokenLinks("docs/proxy.md", page, lookup), [
    "docs/proxy.md:6: operations.md: no file docs/operations.md",
    "docs/proxy.md:6: proxy.md#flags-2: no anchor #flags-2 in docs/proxy.md",
    "docs/proxy.md:6: #install: no anchor #install in docs/proxy.md",
    "docs/proxy.md:7: shot.png#top: docs/shot.png has no anchors to link to",
    "docs/proxy.md:7: ../README.md#flags: no anchor #flags in README.md",
  ]);
});
