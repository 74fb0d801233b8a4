import assert from "node:assert/strict";
import { recordTypeName } from "../../../lib/dns/wire/record_type_name.ts";

Deno.test("recordTypeName: mnemonics for common types, TYPEnnn (RFC 3597) for the rest", () => {
  assert.deepEqual(
    [1, 28, 15, 16, 33, 65, 255, 0, 65280, 65535].map(recordTypeName),
    ["A", "AAAA", "MX", "TXT", "SRV", "HTTPS", "ANY", "TYPE0", "TYPE65280", "TYPE65535"],
  );
});
