/**
 * The editor reports whether the Corefile it edited enables `reload` (the sink warns when it
 * does not), from the tokens it already has: it must agree with `hasReloadPlugin` on every
 * fixture, and our own block can never change the answer.
 */

import assert from "node:assert/strict";
import { applyCorefileBlock } from "../../../lib/sinks/coredns/corefile_block.ts";
import { hasReloadPlugin } from "../../../lib/sinks/coredns/corefile_checks.ts";
import { FIXTURES, K3S, K3S_WITHOUT_RELOAD } from "./fixtures/corefiles.ts";

const FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";

Deno.test("applyCorefileBlock reports reload as hasReloadPlugin sees it, before and after the edit", () => {
  const cases = [
    ...FIXTURES.map((fixture) => [fixture.name, fixture.text] as const),
    [
      "k3s without reload",
      K3S_WITHOUT_RELOAD,
    ] as const,
  ];
  for (const [name, text] of cases) {
    const edit = applyCorefileBlock(text, ["a.example.com"], FQDN);
    if (edit.kind !== "changed") continue;
    assert.equal(edit.reload, hasReloadPlugin(text), name);
    assert.equal(edit.reload, hasReloadPlugin(edit.corefile), `${name}: after the edit`);
  }
  const withReload = applyCorefileBlock(K3S, ["a.example.com"], FQDN);
  const without = applyCorefileBlock(K3S_WITHOUT_RELOAD, ["a.example.com"], FQDN);
  assert.ok(withReload.kind === "changed" && withReload.reload);
  assert.ok(without.kind === "changed" && !without.reload);
});
