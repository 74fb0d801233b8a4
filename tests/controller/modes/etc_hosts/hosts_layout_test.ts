import assert from "node:assert/strict";
import { applyHostsBlock } from "../../../../lib/controller/modes/etc_hosts/hosts_block.ts";
import {
  decodeHostsBytes,
  encodeHostsText,
  fitLength,
  MAX_SLACK,
  planWrite,
  stripFiller,
} from "../../../../lib/controller/modes/etc_hosts/hosts_layout.ts";
import { changed, DEBIAN, END, expectedBlock, IP, toCrlf } from "./support.ts";

const MANY = Array.from({ length: 5 }, (_, index) => `host-${index}.example.com`);

Deno.test("every byte value survives decode and encode, so non-UTF-8 lines come back unchanged", () => {
  const bytes = Uint8Array.from({ length: 256 * 3 }, (_, index) => index % 256);
  assert.deepEqual(encodeHostsText(decodeHostsBytes(bytes)), bytes);
  assert.throws(() => encodeHostsText("\u0100"), RangeError);
});

Deno.test("a shrinking block keeps the file's length: the freed bytes become spaces on the END line", () => {
  const before = DEBIAN + expectedBlock(IP, MANY);
  const after = changed(applyHostsBlock(before, { ip: IP, hosts: MANY.slice(0, 2) }));
  const plan = planWrite(before, after);
  assert.equal(plan.kind, "overwrite");
  if (plan.kind !== "overwrite") return;
  assert.equal(plan.text.length, before.length);
  const slack = before.length - after.length;
  assert.equal(plan.text, DEBIAN + expectedBlock(IP, MANY.slice(0, 2)).replace(END, END + " ".repeat(slack)));
  assert.equal(
    applyHostsBlock(plan.text, { ip: IP, hosts: MANY.slice(0, 2) }).kind,
    "unchanged",
    "slack does not cause a rewrite",
  );
});

Deno.test("slack goes before a CRLF line break", () => {
  const text = toCrlf(expectedBlock(IP, ["a.example.com"]));
  assert.equal(fitLength(text, text.length + 3), text.replace(`${END}\r\n`, `${END}   \r\n`));
});

Deno.test("a growing block uses up slack first, then reserves only what is missing", () => {
  const slack = 20; // "10.96.0.10 b.com\n" takes 17 of them
  const small = DEBIAN + expectedBlock(IP, ["a.example.com"]).replace(END, END + " ".repeat(slack));
  const oneMore = changed(applyHostsBlock(small, { ip: IP, hosts: ["a.example.com", "b.com"] }));
  assert.deepEqual(planWrite(small, oneMore), {
    kind: "overwrite",
    text: DEBIAN + expectedBlock(IP, ["a.example.com", "b.com"]).replace(END, END + "   "),
  });

  const grown = changed(applyHostsBlock(small, { ip: IP, hosts: MANY }));
  const plan = planWrite(small, grown);
  assert.equal(plan.kind, "extend");
  if (plan.kind !== "extend") return;
  assert.equal(plan.text, DEBIAN + expectedBlock(IP, MANY));
  assert.equal(plan.reserve, plan.text.length - small.length);
});

Deno.test("removing the block, or freeing more than the slack cap, shrinks the file with NUL filler", () => {
  const withBlock = DEBIAN + expectedBlock(IP, MANY);
  assert.deepEqual(planWrite(withBlock, DEBIAN), {
    kind: "shrink",
    text: DEBIAN,
    filler: withBlock.length - DEBIAN.length,
  });

  const huge = Array.from({ length: 100 }, (_, index) => `h${index}.example.com`);
  const big = DEBIAN + expectedBlock(IP, huge);
  const small = DEBIAN + expectedBlock(IP, ["a.example.com"]);
  assert.ok(big.length - small.length > MAX_SLACK);
  assert.deepEqual(planWrite(big, small), { kind: "shrink", text: small, filler: big.length - small.length });
});

Deno.test("identical bytes need no write; NUL filler alone does", () => {
  const text = DEBIAN + expectedBlock(IP, MANY);
  assert.deepEqual(planWrite(text, text), { kind: "none" });
  const interrupted = `${text}\u0000\u0000\u0000`;
  const clean = stripFiller(interrupted);
  assert.deepEqual(clean, { text, removed: 3 });
  const plan = planWrite(interrupted, clean.text);
  assert.deepEqual(plan, { kind: "overwrite", text: text.replace(`${END}\n`, `${END}   \n`) });
});

Deno.test("NULs anywhere are filler: an append that landed behind a stranded reserve is restored", () => {
  assert.deepEqual(stripFiller("a\n\u0000\u0000b c\n\u0000"), { text: "a\nb c\n", removed: 3 });
  assert.deepEqual(stripFiller("plain\n"), { text: "plain\n", removed: 0 });
});
