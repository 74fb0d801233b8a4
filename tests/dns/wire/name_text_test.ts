import assert from "node:assert/strict";
import { nameText } from "../../../lib/dns/wire/name_text.ts";

/** Wire form of labels given as byte arrays. */
function wire(...labels: number[][]): Uint8Array {
  return new Uint8Array([...labels.flatMap((label) => [label.length, ...label]), 0]);
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

Deno.test("nameText: lower-cases ASCII, joins labels, escapes what would be ambiguous", async (t) => {
  const cases: [string, Uint8Array, string][] = [
    ["the root", wire(), ""],
    ["mixed case", wire(ascii("WwW"), ascii("Example"), ascii("COM")), "www.example.com"],
    ["digits, hyphen, underscore", wire(ascii("_acme-1")), "_acme-1"],
    ["a dot inside a label", wire(ascii("a.b"), ascii("c")), "a\\.b.c"],
    ["a backslash", wire(ascii("a\\b")), "a\\\\b"],
    ["a space and a NUL", wire([0x20, 0x00]), "\\032\\000"],
    ["bytes above 0x7e stay bytes, not UTF-8", wire([0xc3, 0xa9, 0x7f]), "\\195\\169\\127"],
    ["non-ASCII letters are not folded", wire([0xc9]), "\\201"],
  ];
  for (const [name, bytes, text] of cases) {
    await t.step(name, () => assert.equal(nameText(bytes, 0), text));
  }
});

Deno.test("nameText: reads at an offset and stops at the root label", () => {
  const bytes = new Uint8Array([9, 9, 9, ...wire(ascii("A"), ascii("b")), 0xff, 0xff]);
  assert.equal(nameText(bytes, 3), "a.b");
});

Deno.test("nameText: the longest name (255 octets, every byte escaped) fits", () => {
  const label = new Array<number>(63).fill(0xff);
  const bytes = wire(label, label, label, new Array<number>(61).fill(0xff));
  assert.equal(bytes.length, 255);
  assert.equal(nameText(bytes, 0).length, 250 * 4 + 3);
});
