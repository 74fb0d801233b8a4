/**
 * Per-release marker pairs (`--marker-id`): two installations in one cluster each keep their own
 * block in the Corefile and in a hosts file, and neither refuses or touches the other's.
 */

import assert from "node:assert/strict";
import {
  blockMarkers,
  DEFAULT_MARKERS,
  isMarkerId,
  isOtherReleaseMarker,
  markerPair,
} from "../../../lib/controller/modes/markers.ts";
import { applyCorefileBlock } from "../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { applyHostsBlock, removeHostsBlock } from "../../../lib/controller/modes/etc_hosts/hosts_block.ts";
import { planWrite } from "../../../lib/controller/modes/etc_hosts/hosts_layout.ts";
import { KUBEADM } from "./coredns/fixtures/corefiles.ts";

const FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";
const EDGE = blockMarkers("edge");

Deno.test("marker pairs: the default keeps the original's text; an id is written into both lines", () => {
  assert.deepEqual(DEFAULT_MARKERS, {
    id: "",
    begin: "# === BEGIN ouroboros (do not edit by hand) ===",
    end: "# === END ouroboros ===",
  });
  assert.deepEqual(EDGE, {
    id: "edge",
    begin: "# === BEGIN ouroboros edge (do not edit by hand) ===",
    end: "# === END ouroboros edge ===",
  });
  for (const good of ["", "a", "edge-2", "x".repeat(63)]) assert.ok(isMarkerId(good), good);
  for (const bad of ["Edge", "-a", "a-", "a b", "a.b", "x".repeat(64), "a\n"]) {
    assert.ok(!isMarkerId(bad), bad);
    assert.throws(() => blockMarkers(bad), /is not a DNS label/);
  }
});

Deno.test("marker pairs: only another release's well-formed markers count as foreign", () => {
  const table: [string, string, boolean][] = [
    [EDGE.begin, "", true],
    [EDGE.end, "", true],
    [DEFAULT_MARKERS.begin, "edge", true],
    [DEFAULT_MARKERS.end, "edge", true],
    [EDGE.begin, "edge", false], // ours
    [DEFAULT_MARKERS.begin, "", false], // ours
    ["# === BEGIN ouroboros Edge (do not edit by hand) ===", "", false], // not well-formed
    ["# === BEGIN ouroboros edge ===", "", false],
    ["# === END ouroboros  edge ===", "", false],
    ["# === BEGIN ouroboros-edge (do not edit by hand) ===", "", false],
  ];
  for (const [line, id, expected] of table) {
    assert.equal(
      isOtherReleaseMarker(line, blockMarkers(id)),
      expected,
      `${JSON.stringify(line)} seen by "${id}"`,
    );
  }
});

Deno.test("Corefile: two releases each own a block; writing, changing and removing one leaves the other byte-identical", () => {
  const first = applyCorefileBlock(KUBEADM, { hosts: ["a.example.com"], fqdn: FQDN });
  assert.equal(first.kind, "changed");
  const withDefault = first.kind === "changed" ? first.corefile : "";
  const second = applyCorefileBlock(withDefault, {
    hosts: ["b.example.com", "c.example.com"],
    fqdn: FQDN,
    markers: EDGE,
  });
  assert.equal(second.kind, "changed", second.kind === "refused" ? second.message : "");
  const both = second.kind === "changed" ? second.corefile : "";
  assert.ok(both.includes(`    ${EDGE.begin}\n    rewrite name b.example.com ${FQDN}\n`));
  assert.ok(both.startsWith(withDefault.slice(0, withDefault.indexOf(DEFAULT_MARKERS.end))));

  // Each sees its own hosts as the previous content, and the other's block as foreign.
  const changedDefault = applyCorefileBlock(both, { hosts: ["z.example.com"], fqdn: FQDN });
  assert.equal(changedDefault.kind, "changed");
  if (changedDefault.kind !== "changed") return;
  assert.deepEqual(changedDefault.previousHosts, ["a.example.com"]);
  const edgeBlock = (text: string) => text.slice(text.indexOf(EDGE.begin), text.indexOf(EDGE.end));
  assert.equal(edgeBlock(changedDefault.corefile), edgeBlock(both));

  const edgeGone = applyCorefileBlock(changedDefault.corefile, { hosts: [], fqdn: FQDN, markers: EDGE });
  assert.equal(edgeGone.kind, "changed");
  if (edgeGone.kind !== "changed") return;
  assert.deepEqual(edgeGone.previousHosts, ["b.example.com", "c.example.com"]);
  assert.ok(!edgeGone.corefile.includes("ouroboros edge"));
  assert.equal(
    applyCorefileBlock(edgeGone.corefile, { hosts: ["z.example.com"], fqdn: FQDN }).kind,
    "unchanged",
  );
});

Deno.test("Corefile: a damaged block of one's own is still refused next to another release's intact block", () => {
  const both = applyCorefileBlock(KUBEADM, { hosts: ["b.example.com"], fqdn: FQDN, markers: EDGE });
  assert.equal(both.kind, "changed");
  if (both.kind !== "changed") return;
  const damaged = both.corefile.replace("    reload\n", `    reload\n    ${DEFAULT_MARKERS.begin}\n`);
  const edit = applyCorefileBlock(damaged, { hosts: ["a.example.com"], fqdn: FQDN });
  assert.equal(edit.kind, "refused");
  if (edit.kind === "refused") assert.equal(edit.problem, "begin-without-end");
  // The other release still edits its own block of the same file.
  assert.equal(
    applyCorefileBlock(damaged, { hosts: ["b.example.com", "x.example.com"], fqdn: FQDN, markers: EDGE })
      .kind,
    "changed",
  );
});

Deno.test("hosts file: two releases each own a block; removing one keeps the other and the operator's lines", () => {
  const base = "127.0.0.1 localhost\n";
  const one = applyHostsBlock(base, { ip: "10.96.0.20", hosts: ["a.example.com"] });
  assert.equal(one.kind, "changed");
  if (one.kind !== "changed") return;
  const two = applyHostsBlock(one.text, { ip: "10.96.0.30", hosts: ["b.example.com"], markers: EDGE });
  assert.equal(two.kind, "changed", two.kind === "refused" ? two.message : "");
  if (two.kind !== "changed") return;
  assert.equal(
    two.text,
    base + `${DEFAULT_MARKERS.begin}\n10.96.0.20 a.example.com\n${DEFAULT_MARKERS.end}\n` +
      `${EDGE.begin}\n10.96.0.30 b.example.com\n${EDGE.end}\n`,
  );
  const cleaned = removeHostsBlock(two.text);
  assert.equal(cleaned.kind, "changed");
  if (cleaned.kind !== "changed") return;
  assert.equal(cleaned.text, base + `${EDGE.begin}\n10.96.0.30 b.example.com\n${EDGE.end}\n`);
  assert.deepEqual(cleaned.previousHosts, ["a.example.com"]);
});

Deno.test("hosts file: in-place length slack goes on this release's END line, never the other's", () => {
  const current = `x\n${DEFAULT_MARKERS.begin}\n10.0.0.1 long-name.example.com\n${DEFAULT_MARKERS.end}\n` +
    `${EDGE.begin}\n10.0.0.2 b.example.com\n${EDGE.end}\n`;
  const desired = `x\n${DEFAULT_MARKERS.begin}\n10.0.0.1 a.example.com\n${DEFAULT_MARKERS.end}\n` +
    `${EDGE.begin}\n10.0.0.2 b.example.com\n${EDGE.end}\n`;
  const plan = planWrite(current, desired, { markers: EDGE });
  assert.equal(plan.kind, "overwrite");
  if (plan.kind !== "overwrite") return;
  assert.equal(plan.text.length, current.length);
  assert.ok(plan.text.endsWith(`${EDGE.end}${" ".repeat(current.length - desired.length)}\n`));
  assert.ok(plan.text.includes(`${DEFAULT_MARKERS.end}\n`), "the other END line is untouched");
});

Deno.test("markerPair: none, one ordered pair, or the damage named the same way for both editors", () => {
  assert.deepEqual(markerPair([], []), { kind: "absent" });
  assert.deepEqual(markerPair([2], [5]), { kind: "pair", begin: 2, end: 5 });
  const table: [number[], number[], string, RegExp][] = [
    [[1, 4], [6], "duplicate-begin", /2 BEGIN markers \(lines 2, 5\)/],
    [[1], [3, 6], "duplicate-end", /2 END markers \(lines 4, 7\)/],
    [[1], [], "begin-without-end", /BEGIN marker on line 2 has no END/],
    [[], [1], "end-without-begin", /END marker on line 2 has no BEGIN/],
    [[4], [2], "end-before-begin", /END marker on line 3 comes before the BEGIN marker on line 5/],
  ];
  for (const [begins, ends, problem, detail] of table) {
    const pair = markerPair(begins, ends);
    assert.equal(pair.kind === "damaged" && pair.problem, problem);
    assert.match(pair.kind === "damaged" ? pair.detail : "", detail);
  }
});
