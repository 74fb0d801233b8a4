import assert from "node:assert/strict";
import {
  applyCorefileBlock,
  renderBlock,
} from "../../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { hasReloadPlugin } from "../../../../../lib/controller/modes/coredns/corefile/has_reload_plugin.ts";
import {
  DOT_KEY_TABS,
  EKS,
  FIXTURES,
  HAND_WRITTEN,
  K3S,
  K3S_WITHOUT_RELOAD,
  KUBEADM,
  lines,
  toCrlf,
  toTabs,
  withoutFinalNewline,
} from "../fixtures/corefiles.ts";
import { BEGIN, blockLines, changed, END, expectedBlock, FQDN, rawLines, withoutBlock } from "../support.ts";

const HOSTS = ["api.example.com", "app.example.com", "shop.example.org"];

Deno.test("kubeadm Corefile: the block goes right before the root block's closing brace", () => {
  const result = changed(applyCorefileBlock(KUBEADM, { hosts: HOSTS, fqdn: FQDN }));
  const expected = KUBEADM.replace(
    "    loadbalance\n}\n",
    "    loadbalance\n" +
      `    ${BEGIN}\n` +
      `    rewrite name api.example.com ${FQDN}\n` +
      `    rewrite name app.example.com ${FQDN}\n` +
      `    rewrite name shop.example.org ${FQDN}\n` +
      `    ${END}\n` +
      "}\n",
  );
  assert.equal(result, expected);
});

Deno.test("distribution Corefiles: insert, idempotent re-apply, replace, remove back to the original (T-2.3, T-2.4, T-2.18)", async (t) => {
  for (const fixture of FIXTURES) {
    await t.step(fixture.name, () => {
      const inserted = changed(applyCorefileBlock(fixture.text, { hosts: HOSTS, fqdn: FQDN }));
      assert.equal(withoutBlock(inserted), fixture.text, "bytes outside the markers changed");
      assert.deepEqual(blockLines(inserted), expectedBlock(HOSTS, fixture.indent));
      const after = rawLines(inserted);
      const endIndex = after.findIndex((line) => line.trim() === END);
      assert.equal(after[endIndex + 1]?.trim(), "}", "the block must end the root block");

      assert.deepEqual(applyCorefileBlock(inserted, { hosts: HOSTS, fqdn: FQDN }), { kind: "unchanged" });

      const replaced = applyCorefileBlock(inserted, { hosts: ["new.example.com"], fqdn: FQDN });
      assert.equal(replaced.kind, "changed");
      if (replaced.kind !== "changed") return;
      assert.deepEqual(replaced.previousHosts, HOSTS);
      assert.deepEqual(blockLines(replaced.corefile), expectedBlock(["new.example.com"], fixture.indent));
      assert.equal(withoutBlock(replaced.corefile), fixture.text);
      assert.equal(replaced.corefile.split(BEGIN).length, 2, "exactly one BEGIN after a replace");

      assert.equal(changed(applyCorefileBlock(replaced.corefile, { hosts: [], fqdn: FQDN })), fixture.text);
    });
  }
});

Deno.test("zero hosts without a block leaves the Corefile alone", async (t) => {
  for (const fixture of FIXTURES) {
    await t.step(fixture.name, () => {
      assert.deepEqual(applyCorefileBlock(fixture.text, { hosts: [], fqdn: FQDN }), { kind: "unchanged" });
    });
  }
});

Deno.test("line endings, tabs and a missing final newline survive every edit (T-2.4)", async (t) => {
  const variants: [string, string, string, string][] = [
    ["CRLF", toCrlf(KUBEADM), "    ", "\r\n"],
    ["tabs", toTabs(KUBEADM), "\t", "\n"],
    ["CRLF and tabs", toCrlf(toTabs(K3S)), "\t", "\r\n"],
    ["no final newline", withoutFinalNewline(KUBEADM), "    ", "\n"],
    ["CRLF, no final newline", withoutFinalNewline(toCrlf(EKS)), "    ", "\r\n"],
    [". { with tabs", DOT_KEY_TABS, "\t", "\n"],
  ];
  for (const [name, text, indent, newline] of variants) {
    await t.step(name, () => {
      const inserted = changed(applyCorefileBlock(text, { hosts: ["a.example.com"], fqdn: FQDN }));
      assert.deepEqual(blockLines(inserted), expectedBlock(["a.example.com"], indent, newline));
      assert.equal(withoutBlock(inserted), text);
      assert.equal(inserted.endsWith("}"), text.endsWith("}"), "final newline state must not change");
      if (newline === "\n") assert.ok(!inserted.includes("\r"), "no CR may appear in an LF file");
      assert.deepEqual(applyCorefileBlock(inserted, { hosts: ["a.example.com"], fqdn: FQDN }), {
        kind: "unchanged",
      });
      assert.equal(changed(applyCorefileBlock(inserted, { hosts: [], fqdn: FQDN })), text);
    });
  }
});

Deno.test("the root block is found by its key, wherever it is and however it is spelled (T-2.4)", async (t) => {
  const cases: [string, string][] = [
    [
      ".:53 not first, zone block before it",
      lines("example.org:53 {", "    whoami", "}", ".:53 {", "    errors", "}"),
    ],
    ["`. {`", lines(". {", "    errors", "}")],
    ["trailing comment on the key line", lines(".:53 { # main", "    errors", "}")],
    ["tab between key and brace", lines(".:53\t{", "    errors", "}")],
    ["brace on the next line", lines(".:53", "{", "    errors", "}")],
    ["key list", lines("example.org:53 .:53 {", "    errors", "}")],
    ["comma key list", lines(".:53, example.org:53 {", "    errors", "}")],
    ["dns:// scheme", lines("dns://.:53 {", "    errors", "}")],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const result = changed(applyCorefileBlock(text, { hosts: ["a.example.com"], fqdn: FQDN }));
      const all = rawLines(result);
      const begin = all.findIndex((line) => line.trim() === BEGIN);
      assert.equal(all[begin - 1]?.trim(), "errors", "block must follow the root block's plugins");
      assert.equal(withoutBlock(result), text);
    });
  }
});

Deno.test("other server blocks, snippets and imports are untouched; the first root block gets the block (T-2.4)", () => {
  const result = changed(applyCorefileBlock(HAND_WRITTEN, { hosts: ["a.example.com"], fqdn: FQDN }));
  assert.equal(withoutBlock(result), HAND_WRITTEN);
  const all = rawLines(result);
  const begin = all.findIndex((line) => line.trim() === BEGIN);
  // The root block ends with a blank line before "}": the block goes after it, right before "}".
  assert.deepEqual(all.slice(begin - 2, begin), ["    reload 10s\n", "\n"]);
  assert.equal(all[begin + 3], "}\n");

  const twoRoots = lines(".:53 {", "    errors", "}", ". {", "    whoami", "}");
  const second = changed(applyCorefileBlock(twoRoots, { hosts: ["a.example.com"], fqdn: FQDN }));
  assert.ok(second.startsWith(`.:53 {\n    errors\n    ${BEGIN}\n`), "the first root block wins");
});

Deno.test("indentation comes from the root block's last plugin line, not from nested lines (T-2.4)", async (t) => {
  const cases: [string, string, string][] = [
    ["EKS odd nested brace indent", EKS, "    "],
    [
      "last line is a nested block's brace",
      lines(".:53 {", "  errors", "  forward . 1.1.1.1 {", "      max_fails 3", "  }", "}"),
      "  ",
    ],
    ["two-space plugins", lines(".:53 {", "  errors", "  cache 30", "}"), "  "],
    ["unindented plugins", lines(".:53 {", "errors", "}"), ""],
    ["empty root block", lines(".:53 {", "}"), "    "],
    ["only comments in the root block", lines(".:53 {", "        # nothing here", "}"), "    "],
    ["mixed tabs and spaces copied as they are", lines(".:53 {", " \t errors", "}"), " \t "],
  ];
  for (const [name, text, indent] of cases) {
    await t.step(name, () => {
      const result = changed(applyCorefileBlock(text, { hosts: ["a.example.com"], fqdn: FQDN }));
      assert.deepEqual(blockLines(result), expectedBlock(["a.example.com"], indent));
    });
  }
});

Deno.test("a block left by the original implementation is taken over without a write", () => {
  const original = KUBEADM.replace(
    "    loadbalance\n",
    `    loadbalance\n    ${BEGIN}\n    rewrite name a.example.com ${FQDN}\n    ${END}\n`,
  );
  assert.deepEqual(applyCorefileBlock(original, { hosts: ["a.example.com"], fqdn: FQDN }), {
    kind: "unchanged",
  });
});

Deno.test("an existing block is rewritten in place, wherever it sits in the root block", () => {
  const early = lines(
    ".:53 {",
    "    errors",
    `    ${BEGIN}`,
    `    rewrite name old.example.com ${FQDN}`,
    `    ${END}`,
    "    cache 30",
    "}",
  );
  const result = changed(applyCorefileBlock(early, { hosts: ["new.example.com"], fqdn: FQDN }));
  assert.equal(
    result,
    lines(
      ".:53 {",
      "    errors",
      `    ${BEGIN}`,
      `    rewrite name new.example.com ${FQDN}`,
      `    ${END}`,
      "    cache 30",
      "}",
    ),
  );
  // Removal leaves no blank line behind.
  assert.equal(
    changed(applyCorefileBlock(result, { hosts: [], fqdn: FQDN })),
    lines(".:53 {", "    errors", "    cache 30", "}"),
  );
});

Deno.test("a changed target rewrites every line; the explicit exact form is normalised", () => {
  const other = "ouroboros-proxy.other.svc.cluster.local.";
  const withBlock = changed(applyCorefileBlock(KUBEADM, { hosts: ["a.example.com"], fqdn: other }));
  assert.deepEqual(
    blockLines(changed(applyCorefileBlock(withBlock, { hosts: ["a.example.com"], fqdn: FQDN }))),
    expectedBlock(["a.example.com"], "    "),
  );

  const exact = KUBEADM.replace(
    "    loadbalance\n",
    `    loadbalance\n    ${BEGIN}\n    rewrite name exact a.example.com ${FQDN}\n    ${END}\n`,
  );
  const normalised = applyCorefileBlock(exact, { hosts: ["a.example.com"], fqdn: FQDN });
  assert.equal(normalised.kind, "changed");
  if (normalised.kind === "changed") {
    assert.deepEqual(normalised.previousHosts, ["a.example.com"]);
    assert.deepEqual(blockLines(normalised.corefile), expectedBlock(["a.example.com"], "    "));
  }
});

Deno.test("hosts are written in the order given, one line each", () => {
  const result = changed(
    applyCorefileBlock(KUBEADM, { hosts: ["b.example.com", "a.example.com"], fqdn: FQDN }),
  );
  assert.deepEqual(blockLines(result), expectedBlock(["b.example.com", "a.example.com"], "    "));
});

Deno.test("unsafe hosts and targets are refused before anything is read (T-3.1)", async (t) => {
  const cases: [string, readonly string[], string, string][] = [
    ["newline in a host", ["a.example.com\n    log"], FQDN, "invalid-host"],
    ["space in a host", ["a.example.com b"], FQDN, "invalid-host"],
    ["brace in a host", ["a.example.com}"], FQDN, "invalid-host"],
    ["comment in a host", ["a.example.com#"], FQDN, "invalid-host"],
    ["quote in a host", ['a"b.example.com'], FQDN, "invalid-host"],
    ["semicolon in a host", ["a;b.example.com"], FQDN, "invalid-host"],
    ["backslash in a host", ["a\\b.example.com"], FQDN, "invalid-host"],
    ["env reference in a host", ["{$HOME}.example.com"], FQDN, "invalid-host"],
    ["empty host", [""], FQDN, "invalid-host"],
    ["match type as a host", ["regex"], FQDN, "invalid-host"],
    ["non-ASCII host", ["bücher.example.com"], FQDN, "invalid-host"],
    ["empty target", ["a.example.com"], "", "invalid-fqdn"],
    ["target without trailing dot", ["a.example.com"], "proxy.ns.svc.cluster.local", "invalid-fqdn"],
    ["target with a newline", ["a.example.com"], "proxy.\n}.", "invalid-fqdn"],
    ["root as target", ["a.example.com"], ".", "invalid-fqdn"],
    ["bad target with zero hosts", [], "no-dot", "invalid-fqdn"],
  ];
  for (const [name, hosts, fqdn, problem] of cases) {
    await t.step(name, () => {
      const edit = applyCorefileBlock(KUBEADM, { hosts, fqdn });
      assert.equal(edit.kind, "refused");
      if (edit.kind === "refused") assert.equal(edit.problem, problem);
    });
  }
});

Deno.test("Corefiles that cannot be edited safely are refused with the reason (T-2.10)", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    ["empty", "", "empty-corefile", /empty Corefile/],
    ["whitespace only", " \n\t\n", "empty-corefile", /empty Corefile/],
    ["only .:8053", lines(".:8053 {", "    errors", "}"), "no-root-block", /no \.:53 server block/],
    ["only .foo:53", lines(".foo:53 {", "    errors", "}"), "no-root-block", /no \.:53 server block/],
    ["only tls://.:853", lines("tls://.:853 {", "    errors", "}"), "no-root-block", /no \.:53/],
    ["root key only in a snippet", lines("(.:53) {", "    errors", "}"), "no-root-block", /no \.:53/],
    ["braceless single block", lines(".:53", "errors"), "no-root-block", /no \.:53/],
    ["unclosed root block", lines(".:53 {", "    errors"), "unclosed-brace", /line 1 is never closed/],
    ["stray closing brace", lines(".:53 {", "}", "}"), "unexpected-close-brace", /line 3 closes nothing/],
    [
      "unterminated quote",
      lines(".:53 {", '    template "IN', "}"),
      "unterminated-quote",
      /line 2 is never closed/,
    ],
    [
      "closing brace after a plugin",
      lines(".:53 {", "    cache 30 }"),
      "closing-brace-shares-line",
      /line 2/,
    ],
    [
      "closing brace after a nested one",
      lines(".:53 {", "    health {", "    } }"),
      "closing-brace-shares-line",
      /line 3/,
    ],
    ["one-line root block", ".:53 { }\n", "closing-brace-shares-line", /line 1/],
  ];
  for (const [name, text, problem, message] of cases) {
    await t.step(name, () => {
      for (const hosts of [["a.example.com"], []]) {
        const edit = applyCorefileBlock(text, { hosts, fqdn: FQDN });
        assert.equal(edit.kind, "refused", `${name} with ${hosts.length} hosts`);
        if (edit.kind !== "refused") return;
        assert.equal(edit.problem, problem);
        assert.match(edit.message, message);
      }
    });
  }
});

Deno.test("braces and quotes the lexer does not treat as structure do not confuse the editor (T-2.4)", async (t) => {
  const cases: [string, string][] = [
    [
      "brace inside a regex word",
      lines(
        ".:53 {",
        "    rewrite name regex (.*)\\.a{2}\\.example\\.com {1}.example.com",
        "    errors",
        "}",
      ),
    ],
    [
      "brace inside a quoted string",
      lines(".:53 {", '    template IN A example.com "answer {"', "    errors", "}"),
    ],
    [
      "multi-line quoted string holding a brace line",
      lines(".:53 {", '    foo "first', "}", 'last"', "    errors", "}"),
    ],
    ["comment right after a word", lines(".:53 {", "    errors#}", "    cache 30", "}")],
    [
      "closing brace followed by another block on its line",
      lines(".:53 {", "    errors", "} example.org {", "    whoami", "}"),
    ],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const result = changed(applyCorefileBlock(text, { hosts: ["a.example.com"], fqdn: FQDN }));
      assert.equal(withoutBlock(result), text);
      const all = rawLines(result);
      const end = all.findIndex((line) => line.trim() === END);
      assert.match(all[end + 1] ?? "", /^}/, "block must close the root block");
      assert.equal(changed(applyCorefileBlock(result, { hosts: [], fqdn: FQDN })), text);
    });
  }
});

Deno.test("renderBlock spells the block out with the given indent and newline", () => {
  assert.equal(renderBlock({ hosts: [], fqdn: FQDN }, { indent: "    ", newline: "\n" }), "");
  assert.equal(
    renderBlock({ hosts: ["a.example.com"], fqdn: FQDN }, { indent: "\t", newline: "\r\n" }),
    `\t${BEGIN}\r\n\trewrite name a.example.com ${FQDN}\r\n\t${END}\r\n`,
  );
});

// The editor reports whether the Corefile it edited enables `reload` (the sink warns when it does
// not), from the tokens it already has: it must agree with `hasReloadPlugin` on every fixture, and
// our own block can never change the answer.
Deno.test("applyCorefileBlock reports reload as hasReloadPlugin sees it, before and after the edit", () => {
  const cases = [
    ...FIXTURES.map((fixture) => [fixture.name, fixture.text] as const),
    [
      "k3s without reload",
      K3S_WITHOUT_RELOAD,
    ] as const,
  ];
  for (const [name, text] of cases) {
    const edit = applyCorefileBlock(text, { hosts: ["a.example.com"], fqdn: FQDN });
    if (edit.kind !== "changed") continue;
    assert.equal(edit.reload, hasReloadPlugin(text), name);
    assert.equal(edit.reload, hasReloadPlugin(edit.corefile), `${name}: after the edit`);
  }
  const withReload = applyCorefileBlock(K3S, { hosts: ["a.example.com"], fqdn: FQDN });
  const without = applyCorefileBlock(K3S_WITHOUT_RELOAD, { hosts: ["a.example.com"], fqdn: FQDN });
  assert.ok(withReload.kind === "changed" && withReload.reload);
  assert.ok(without.kind === "changed" && !without.reload);
});

Deno.test("wildcards: their regex rules follow the exact rules in the block, pass the self-check, and re-apply as unchanged", () => {
  const hosts = ["*.apps.example.com", "*.example.com", "api.example.com", "app.example.com"];
  const result = changed(applyCorefileBlock(KUBEADM, { hosts, fqdn: FQDN }));
  assert.deepEqual(blockLines(result), [
    `    ${BEGIN}\n`,
    `    rewrite name api.example.com ${FQDN}\n`,
    `    rewrite name app.example.com ${FQDN}\n`,
    `    rewrite name regex ^[^.]+\\.apps\\.example\\.com\\.$ ${FQDN} answer auto\n`,
    `    rewrite name regex ^[^.]+\\.example\\.com\\.$ ${FQDN} answer auto\n`,
    `    ${END}\n`,
  ]);
  assert.deepEqual(applyCorefileBlock(result, { hosts, fqdn: FQDN }), { kind: "unchanged" });
  const fewer = applyCorefileBlock(result, { hosts: ["api.example.com", "*.example.com"], fqdn: FQDN });
  assert.equal(fewer.kind, "changed");
  assert.deepEqual(fewer.kind === "changed" ? fewer.previousHosts : [], [
    "api.example.com",
    "app.example.com",
    "*.apps.example.com",
    "*.example.com",
  ]);
  assert.equal(
    withoutBlock(changed(applyCorefileBlock(result, { hosts: [], fqdn: FQDN }))),
    withoutBlock(KUBEADM),
  );
});

Deno.test("wildcards: a block read through the tokenizer (odd whitespace) gives the same hosts, and a tampered pattern is foreign", () => {
  const hosts = ["a.example.com", "*.example.com"];
  const written = changed(applyCorefileBlock(KUBEADM, { hosts, fqdn: FQDN }));
  // A vertical tab is whitespace to CoreDNS but not to the raw-line reader: the full analysis runs.
  const odd = written.replace("    rewrite name regex", "\v   rewrite name regex");
  const again = applyCorefileBlock(odd, { hosts: ["a.example.com"], fqdn: FQDN });
  assert.deepEqual(again.kind === "changed" ? again.previousHosts : again, [
    "a.example.com",
    "*.example.com",
  ]);
  const tampered = written.replace("^[^.]+\\.example", "^.*\\.example");
  const refused = applyCorefileBlock(tampered, { hosts, fqdn: FQDN });
  assert.equal(refused.kind === "refused" ? refused.problem : refused.kind, "foreign-content-in-block");
});
