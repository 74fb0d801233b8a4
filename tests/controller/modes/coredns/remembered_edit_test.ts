import assert from "node:assert/strict";
import type { CorefileEditFn } from "../../../../lib/controller/modes/coredns/coredns_sink.ts";
import { applyCorefileBlock } from "../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { rememberedEdit } from "../../../../lib/controller/modes/coredns/remembered_edit.ts";
import { FQDN } from "./support.ts";

const COREFILE = ".:53 {\n    errors\n    forward . /etc/resolv.conf\n}\n";

/** The real edit, counting its calls. */
function counted(): { edit: CorefileEditFn; calls: () => number } {
  let calls = 0;
  return {
    edit: (corefile, hosts) => {
      calls += 1;
      return applyCorefileBlock(corefile, { hosts, fqdn: FQDN });
    },
    calls: () => calls,
  };
}

Deno.test("the echo of our own write (same text, same hosts) is unchanged without editing again", () => {
  const real = counted();
  const edit = rememberedEdit(real.edit);
  const first = edit(COREFILE, ["a.example.com", "b.example.com"]);
  assert.equal(first.kind, "changed");
  const written = first.kind === "changed" ? first.corefile : "";
  // The text as the API server echoes it: equal, but another string.
  const echoed = JSON.parse(JSON.stringify(written)) as string;
  assert.deepEqual(edit(echoed, ["a.example.com", "b.example.com"]), { kind: "unchanged" });
  assert.deepEqual(edit(echoed, ["a.example.com", "b.example.com"]), { kind: "unchanged" });
  assert.equal(real.calls(), 1);
});

Deno.test("another text or other hosts go to the real edit", () => {
  const real = counted();
  const edit = rememberedEdit(real.edit);
  const first = edit(COREFILE, ["a.example.com"]);
  const written = first.kind === "changed" ? first.corefile : "";
  const other = edit(written, ["a.example.com", "c.example.com"]);
  assert.equal(other.kind, "changed");
  assert.ok(other.kind === "changed" && other.corefile.includes("rewrite name c.example.com"));
  const reverted = edit(COREFILE, ["a.example.com", "c.example.com"]);
  assert.equal(reverted.kind, "changed", "someone removed our block: written again");
  assert.equal(real.calls(), 3);
});

Deno.test("a text the edit found already right is remembered too; a refusal is not", () => {
  const real = counted();
  const edit = rememberedEdit(real.edit);
  assert.equal(edit(COREFILE, []).kind, "unchanged");
  assert.equal(edit(COREFILE, []).kind, "unchanged");
  assert.equal(real.calls(), 1);
  assert.equal(edit("not a corefile {", ["a.example.com"]).kind, "refused");
  assert.equal(edit("not a corefile {", ["a.example.com"]).kind, "refused");
  assert.equal(real.calls(), 3);
});
