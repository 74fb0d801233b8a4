import assert from "node:assert/strict";
import {
  blockDirectives,
  expandedDirectives,
  findRootBlock,
  isRootKey,
  serverBlocks,
} from "../../../../../lib/controller/modes/coredns/corefile/server_blocks.ts";
import {
  type CorefileToken,
  tokenizeCorefile,
} from "../../../../../lib/controller/modes/coredns/corefile/tokenize_corefile.ts";
import { HAND_WRITTEN, K3S, lines } from "../fixtures/corefiles.ts";

function parse(text: string): readonly CorefileToken[] {
  const result = tokenizeCorefile(text);
  assert.ok(result.ok);
  return result.ok ? result.tokens : [];
}

Deno.test("isRootKey accepts the root zone on port 53 only", async (t) => {
  const cases: [string, boolean][] = [
    [".", true],
    [".:53", true],
    ["dns://.", true],
    ["DNS://.:53", true],
    [".:8053", false],
    [".:5353", false],
    [".foo:53", false],
    ["example.org:53", false],
    ["tls://.:853", false],
    ["(.:53)", false],
    ["", false],
  ];
  for (const [key, expected] of cases) {
    await t.step(JSON.stringify(key), () => assert.equal(isRootKey(key), expected));
  }
});

Deno.test("server blocks: keys, snippets, top-level imports skipped", () => {
  const tokens = parse(HAND_WRITTEN);
  const blocks = serverBlocks(tokens);
  assert.deepEqual(blocks.map((block) => [block.keys, block.snippet]), [
    [["example.org:53"], undefined],
    [["(common)"], "common"],
    [[".:53"], undefined],
    [["internal.example.net:53"], undefined],
  ]);
  assert.equal(findRootBlock(blocks), blocks[2]);

  const k3s = serverBlocks(parse(K3S));
  assert.deepEqual(k3s.map((block) => block.keys), [[".:53"]], "`import …*.server` is not a server key");

  const commas = serverBlocks(parse(lines("a.example:53,", "  .:53 {", "}")));
  assert.deepEqual(commas.map((block) => block.keys), [["a.example:53", ".:53"]]);
});

Deno.test("the root block is the first server block with a root key", () => {
  const text = lines("(x) {", "}", "example.org {", "}", ". {", "}", ".:53 {", "}");
  const blocks = serverBlocks(parse(text));
  assert.deepEqual(findRootBlock(blocks)?.keys, ["."]);
  assert.equal(findRootBlock(serverBlocks(parse(lines(".:8053 {", "}")))), undefined);
});

Deno.test("directives are the first words of the block's own lines", () => {
  const tokens = parse(K3S);
  const root = findRootBlock(serverBlocks(tokens));
  assert.ok(root);
  if (root === undefined) return;
  const directives = blockDirectives(tokens, root);
  assert.deepEqual(directives.map((d) => d.name), [
    "errors",
    "health",
    "ready",
    "kubernetes",
    "hosts",
    "prometheus",
    "forward",
    "cache",
    "loop",
    "reload",
    "loadbalance",
    "import",
  ]);
  assert.deepEqual(directives.find((d) => d.name === "kubernetes")?.args, [
    "cluster.local",
    "in-addr.arpa",
    "ip6.arpa",
  ]);
  assert.deepEqual(directives.at(-1)?.args, ["/etc/coredns/custom/*.override"]);
});

Deno.test("a directive right after the opening brace and words after a nested block's brace", () => {
  const tokens = parse(lines(".:53 { errors", "    health {", "    } extra", "    cache 30", "}"));
  const root = findRootBlock(serverBlocks(tokens));
  assert.ok(root);
  if (root === undefined) return;
  assert.deepEqual(blockDirectives(tokens, root).map((d) => d.name), ["errors", "health", "cache"]);
});

Deno.test("snippet imports are expanded where a server block uses them, cycles once", () => {
  const text = lines(
    "(inner) {",
    "    reload",
    "}",
    "(outer) {",
    "    import inner",
    "    import outer",
    "    cache 30",
    "}",
    ".:53 {",
    "    import outer",
    "    import /etc/coredns/custom/*.override",
    "    import later",
    "}",
    "(later) {",
    "    log",
    "}",
  );
  const tokens = parse(text);
  const blocks = serverBlocks(tokens);
  const root = findRootBlock(blocks);
  assert.ok(root);
  if (root === undefined) return;
  const expanded = expandedDirectives({ tokens, blocks }, root).map((d) => [d.name, ...d.args]);
  assert.deepEqual(expanded, [
    ["reload"],
    ["cache", "30"],
    ["import", "/etc/coredns/custom/*.override"],
    ["import", "later"], // defined after the block: CoreDNS reads it as a file name
  ]);
});
