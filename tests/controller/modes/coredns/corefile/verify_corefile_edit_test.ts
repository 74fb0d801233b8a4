import assert from "node:assert/strict";
import { applyCorefileBlock } from "../../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { verifyCorefileEdit } from "../../../../../lib/controller/modes/coredns/corefile/verify_corefile_edit.ts";
import { KUBEADM, lines } from "../fixtures/corefiles.ts";
import { BEGIN, changed, END, FQDN } from "../support.ts";

const HOSTS = ["a.example.com", "b.example.com"];
const GOOD = changed(applyCorefileBlock(KUBEADM, { hosts: HOSTS, fqdn: FQDN }));

// Each "edit" below is a plausible splice bug; the check must catch every one of them.
Deno.test("verifyCorefileEdit accepts the intended edit and nothing else (T-2.13)", async (t) => {
  await t.step("the editor's own output passes", () => {
    assert.equal(verifyCorefileEdit(KUBEADM, GOOD, { hosts: HOSTS, fqdn: FQDN }), undefined);
    assert.equal(verifyCorefileEdit(GOOD, KUBEADM, { hosts: [], fqdn: FQDN }), undefined);
  });

  const bugs: [string, string, string, readonly string[], RegExp][] = [
    ["a plugin argument changed", KUBEADM, GOOD.replace("cache 30", "cache 31"), HOSTS, /token \d+ outside/],
    ["a plugin line lost", KUBEADM, GOOD.replace("    loop\n", ""), HOSTS, /token count outside/],
    [
      "a comment added outside",
      KUBEADM,
      GOOD.replace("    loop\n", "    loop # x\n"),
      HOSTS,
      /bytes outside/,
    ],
    ["whitespace changed outside", KUBEADM, GOOD.replace("    loop\n", "  loop\n"), HOSTS, /bytes outside/],
    ["CRLF introduced outside", KUBEADM, GOOD.replace("    loop\n", "    loop\r\n"), HOSTS, /bytes outside/],
    ["final newline dropped", KUBEADM, GOOD.slice(0, -1), HOSTS, /bytes outside/],
    ["a host missing from the block", KUBEADM, GOOD, ["a.example.com"], /not hold exactly/],
    ["a different target", KUBEADM, GOOD, HOSTS, /not hold exactly/],
    ["markers left after removal", GOOD, GOOD, [], /markers remain/],
    ["no block written", KUBEADM, KUBEADM, HOSTS, /no ouroboros block/],
    ["an extra closing brace", KUBEADM, GOOD + "}\n", HOSTS, /^edited Corefile: .*closes nothing/],
    [
      "block placed inside a plugin's block",
      KUBEADM,
      KUBEADM.replace(
        "       ttl 30\n",
        `       ttl 30\n       ${BEGIN}\n       rewrite name a.example.com ${FQDN}\n       ${END}\n`,
      ),
      ["a.example.com"],
      /^edited Corefile: .*inside a plugin's/,
    ],
    [
      "block placed after the root block",
      KUBEADM,
      `${KUBEADM}${BEGIN}\nrewrite name a.example.com ${FQDN}\n${END}\n`,
      ["a.example.com"],
      /^edited Corefile: .*outside the \.:53/,
    ],
    [
      "block spliced into a multi-line quoted string",
      lines(".:53 {", '    x "a', '    b"', "}"),
      lines(
        ".:53 {",
        '    x "a',
        `    ${BEGIN}`,
        `    rewrite name a.example.com ${FQDN}`,
        `    ${END}`,
        '    b"',
        "}",
      ),
      ["a.example.com"],
      /^edited Corefile: .*quoted string/,
    ],
  ];
  for (const [name, before, after, hosts, expected] of bugs) {
    await t.step(name, () => {
      const fqdn = name === "a different target" ? "other.ns.svc.cluster.local." : FQDN;
      assert.match(verifyCorefileEdit(before, after, { hosts, fqdn }) ?? "(accepted)", expected);
    });
  }
});

Deno.test("verifyCorefileEdit refuses when the original itself is not editable", () => {
  assert.match(
    verifyCorefileEdit("", GOOD, { hosts: HOSTS, fqdn: FQDN }) ?? "",
    /^original Corefile: empty Corefile/,
  );
});
