/**
 * The node-local-dns block editor on the Corefile shapes that ship (the addon template with its
 * placeholders, the installed form, a fully rendered CRLF form): where the block goes, what it
 * forwards to, byte-exact removal, wildcards, zones another block serves, damaged markers and
 * foreign edits, plus a property test over random host sets. Expected blocks are spelled out
 * here, not produced by the renderer under test.
 */

import assert from "node:assert/strict";
import { applyNodeLocalDnsBlock } from "../../../../../lib/controller/modes/coredns/corefile/apply_node_local_dns_block.ts";
import { applyCorefileBlock } from "../../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { nodeLocalDnsMarkers } from "../../../../../lib/controller/modes/coredns/corefile/node_local_dns_markers.ts";
import { prng } from "../../../../support/random.ts";
import {
  NODE_LOCAL_INSTALLED,
  NODE_LOCAL_RENDERED,
  NODE_LOCAL_TEMPLATE,
  PROXY,
} from "../fixtures/node_local_dns_corefiles.ts";

const BEGIN = "# === BEGIN ouroboros-node-local-dns (do not edit by hand) ===";
const END = "# === END ouroboros-node-local-dns ===";
const MARKERS = nodeLocalDnsMarkers();

function apply(corefile: string, hosts: readonly string[], markers = MARKERS) {
  return applyNodeLocalDnsBlock(corefile, { hosts, clusterName: PROXY, markers });
}

function changed(corefile: string, hosts: readonly string[], markers = MARKERS): string {
  const edit = apply(corefile, hosts, markers);
  assert.equal(edit.kind, "changed", edit.kind === "refused" ? edit.message : edit.kind);
  return edit.kind === "changed" ? edit.corefile : "";
}

function refusedWith(corefile: string, hosts: readonly string[]): string {
  const edit = apply(corefile, hosts);
  assert.equal(edit.kind, "refused");
  return edit.kind === "refused" ? edit.problem : "";
}

Deno.test("each shipped shape: the block goes right before the cluster-domain block, mirrors the cluster block, and goes away byte-exact", () => {
  const cases = [
    {
      name: "addon template, every placeholder",
      corefile: NODE_LOCAL_TEMPLATE,
      bind: "    bind __PILLAR__LOCAL__DNS__ __PILLAR__DNS__SERVER__",
      forward: "    forward . __PILLAR__CLUSTER__DNS__ {",
      before: "",
      nl: "\n",
    },
    {
      name: "installed (domain and local addresses substituted)",
      corefile: NODE_LOCAL_INSTALLED,
      bind: "    bind 169.254.20.10 10.96.0.10",
      forward: "    forward . __PILLAR__CLUSTER__DNS__ {",
      before: "",
      nl: "\n",
    },
    {
      name: "fully rendered, CRLF, a comment on top",
      corefile: NODE_LOCAL_RENDERED,
      bind: "    bind 169.254.25.10",
      forward: "    forward . 10.233.0.3 {",
      before: "# managed by the platform team\r\n",
      nl: "\r\n",
    },
  ];
  for (const c of cases) {
    const text = changed(c.corefile, ["blog.example.com", "shop.example.com"]);
    const block = [
      BEGIN,
      "blog.example.com:53 shop.example.com:53 {",
      "    errors",
      "    cache 30",
      "    reload",
      c.bind,
      c.forward,
      "        force_tcp",
      "    }",
      "}",
      END,
      "",
    ].join(c.nl);
    assert.equal(text, c.before + block + c.corefile.slice(c.before.length), c.name);
    assert.equal(apply(text, ["blog.example.com", "shop.example.com"]).kind, "unchanged", c.name);
    assert.equal(changed(text, []), c.corefile, `${c.name}: removal restores every byte`);
  }
});

Deno.test("a cluster block without force_tcp and without bind: ours has neither", () => {
  const corefile = "cluster.local:53 {\n  forward . 10.0.0.10\n}\n.:53 {\n  forward . /etc/resolv.conf\n}\n";
  const text = changed(corefile, ["a.example.com"]);
  assert.equal(
    text,
    `${BEGIN}\na.example.com:53 {\n    errors\n    cache 30\n    reload\n    forward . 10.0.0.10\n}\n${END}\n` +
      corefile,
  );
});

Deno.test("a changed cluster DNS address is followed on the next pass; hosts added and removed", () => {
  const first = changed(NODE_LOCAL_RENDERED, ["a.example.com"]);
  const moved = first.replaceAll(
    "forward . 10.233.0.3 {\r\n\t\tforce_tcp",
    "forward . 10.233.0.9 {\r\n\t\tforce_tcp",
  );
  const second = changed(moved, ["a.example.com", "b.example.com"]);
  assert.match(second, /a\.example\.com:53 b\.example\.com:53 \{\r\n/);
  assert.equal(second.split("forward . 10.233.0.9").length, 3, "ours follows the cluster block");
  const edit = apply(second, ["b.example.com"]);
  assert.ok(edit.kind === "changed");
  assert.deepEqual(edit.previousHosts, ["a.example.com", "b.example.com"]);
  assert.deepEqual(edit.zones, ["b.example.com"]);
});

Deno.test("wildcards: *.example.com becomes the zone example.com, and covers exact names below it", () => {
  const edit = apply(NODE_LOCAL_INSTALLED, ["*.example.com", "shop.example.com", "x.example.org"]);
  assert.ok(edit.kind === "changed");
  assert.deepEqual(edit.zones, ["example.com", "x.example.org"]);
  assert.match(edit.corefile, /^example\.com:53 x\.example\.org:53 \{$/m);
});

Deno.test("a zone another server block serves is skipped, never written twice", () => {
  const corefile = `corp.example.com:53 {\n    forward . 10.1.1.1\n}\n${NODE_LOCAL_INSTALLED}`;
  const edit = apply(corefile, ["corp.example.com", "shop.example.com"]);
  assert.ok(edit.kind === "changed");
  assert.deepEqual(edit.skipped, ["corp.example.com"]);
  assert.deepEqual(edit.zones, ["shop.example.com"]);
  const only = apply(corefile, ["corp.example.com"]);
  assert.deepEqual(only, { kind: "unchanged", skipped: ["corp.example.com"] });
});

Deno.test("damaged or edited markers and blocks are refused, whatever the hosts", () => {
  const good = changed(NODE_LOCAL_INSTALLED, ["a.example.com"]);
  const cases: [string, string, string][] = [
    ["two BEGIN lines", `${BEGIN}\n${good}`, "duplicate-begin"],
    ["two END lines", good.replace(END, `${END}\n${END}`), "duplicate-end"],
    [
      "END before BEGIN",
      good.replace(BEGIN, "#tmp").replace(END, BEGIN).replace("#tmp", END),
      "end-before-begin",
    ],
    ["BEGIN without END", good.replace(`${END}\n`, ""), "begin-without-end"],
    ["END without BEGIN", good.replace(`${BEGIN}\n`, ""), "end-without-begin"],
    [
      "a hand-edited marker",
      good.replace(BEGIN, "# === BEGIN ouroboros-node-local-dns ==="),
      "altered-marker",
    ],
    [
      "a marker inside a server block",
      good.replace("    errors\n    cache {", `    errors\n    ${END}\n    cache {`),
      "marker-in-nested-block",
    ],
    [
      "a plugin added to our block",
      good.replace(
        "    cache 30\n    reload\n    bind 169",
        "    cache 30\n    log\n    reload\n    bind 169",
      ),
      "foreign-content-in-block",
    ],
    [
      "a comment inside our block",
      good.replace("    errors\n", "    errors # mine\n"),
      "foreign-content-in-block",
    ],
    [
      "a second block between the markers",
      good.replace(END, `x.example.net:53 {\n}\n${END}`),
      "foreign-content-in-block",
    ],
    ["no cluster block", `${".:53 {\n    forward . /etc/resolv.conf\n}\n"}`, "no-cluster-dns-block"],
    ["a cluster block without forward", "cluster.local:53 {\n    errors\n}\n", "no-cluster-forward"],
    ["an unsafe forward word", 'cluster.local:53 {\n    forward . "10.0.0.1 ; x"\n}\n', "no-cluster-forward"],
    ["broken syntax", "cluster.local:53 {\n", "unclosed-brace"],
  ];
  for (const [name, corefile, problem] of cases) {
    assert.equal(refusedWith(corefile, ["a.example.com"]), problem, name);
    assert.equal(refusedWith(corefile, []), problem, `${name}, removing`);
  }
  assert.equal(refusedWith(NODE_LOCAL_INSTALLED, ["a.example.com:80"]), "invalid-host");
  assert.equal(refusedWith(NODE_LOCAL_INSTALLED, ["*.com"]), "invalid-host");
});

Deno.test("the marker of the other block never confuses either editor; --marker-id keeps releases apart", () => {
  const ours = changed(NODE_LOCAL_INSTALLED, ["a.example.com"]);
  const edge = changed(ours, ["b.example.com"], nodeLocalDnsMarkers("edge"));
  assert.match(edge, /^# === BEGIN ouroboros-node-local-dns edge \(do not edit by hand\) ===$/m);
  // Each release removes only its own block; the other's zone is taken, so never served twice.
  assert.equal(apply(edge, ["b.example.com"]).kind, "changed");
  const edit = apply(edge, ["a.example.com", "b.example.com"]);
  assert.ok(edit.kind === "unchanged");
  assert.deepEqual(edit.skipped, ["b.example.com"]);
  assert.equal(changed(changed(edge, [], nodeLocalDnsMarkers("edge")), []), NODE_LOCAL_INSTALLED);
  // The CoreDNS editor reads our markers as ordinary comments outside its own block.
  const corefile = `${BEGIN}\n${END}\n.:53 {\n    errors\n}\n`;
  assert.equal(applyCorefileBlock(corefile, { hosts: ["a.example.com"], fqdn: PROXY }).kind, "changed");
});

Deno.test("property: random host sets insert, update and remove with every byte outside the block kept", () => {
  const random = prng(14);
  const labels = ["a", "shop", "x-1", "api", "b2", "www", "m"];
  const domains = ["example.com", "example.org", "test.example.net"];
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  for (let round = 0; round < 200; round++) {
    const base = pick([NODE_LOCAL_TEMPLATE, NODE_LOCAL_INSTALLED, NODE_LOCAL_RENDERED]);
    const hosts = () =>
      [
        ...new Set(
          Array.from({ length: Math.floor(random() * 6) }, () =>
            random() < 0.2 ? `*.${pick(domains)}` : `${pick(labels)}.${pick(domains)}`),
        ),
      ].sort();
    let text = base;
    for (let step = 0; step < 3; step++) {
      const want = hosts();
      const edit = apply(text, want);
      assert.notEqual(edit.kind, "refused", edit.kind === "refused" ? edit.message : "");
      if (edit.kind === "changed") text = edit.corefile;
      assert.equal(apply(text, want).kind, "unchanged", "a second pass changes nothing");
      const lines = text.split(/\r?\n/);
      const begin = lines.indexOf(BEGIN);
      const end = lines.indexOf(END);
      const cut = begin === -1 ? lines : [...lines.slice(0, begin), ...lines.slice(end + 1)];
      assert.deepEqual(cut, base.split(/\r?\n/), "nothing outside the block moved");
    }
    const removed = apply(text, []);
    assert.equal(removed.kind === "changed" ? removed.corefile : text, base);
  }
});
