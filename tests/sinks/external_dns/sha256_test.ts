import assert from "node:assert/strict";
import { sha256, sha256Hex } from "../../../lib/sinks/external_dns/sha256.ts";
import { prng } from "../../support/random.ts";

Deno.test("sha256Hex matches the FIPS 180-4 example digests", async (t) => {
  const cases: [string, string, string][] = [
    ["empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "two blocks",
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
  ];
  for (const [name, input, digest] of cases) {
    await t.step(name, () => assert.equal(sha256Hex(input), digest));
  }
});

Deno.test("sha256 agrees with Web Crypto on every length around the block and padding boundaries", async () => {
  const random = prng(0x5a5a);
  for (let length = 0; length <= 300; length++) {
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    assert.deepEqual(sha256(bytes), expected, `length ${length}`);
  }
});

Deno.test("sha256 hashes a string as its UTF-8 bytes", async () => {
  const text = "bücher.example";
  const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  assert.deepEqual(sha256(text), expected);
});
