import assert from "node:assert/strict";
import {
  base64DecodedLength,
  CONFIGMAP_DATA_LIMIT,
  configMapDataBytes,
  exceedsConfigMapLimit,
  utf8Length,
} from "../../../../lib/controller/modes/coredns/configmap_data_bytes.ts";
import { applyCorefileBlock } from "../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { KUBEADM } from "./fixtures/corefiles.ts";
import { FQDN } from "./support.ts";

Deno.test("utf8Length agrees with TextEncoder", async (t) => {
  const encoder = new TextEncoder();
  const samples = [
    "",
    "a",
    "é",
    "€",
    "😀",
    "a😀b",
    "\ud800",
    "x\udc00y",
    "\ud800\ud800",
    "Corefile: ÿ\u0800",
  ];
  for (const sample of samples) {
    await t.step(
      JSON.stringify(sample),
      () => assert.equal(utf8Length(sample), encoder.encode(sample).length),
    );
  }
});

Deno.test("base64DecodedLength matches the decoded bytes", () => {
  for (const text of ["", "h", "hi", "hi!", "hello world"]) {
    assert.equal(base64DecodedLength(btoa(text)), text.length);
  }
});

Deno.test("the limit is 1 MiB of keys and values; exactly 1 MiB still fits (T-2.11)", () => {
  assert.equal(CONFIGMAP_DATA_LIMIT, 1_048_576);
  const key = "Corefile";
  const fits = { [key]: "x".repeat(CONFIGMAP_DATA_LIMIT - key.length) };
  assert.equal(configMapDataBytes(fits), CONFIGMAP_DATA_LIMIT);
  assert.equal(exceedsConfigMapLimit(fits), false);
  const over = { [key]: "x".repeat(CONFIGMAP_DATA_LIMIT - key.length + 1) };
  assert.equal(exceedsConfigMapLimit(over), true);
});

Deno.test("every key counts, multi-byte characters count as their UTF-8 bytes, binary data decoded", () => {
  assert.equal(configMapDataBytes({ Corefile: "é", NodeHosts: "€" }), 8 + 2 + 9 + 3);
  assert.equal(configMapDataBytes({}, { "blob.bin": btoa("abcd") }), 8 + 4);
  const split = { Corefile: "x".repeat(600_000), NodeHosts: "y".repeat(448_576) };
  assert.equal(exceedsConfigMapLimit(split), true, "the keys' bytes push it over");
});

Deno.test("a host set too large for one ConfigMap is caught before any write (T-2.11)", () => {
  // T-2.11: 12,000 hosts of about 200 characters.
  const label = "a".repeat(60);
  const hosts = Array.from(
    { length: 12_000 },
    (_, index) => `${label}.${label}.${label}.h${index}.example.com`,
  );
  const edit = applyCorefileBlock(KUBEADM, { hosts, fqdn: FQDN });
  assert.equal(edit.kind, "changed");
  if (edit.kind !== "changed") return;
  assert.equal(exceedsConfigMapLimit({ Corefile: edit.corefile }), true);
  assert.equal(exceedsConfigMapLimit({ Corefile: KUBEADM }), false);
});
