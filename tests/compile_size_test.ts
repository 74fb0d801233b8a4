/**
 * The binary embeds only the npm code that runs (issue 31): deno.json's own compile task, run with
 * its output in a temporary folder, lists at most 10 MiB of npm code, and exactly the packages
 * `main.ts` and `lib/` import as values (a type-only import, such as `@kubernetes/client-node`'s
 * object types, and the tests' own packages stay out).
 *
 * `deno compile` needs `denort`, which these machines cannot download; given `DENORT_BIN` (or, by
 * default, this Deno CLI in its place) it still writes the real listing of what it embeds, which is
 * what is measured. The file it writes around the CLI is not a working binary and is deleted.
 */

import assert from "node:assert/strict";
import { DENO_JSON, taskCommand } from "./support/deno_json.ts";
import { listingBytes, npmListing } from "./support/compile_listing.ts";
import { tempDir } from "./support/temp_dir.ts";

const ROOT = new URL("../", import.meta.url);
/** The most npm code the binary may embed. */
const LIMIT_BYTES = 10 * 1024 ** 2;

/** The npm package a specifier names through deno.json's imports (or inline), if any. */
function npmPackage(specifier: string, imports: Readonly<Record<string, string>>): string | undefined {
  const target = imports[specifier] ?? specifier;
  const match = /^npm:(@[^/@]+\/[^/@]+|[^/@]+)/.exec(target);
  return match?.[1];
}

/** Every npm package imported as a value (not `import type`) by main.ts and lib/. */
async function runtimePackages(): Promise<Set<string>> {
  const imports = (DENO_JSON as unknown as { imports: Record<string, string> }).imports;
  const files = [new URL("main.ts", ROOT)];
  const walk = async (folder: URL): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), folder);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts")) files.push(url);
    }
  };
  await walk(new URL("lib/", ROOT));
  const found = new Set<string>();
  // `import x from "s"`, `import { x } from "s"`, `export { x } from "s"`, `import("s")`, `import "s"`;
  // the lookbehind-free form skips statements that start `import type` or `export type`.
  const statement =
    /^\s*(import|export)\s+(?!type\s)[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)|^\s*import\s+"([^"]+)"/gm;
  for (const file of files) {
    const text = await Deno.readTextFile(file);
    for (const match of text.matchAll(statement)) {
      const name = npmPackage(match[2] ?? match[3] ?? match[4]!, imports);
      if (name !== undefined) found.add(name);
    }
  }
  return found;
}

Deno.test("compile listing: sizes and package names are read from deno compile's tree", () => {
  const listing = [
    "Embedded Files",
    "",
    "ouroboros",
    "├─┬ .deno_compile_node_modules (3.5MB - 3.4MB unique)",
    "│ └─┬ localhost (3.5MB - 3.4MB unique)",
    "│   ├── @logtape/logtape/* (1.14MB - 1.14MB unique)",
    "│   ├─┬ @types (2.49MB - 2.49MB unique)",
    "│   │ ├── dns-packet/* (10.5KB - 10.49KB unique)",
    "│   │ └── node/* (2.47MB - 2.47MB unique)",
    "│   ├─┬ undici (20KB)",
    "│   │ ├── 6.0.0/* (10KB)",
    "│   │ └── 7.1.0/* (10KB)",
    "│   └── yaml/2.9.1/* (675.49KB - 674KB unique)",
    "├── deno.json (11.06KB)",
    "└─┬ lib (3.43MB)",
    "  └── cli/* (64.83KB)",
  ].join("\n");
  const { totalBytes, packages } = npmListing(listing);
  assert.equal(totalBytes, listingBytes("3.5MB"));
  assert.deepEqual(
    [...packages],
    [
      ["@logtape/logtape", listingBytes("1.14MB")],
      ["@types/dns-packet", listingBytes("10.5KB")],
      ["@types/node", listingBytes("2.47MB")],
      ["undici", listingBytes("20KB")],
      ["yaml", listingBytes("675.49KB")],
    ],
  );
  assert.deepEqual(npmListing("Embedded Files\n\nouroboros\n└── main.ts (1KB)\n"), {
    totalBytes: 0,
    packages: new Map(),
  });
  assert.equal(listingBytes("12B"), 12);
  assert.throws(() => listingBytes("1.2 MB"), /not a size from deno compile's listing: "1.2 MB"/);
});

Deno.test("binary: deno task compile embeds at most 10 MiB of npm code, only the packages lib/ runs", async () => {
  const command = taskCommand("compile");
  assert.match(
    command,
    / --exclude-unused-npm /,
    "the compile task prunes npm packages the program never imports",
  );
  await using dir = await tempDir("ouroboros-compile-");
  const args = command.split(/\s+/).slice(1).map((arg, index, all) =>
    all[index - 1] === "--output" ? `${dir.path}/ouroboros` : arg
  );
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT.pathname,
    env: { DENORT_BIN: Deno.env.get("DENORT_BIN") ?? Deno.execPath(), NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `deno ${args.join(" ")} failed:\n${text}`);
  const { totalBytes, packages } = npmListing(text);
  const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(2);
  await Deno.stdout.write(new TextEncoder().encode(
    `npm code embedded: ${mib(totalBytes)} MiB (limit ${mib(LIMIT_BYTES)} MiB): ` +
      [...packages].map(([name, bytes]) => `${name} ${mib(bytes)} MiB`).join(", ") + "\n",
  ));
  assert.ok(
    totalBytes <= LIMIT_BYTES,
    `${mib(totalBytes)} MiB of npm code is above the ${mib(LIMIT_BYTES)} MiB limit`,
  );
  const expected = await runtimePackages();
  assert.ok(expected.size > 0, "lib/ imports some npm package as a value (the scan found none)");
  assert.deepEqual(
    [...packages.keys()].sort(),
    [...expected].sort(),
    "the binary embeds exactly the npm packages main.ts and lib/ import as values (a new runtime package with " +
      "dependencies of its own adds them here)",
  );
});
