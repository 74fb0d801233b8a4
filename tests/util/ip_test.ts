import assert from "node:assert/strict";
import {
  formatIp,
  type IpAddress,
  isIpv4Mapped,
  mapIpv4,
  parseIp,
  parseIpv4,
  parseIpv6,
  unmapIpv4,
} from "../../lib/util/ip.ts";
import { prng } from "../support/random.ts";

/** The WHATWG URL serializer's IPv6 text: an implementation written by other people. */
function urlOracle(text: string): string {
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

function v6(bytes: readonly number[]): IpAddress {
  return { family: 6, bytes: Uint8Array.from(bytes) };
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("IPv4 addresses parse and print as dotted quads", async (t) => {
  const good: readonly [string, readonly number[]][] = [
    ["0.0.0.0", [0, 0, 0, 0]],
    ["10.0.0.7", [10, 0, 0, 7]],
    ["127.0.0.1", [127, 0, 0, 1]],
    ["192.168.100.200", [192, 168, 100, 200]],
    ["255.255.255.255", [255, 255, 255, 255]],
  ];
  for (const [text, bytes] of good) {
    await t.step(text, () => {
      const parsed = parseIpv4(text);
      assert.ok(parsed !== undefined);
      assert.deepEqual(Array.from(parsed.bytes), bytes);
      assert.equal(formatIp(parsed), text);
      assert.deepEqual(parseIp(text), parsed);
    });
  }
});

Deno.test("IPv4 spellings that are ambiguous or out of range are refused", async (t) => {
  const bad = [
    "01.2.3.4", // leading zero: octal in some parsers, forbidden in PROXY headers
    "1.2.3.04",
    "1.2.3.00",
    "256.1.1.1",
    "1.2.3.256",
    "1.2.3.999",
    "1.2.3",
    "1.2.3.4.5",
    "1..2.3",
    "",
    " 1.2.3.4",
    "1.2.3.4 ",
    "0x1.2.3.4",
    "1e2.0.0.0",
    "+1.2.3.4",
    "1.2.3.-4",
    "1.2.3.4/24",
  ];
  for (const text of bad) {
    await t.step(JSON.stringify(text), () => {
      assert.equal(parseIpv4(text), undefined);
      assert.equal(parseIp(text), undefined);
    });
  }
});

Deno.test("IPv6 addresses print in RFC 5952 canonical form", async (t) => {
  const cases: readonly [input: string, canonical: string][] = [
    ["2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"], // tie: the first run is compressed
    ["2001:db8:0:0:0:0:2:1", "2001:db8::2:1"],
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"], // leading zeros dropped
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"], // a single zero group is not compressed
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3"], // the longest run wins over the first
    ["1:0:2:0:0:3:0:4", "1:0:2::3:0:4"],
    ["0:0:0:0:0:0:0:0", "::"],
    ["::", "::"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["::1", "::1"],
    ["1:0:0:0:0:0:0:0", "1::"],
    ["1::", "1::"],
    ["::1:2:3:4:5:6:7", "0:1:2:3:4:5:6:7"], // `::` standing for one group is expanded
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
    ["ABCD:EF01:2345:6789:ABCD:EF01:2345:6789", "abcd:ef01:2345:6789:abcd:ef01:2345:6789"],
    ["[2001:db8::1]", "2001:db8::1"], // brackets
    ["fe80::1%eth0", "fe80::1"], // zone dropped
    ["[fe80::1%25eth0]", "fe80::1"],
    ["fe80::1%1", "fe80::1"],
    ["64:ff9b::192.0.2.33", "64:ff9b::c000:221"], // embedded dotted quad (not mapped)
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"],
    ["::1.2.3.4", "::102:304"], // deprecated IPv4-compatible form prints in hex
    ["::ffff:1.2.3.4", "::ffff:1.2.3.4"], // IPv4-mapped keeps its dotted quad
    ["::FFFF:0102:0304", "::ffff:1.2.3.4"],
    ["0:0:0:0:0:ffff:10.0.0.7", "::ffff:10.0.0.7"],
    ["::ffff:0:1.2.3.4", "::ffff:0:102:304"], // IPv4-translated, not mapped
  ];
  for (const [input, canonical] of cases) {
    await t.step(input, () => {
      const parsed = parseIp(input);
      assert.ok(parsed !== undefined, `${input} should parse`);
      assert.equal(parsed.family, 6);
      assert.equal(formatIp(parsed), canonical);
      // Printing is a fixed point: the canonical text parses to the same bytes.
      assert.deepEqual(parseIpv6(canonical)?.bytes, parsed.bytes);
    });
  }
});

Deno.test("malformed IPv6 text is refused", async (t) => {
  const bad = [
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1::2::3",
    ":::",
    "1:::2",
    "12345::",
    "g::1",
    "::1.2.3",
    "::1.2.3.4.5",
    "::01.2.3.4",
    "::256.2.3.4",
    "1.2.3.4::",
    "::1.2.3.4:5",
    "1:2:3:4:5:6:7:1.2.3.4",
    "1:2:3:4:5:6::1.2.3.4",
    ":1::",
    "1:",
    ":1",
    "1::2:",
    "1:2:3:4:5:6:7:8::",
    "::1:2:3:4:5:6:7:8",
    "[::1",
    "::1]",
    "[[::1]]",
    "",
    "[]",
    "%eth0",
    "fe80::1%", // a `%` must name a zone
    " ::1",
    "::1 ",
  ];
  for (const text of bad) {
    await t.step(JSON.stringify(text), () => {
      assert.equal(parseIpv6(text), undefined);
    });
  }
});

Deno.test("IPv4-mapped addresses unwrap to IPv4 and IPv4 maps back", async (t) => {
  const cases: readonly { input: string; mapped: boolean; unmapped: string; remapped: string }[] = [
    { input: "::ffff:10.0.0.7", mapped: true, unmapped: "10.0.0.7", remapped: "::ffff:10.0.0.7" },
    { input: "::ffff:0.0.0.0", mapped: true, unmapped: "0.0.0.0", remapped: "::ffff:0.0.0.0" },
    {
      input: "::ffff:ffff:ffff",
      mapped: true,
      unmapped: "255.255.255.255",
      remapped: "::ffff:255.255.255.255",
    },
    { input: "10.0.0.7", mapped: false, unmapped: "10.0.0.7", remapped: "::ffff:10.0.0.7" },
    { input: "::1", mapped: false, unmapped: "::1", remapped: "::1" },
    { input: "::", mapped: false, unmapped: "::", remapped: "::" },
    { input: "::1.2.3.4", mapped: false, unmapped: "::102:304", remapped: "::102:304" },
    { input: "1::ffff:1.2.3.4", mapped: false, unmapped: "1::ffff:102:304", remapped: "1::ffff:102:304" },
    { input: "::fffe:1.2.3.4", mapped: false, unmapped: "::fffe:102:304", remapped: "::fffe:102:304" },
  ];
  for (const c of cases) {
    await t.step(c.input, () => {
      const parsed = parseIp(c.input);
      assert.ok(parsed !== undefined);
      assert.equal(parsed.family === 6 && isIpv4Mapped(parsed), c.mapped);
      const unmapped = unmapIpv4(parsed);
      assert.equal(formatIp(unmapped), c.unmapped);
      assert.equal(unmapped.family, c.mapped || parsed.family === 4 ? 4 : 6);
      const remapped = mapIpv4(unmapped);
      assert.equal(remapped.family, 6);
      assert.equal(formatIp(remapped), c.remapped);
    });
  }
});

Deno.test("formatIp agrees with the WHATWG URL serializer on random IPv6 addresses", () => {
  const random = prng(0x5eed_0001);
  let compared = 0;
  for (let i = 0; i < 5_000; i++) {
    // Mostly zero groups, so runs of zeros of every length and position (and ties) occur often.
    const bytes = new Uint8Array(16);
    for (let g = 0; g < 8; g++) {
      const roll = random();
      const value = roll < 0.55 ? 0 : roll < 0.7 ? Math.floor(random() * 16) : Math.floor(random() * 65536);
      bytes[g * 2] = value >> 8;
      bytes[g * 2 + 1] = value & 0xff;
    }
    const address = v6(Array.from(bytes));
    if (address.family === 6 && isIpv4Mapped(address)) continue; // URL prints these in hex
    const text = formatIp(address);
    assert.equal(text, urlOracle(text), `bytes ${hex(bytes)}`);
    assert.equal(hex(parseIpv6(text)?.bytes ?? new Uint8Array()), hex(bytes), `round trip of ${text}`);
    compared++;
  }
  assert.ok(compared > 4_900, `only ${compared} addresses were compared`);
});

Deno.test("parseIpv6 reads non-canonical spellings the way the WHATWG URL parser does", () => {
  const random = prng(0x5eed_0002);
  for (let i = 0; i < 3_000; i++) {
    const groups = Array.from({ length: 8 }, () => (random() < 0.5 ? 0 : Math.floor(random() * 65536)));
    // Spell every group with leading zeros and random letter case, sometimes with `::` somewhere.
    const spelled = groups.map((g) => {
      const digits = g.toString(16).padStart(1 + Math.floor(random() * 4), "0");
      return random() < 0.5 ? digits.toUpperCase() : digits;
    });
    let text = spelled.join(":");
    const zeroStart = groups.indexOf(0);
    if (zeroStart >= 0 && random() < 0.7) {
      let end = zeroStart;
      while (end < 8 && groups[end] === 0) end++;
      text = `${spelled.slice(0, zeroStart).join(":")}::${spelled.slice(end).join(":")}`;
    }
    const parsed = parseIpv6(text);
    assert.ok(parsed !== undefined, `${text} should parse`);
    if (isIpv4Mapped(parsed)) continue;
    assert.equal(formatIp(parsed), urlOracle(text), `input ${text}`);
  }
});
