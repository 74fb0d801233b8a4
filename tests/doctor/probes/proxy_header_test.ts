import assert from "node:assert/strict";
import { probeProxyHeader } from "../../../lib/doctor/probes/proxy_header.ts";
import { parseProxyHeader } from "../../support/proxy_backend.ts";

Deno.test("probeProxyHeader: the address-free header of each version, as a strict parser reads it", () => {
  const cases: readonly ["v1" | "v2", number, number][] = [["v1", 1, 15], ["v2", 2, 16]];
  for (const [version, number, length] of cases) {
    const parsed = parseProxyHeader(probeProxyHeader(version));
    assert.deepEqual(
      parsed,
      { kind: "complete", header: { version: number, family: "UNKNOWN", length } },
      version,
    );
  }
  const v2 = probeProxyHeader("v2");
  assert.equal(v2[12], 0x20, "version 2, command LOCAL: the receiver uses the connection's own ends");
  assert.equal(v2[13], 0x00, "family UNSPEC");
});

Deno.test("probeProxyHeader: each call gets its own bytes", () => {
  const first = probeProxyHeader("v1");
  first[0] = 0;
  assert.equal(new TextDecoder().decode(probeProxyHeader("v1")), "PROXY UNKNOWN\r\n");
});
