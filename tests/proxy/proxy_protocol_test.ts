import assert from "node:assert/strict";
import {
  encodeProxyHeader,
  encodeV1,
  encodeV2,
  headerAddresses,
  type SocketAddress,
  V1_MAX_LENGTH,
  V2_SIGNATURE,
} from "../../lib/proxy/proxy_protocol.ts";
import {
  ipv6Bytes,
  parseV1,
  parseV2,
  V1_LIMIT,
  V2_SIGNATURE_BYTES,
} from "../support/proxy_protocol_parser.ts";
import { prng } from "../support/random.ts";

const decoder = new TextDecoder();

function at(hostname: string, port: number): SocketAddress {
  return { hostname, port };
}

function v1(client: SocketAddress, local: SocketAddress): string {
  return decoder.decode(encodeProxyHeader("v1", { client: client, local: local }));
}

Deno.test("v1 headers name the client and the proxy's own address in the agreed family", async (t) => {
  const cases: readonly { name: string; client: SocketAddress; local: SocketAddress; header: string }[] = [
    {
      name: "IPv4 on both sides",
      client: at("10.0.0.7", 51000),
      local: at("10.0.0.2", 8080),
      header: "PROXY TCP4 10.0.0.7 10.0.0.2 51000 8080\r\n",
    },
    {
      name: "IPv6 printed compressed and lower case",
      client: at("2001:DB8:0:0:0:0:0:7", 51000),
      local: at("2001:0db8::0002", 8443),
      header: "PROXY TCP6 2001:db8::7 2001:db8::2 51000 8443\r\n",
    },
    {
      name: "IPv4-mapped on both sides becomes TCP4",
      client: at("::ffff:10.0.0.7", 40000),
      local: at("::ffff:10.0.0.2", 8080),
      header: "PROXY TCP4 10.0.0.7 10.0.0.2 40000 8080\r\n",
    },
    {
      name: "IPv4-mapped in hex spelling becomes TCP4",
      client: at("::FFFF:0a00:0007", 40000),
      local: at("::ffff:a00:2", 8080),
      header: "PROXY TCP4 10.0.0.7 10.0.0.2 40000 8080\r\n",
    },
    {
      name: "IPv4 client, IPv6 proxy: TCP6 with the client mapped",
      client: at("10.0.0.7", 40000),
      local: at("2001:db8::2", 8443),
      header: "PROXY TCP6 ::ffff:10.0.0.7 2001:db8::2 40000 8443\r\n",
    },
    {
      name: "IPv6 client, IPv4 proxy: TCP6 with the proxy mapped",
      client: at("2001:db8::7", 40000),
      local: at("10.0.0.2", 8443),
      header: "PROXY TCP6 2001:db8::7 ::ffff:10.0.0.2 40000 8443\r\n",
    },
    {
      name: "mapped client, IPv6 proxy stays mapped in TCP6",
      client: at("::ffff:127.0.0.1", 40000),
      local: at("::1", 8080),
      header: "PROXY TCP6 ::ffff:127.0.0.1 ::1 40000 8080\r\n",
    },
    {
      name: "ports 0 and 65535",
      client: at("127.0.0.1", 0),
      local: at("127.0.0.1", 65535),
      header: "PROXY TCP4 127.0.0.1 127.0.0.1 0 65535\r\n",
    },
    {
      name: "zone ids are never emitted",
      client: at("fe80::1%eth0", 40000),
      local: at("fe80::2%eth0", 8080),
      header: "PROXY TCP6 fe80::1 fe80::2 40000 8080\r\n",
    },
    {
      name: "bracketed IPv6",
      client: at("[::1]", 40000),
      local: at("[::1]", 8080),
      header: "PROXY TCP6 ::1 ::1 40000 8080\r\n",
    },
    {
      name: "a non-IP client host name gives UNKNOWN",
      client: at("client.example", 40000),
      local: at("10.0.0.2", 8080),
      header: "PROXY UNKNOWN\r\n",
    },
    {
      name: "a non-IP local host name gives UNKNOWN",
      client: at("10.0.0.7", 40000),
      local: at("localhost", 8080),
      header: "PROXY UNKNOWN\r\n",
    },
    {
      name: "an empty host gives UNKNOWN",
      client: at("", 1),
      local: at("10.0.0.2", 8080),
      header: "PROXY UNKNOWN\r\n",
    },
    {
      name: "a unix socket path gives UNKNOWN",
      client: at("/run/client.sock", 0),
      local: at("/run/proxy.sock", 0),
      header: "PROXY UNKNOWN\r\n",
    },
    {
      name: "a leading-zero IPv4 gives UNKNOWN, not a guess",
      client: at("010.0.0.7", 40000),
      local: at("10.0.0.2", 8080),
      header: "PROXY UNKNOWN\r\n",
    },
    {
      name: "a port above 65535 gives UNKNOWN",
      client: at("10.0.0.7", 65536),
      local: at("10.0.0.2", 8080),
      header: "PROXY UNKNOWN\r\n",
    },
    {
      name: "a negative port gives UNKNOWN",
      client: at("10.0.0.7", 40000),
      local: at("10.0.0.2", -1),
      header: "PROXY UNKNOWN\r\n",
    },
    {
      name: "a fractional port gives UNKNOWN",
      client: at("10.0.0.7", 1.5),
      local: at("10.0.0.2", 8080),
      header: "PROXY UNKNOWN\r\n",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const header = v1(c.client, c.local);
      assert.equal(header, c.header);
      assert.equal(encodeV1(headerAddresses(c.client, c.local)), c.header);
      parseV1(new TextEncoder().encode(header)); // throws if the grammar is broken
    });
  }
});

Deno.test("the longest possible v1 header fits the spec's 107 bytes", () => {
  const widest = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
  const bytes = encodeProxyHeader("v1", { client: at(widest, 65535), local: at(widest, 65535) });
  const text = decoder.decode(bytes);
  assert.equal(text, `PROXY TCP6 ${widest} ${widest} 65535 65535\r\n`);
  assert.ok(bytes.length <= V1_MAX_LENGTH, `${bytes.length} bytes`);
  assert.equal(V1_MAX_LENGTH, V1_LIMIT);
  assert.ok(text.endsWith("\r\n"));
  assert.equal(text.indexOf("\r"), text.length - 2, "exactly one CR, right before the final LF");
  assert.equal(text.indexOf("\n"), text.length - 1, "exactly one LF, at the end");
  assert.doesNotMatch(text, / {2}/, "single spaces only");
  assert.equal(text.split(" ").length, 6);
  assert.doesNotMatch(text, /(?:^|[ .:])0\d/, "no leading zeros");
  const parsed = parseV1(bytes);
  assert.equal(parsed.length, bytes.length);
  assert.equal(parsed.family, "TCP6");
});

Deno.test("v2 headers have the exact bytes the spec defines", async (t) => {
  await t.step("IPv4", () => {
    const bytes = encodeProxyHeader("v2", { client: at("10.0.0.7", 51000), local: at("192.168.1.2", 8080) });
    assert.deepEqual(
      Array.from(bytes),
      [
        ...V2_SIGNATURE_BYTES,
        0x21, // version 2, PROXY
        0x11, // AF_INET, STREAM
        0x00,
        12, // address block length
        10,
        0,
        0,
        7, // source
        192,
        168,
        1,
        2, // destination
        0xc7,
        0x38, // 51000
        0x1f,
        0x90, // 8080
      ],
    );
  });
  await t.step("IPv6", () => {
    const bytes = encodeProxyHeader("v2", {
      client: at("2001:db8::7", 443),
      local: at("fe80::1%eth0", 65535),
    });
    assert.deepEqual(
      Array.from(bytes),
      [
        ...V2_SIGNATURE_BYTES,
        0x21, // version 2, PROXY
        0x21, // AF_INET6, STREAM
        0x00,
        36,
        0x20,
        0x01,
        0x0d,
        0xb8,
        ...new Array<number>(11).fill(0),
        0x07, // 2001:db8::7
        0xfe,
        0x80,
        ...new Array<number>(13).fill(0),
        0x01, // fe80::1, zone dropped
        0x01,
        0xbb, // 443
        0xff,
        0xff, // 65535
      ],
    );
  });
  await t.step("IPv4-mapped on both sides is sent as IPv4", () => {
    const bytes = encodeProxyHeader("v2", {
      client: at("::ffff:10.0.0.7", 1),
      local: at("::ffff:10.0.0.2", 2),
    });
    assert.equal(bytes[13], 0x11);
    assert.equal(bytes.length, 28);
  });
  await t.step("unknown addresses: LOCAL command, UNSPEC family, no address block", () => {
    // LOCAL, as HAProxy sends it: the receiver must then accept and use the real endpoints.
    const bytes = encodeProxyHeader("v2", { client: at("client.example", 1), local: at("10.0.0.2", 2) });
    assert.deepEqual(Array.from(bytes), [...V2_SIGNATURE_BYTES, 0x20, 0x00, 0x00, 0x00]);
    assert.deepEqual(parseV2(bytes), { command: "LOCAL", family: "UNSPEC", length: 16 });
  });
  assert.deepEqual(Array.from(V2_SIGNATURE), V2_SIGNATURE_BYTES);
});

/** A socket-layer spelling of a random address, and what the header must carry for it. */
interface RandomEnd {
  readonly hostname: string;
  /** 4 bytes when the address is IPv4 or IPv4-mapped, else 16. */
  readonly unwrapped: Uint8Array;
}

function randomEnd(random: () => number): RandomEnd {
  const byte = () => Math.floor(random() * 256);
  const roll = random();
  if (roll < 0.3) {
    const bytes = Uint8Array.from({ length: 4 }, byte);
    return { hostname: bytes.join("."), unwrapped: bytes };
  }
  if (roll < 0.45) {
    // What a dual-stack listener reports for an IPv4 peer, sometimes in hex or upper case.
    const bytes = Uint8Array.from({ length: 4 }, byte);
    const hexForm = `::ffff:${((bytes[0] ?? 0) << 8 | (bytes[1] ?? 0)).toString(16)}:${
      ((bytes[2] ?? 0) << 8 | (bytes[3] ?? 0)).toString(16)
    }`;
    const text = random() < 0.5 ? `::ffff:${bytes.join(".")}` : hexForm;
    return { hostname: random() < 0.3 ? text.toUpperCase() : text, unwrapped: bytes };
  }
  // IPv6 with plenty of zero groups, spelled uncompressed with random case, sometimes zoned.
  const groups = Array.from({ length: 8 }, () => (random() < 0.5 ? 0 : Math.floor(random() * 65536)));
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) groups[5] = 0xfffe; // keep it non-mapped
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  let text = groups.map((g) => g.toString(16)).join(":");
  if (random() < 0.3) text = text.toUpperCase();
  if (random() < 0.2) text += "%eth0";
  return { hostname: text, unwrapped: bytes };
}

function mapped(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 16) return bytes;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  out.set(bytes, 12);
  return out;
}

/** The canonical text of a header address: dotted quad, `::ffff:a.b.c.d`, or the URL serializer's IPv6. */
function canonicalText(bytes: Uint8Array, fromIpv4: boolean): string {
  if (bytes.length === 4) return bytes.join(".");
  if (fromIpv4) return `::ffff:${Array.from(bytes.subarray(12)).join(".")}`;
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return new URL(`http://[${groups.join(":")}]/`).hostname.slice(1, -1);
}

Deno.test("encode then parse round-trips random addresses and ports in v1 and v2", () => {
  const random = prng(0x0b0_0b0);
  const families = { TCP4: 0, TCP6: 0, mixed: 0 };
  for (let i = 0; i < 4_000; i++) {
    const client = randomEnd(random);
    const local = randomEnd(random);
    const sourcePort = Math.floor(random() * 65536);
    const destinationPort = random() < 0.1 ? 0 : Math.floor(random() * 65536);
    const bothV4 = client.unwrapped.length === 4 && local.unwrapped.length === 4;
    const family = bothV4 ? "TCP4" : "TCP6";
    const source = bothV4 ? client.unwrapped : mapped(client.unwrapped);
    const destination = bothV4 ? local.unwrapped : mapped(local.unwrapped);
    families[bothV4 ? "TCP4" : client.unwrapped.length === local.unwrapped.length ? "TCP6" : "mixed"]++;
    const what = `case ${i}: ${client.hostname}:${sourcePort} -> ${local.hostname}:${destinationPort}`;

    const lineBytes = encodeProxyHeader("v1", {
      client: at(client.hostname, sourcePort),
      local: at(local.hostname, destinationPort),
    });
    assert.ok(lineBytes.length <= V1_LIMIT, what);
    const line = parseV1(lineBytes);
    assert.equal(line.length, lineBytes.length, what);
    assert.ok(line.family !== "UNKNOWN", what);
    assert.equal(line.family, family, what);
    assert.deepEqual(line.source, source, what);
    assert.deepEqual(line.destination, destination, what);
    assert.equal(line.sourcePort, sourcePort, what);
    assert.equal(line.destinationPort, destinationPort, what);
    assert.equal(line.sourceText, canonicalText(source, client.unwrapped.length === 4), what);
    assert.equal(line.destinationText, canonicalText(destination, local.unwrapped.length === 4), what);

    const binary = parseV2(
      encodeProxyHeader("v2", {
        client: at(client.hostname, sourcePort),
        local: at(local.hostname, destinationPort),
      }),
    );
    assert.ok(binary.family !== "UNSPEC", what);
    assert.equal(binary.command, "PROXY", what);
    assert.equal(binary.family, family, what);
    assert.deepEqual(binary.source, source, what);
    assert.deepEqual(binary.destination, destination, what);
    assert.equal(binary.sourcePort, sourcePort, what);
    assert.equal(binary.destinationPort, destinationPort, what);
  }
  // The generator must have exercised every family rule, or the loop proved little.
  for (const [name, count] of Object.entries(families)) {
    assert.ok(count > 300, `${name}: only ${count} cases`);
  }
});

Deno.test("the reference parser refuses headers that break the grammar", async (t) => {
  // Guards the oracle itself: if it accepted these, the round-trip test could not fail.
  const encoder = new TextEncoder();
  const badV1 = [
    "PROXY TCP4 10.0.0.7 10.0.0.2 51000 8080\n",
    "PROXY TCP4 10.0.0.7 10.0.0.2 51000 8080\r",
    "PROXY TCP4 10.0.0.7  10.0.0.2 51000 8080\r\n",
    "PROXY TCP4 010.0.0.7 10.0.0.2 51000 8080\r\n",
    "PROXY TCP4 10.0.0.7 10.0.0.2 051000 8080\r\n",
    "PROXY TCP4 10.0.0.7 10.0.0.2 51000 65536\r\n",
    "PROXY TCP4 ::1 ::1 1 2\r\n",
    "PROXY TCP6 10.0.0.7 10.0.0.2 1 2\r\n",
    "PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n",
    "PROXY TCP6 [::1] ::1 1 2\r\n",
    "PROXY TCP5 10.0.0.7 10.0.0.2 1 2\r\n",
    "PROXY TCP4 10.0.0.7 10.0.0.2 1\r\n",
    "proxy TCP4 10.0.0.7 10.0.0.2 1 2\r\n",
    `PROXY TCP6 ${"a".repeat(100)}\r\n`,
  ];
  for (const text of badV1) {
    await t.step(`v1 ${JSON.stringify(text.slice(0, 50))}`, () => {
      assert.throws(() => parseV1(encoder.encode(text)), { name: "ProxyHeaderError" });
    });
  }
  const good = Array.from(encodeV2(headerAddresses(at("10.0.0.7", 1), at("10.0.0.2", 2))));
  const badV2: readonly [string, number[]][] = [
    ["short", good.slice(0, 15)],
    ["bad signature", [0x0a, ...good.slice(1)]],
    ["version 1", [...good.slice(0, 12), 0x11, ...good.slice(13)]],
    ["command 2", [...good.slice(0, 12), 0x22, ...good.slice(13)]],
    ["length too long", [...good.slice(0, 15), 13, ...good.slice(16)]],
    ["trailing byte", [...good, 0]],
    ["UDP transport", [...good.slice(0, 13), 0x12, ...good.slice(14)]],
  ];
  for (const [name, bytes] of badV2) {
    await t.step(`v2 ${name}`, () => {
      assert.throws(() => parseV2(Uint8Array.from(bytes)), { name: "ProxyHeaderError" });
    });
  }
  assert.deepEqual(Array.from(ipv6Bytes("::ffff:1.2.3.4")), [
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    255,
    255,
    1,
    2,
    3,
    4,
  ]);
});

Deno.test("encodeProxyHeader with a payload: the header then the payload, in one buffer, for every family and version", () => {
  const payloads = [
    new Uint8Array(0),
    new Uint8Array([0x47]),
    new TextEncoder().encode("GET / HTTP/1.1\r\n\r\n"),
  ];
  const ends = [
    { client: { hostname: "10.0.0.7", port: 51234 }, local: { hostname: "10.0.0.2", port: 8443 } },
    { client: { hostname: "fd00::7", port: 1 }, local: { hostname: "::ffff:10.0.0.2", port: 443 } },
    { client: { hostname: "localhost", port: 1 }, local: { hostname: "10.0.0.2", port: 443 } },
  ];
  for (const version of ["v1", "v2"] as const) {
    for (const end of ends) {
      const header = encodeProxyHeader(version, end);
      for (const payload of payloads) {
        const joined = encodeProxyHeader(version, end, { payload });
        assert.deepEqual(joined.subarray(0, header.length), header, `${version} ${end.client.hostname}`);
        assert.deepEqual(joined.subarray(header.length), payload, `${version} payload of ${payload.length}`);
        assert.equal(joined.length, header.length + payload.length);
      }
    }
  }
});
