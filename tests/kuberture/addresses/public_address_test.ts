import assert from "node:assert/strict";
import { isPublicAddress, NON_PUBLIC_RANGES } from "../../../lib/kuberture/addresses/public_address.ts";
import { formatIp, type IpAddress, parseIp } from "../../../lib/util/ip.ts";

Deno.test("isPublicAddress: each excluded range at its edges, and the first address outside", async (t) => {
  const table: readonly [string, boolean, string][] = [
    ["0.0.0.0", false, "this network"],
    ["0.255.255.255", false, "this network, last"],
    ["1.0.0.1", true, "just past this network"],
    ["9.255.255.255", true, "just before 10/8"],
    ["10.0.0.0", false, "RFC 1918 10/8"],
    ["10.255.255.255", false, "RFC 1918 10/8, last"],
    ["11.0.0.0", true, "just past 10/8"],
    ["100.63.255.255", true, "just before CGNAT"],
    ["100.64.0.0", false, "CGNAT, first"],
    ["100.127.255.255", false, "CGNAT, last"],
    ["100.128.0.0", true, "just past CGNAT"],
    ["127.0.0.1", false, "loopback"],
    ["169.254.169.254", false, "link-local (the cloud metadata address)"],
    ["172.15.255.255", true, "just before 172.16/12"],
    ["172.16.0.0", false, "RFC 1918 172.16/12"],
    ["172.31.255.255", false, "RFC 1918 172.16/12, last"],
    ["172.32.0.0", true, "just past 172.16/12"],
    ["192.168.1.10", false, "RFC 1918 192.168/16"],
    ["192.169.0.0", true, "just past 192.168/16"],
    ["223.255.255.255", true, "last unicast address"],
    ["224.0.0.1", false, "multicast"],
    ["239.255.255.255", false, "multicast, last"],
    ["240.0.0.1", false, "reserved"],
    ["255.255.255.255", false, "broadcast"],
    ["8.8.8.8", true, "a public resolver"],
    ["203.0.113.10", true, "documentation range stays public, as in kuberture"],
    ["::", false, "unspecified"],
    ["::1", false, "IPv6 loopback (kuberture publishes it)"],
    ["::ffff:8.8.8.8", false, "IPv4-mapped"],
    ["fc00::1", false, "ULA fc00::/7"],
    ["fdff:ffff::1", false, "ULA, upper half"],
    ["fe80::1", false, "link-local"],
    ["fe80::1%eth0", false, "link-local with a zone"],
    ["febf:ffff::1", false, "link-local, last /10"],
    ["fec0::1", false, "site-local"],
    ["ff02::1", false, "multicast"],
    ["fbff:ffff::1", true, "just before fc00::/7"],
    ["2a01:4f8:c0c:1::1", true, "global unicast"],
    ["2001:DB8::1", true, "documentation, upper case"],
    ["cp-1", false, "a Hostname entry"],
    ["", false, "empty"],
    ["10.0.0.256", false, "not an address"],
  ];
  for (const [address, expected, why] of table) {
    await t.step(`${address || '""'}: ${why}`, () => assert.equal(isPublicAddress(address), expected));
  }
});

Deno.test("isPublicAddress takes a parsed address as well as text", () => {
  assert.equal(isPublicAddress(parseIp("100.64.1.1")!), false);
  assert.equal(isPublicAddress(parseIp("2a01:4f8::1")!), true);
});

/** The first and last address of a CIDR prefix. */
function edges(prefix: string): [IpAddress, IpAddress] {
  const [address = "", lengthText = ""] = prefix.split("/");
  const first = parseIp(address)!;
  const length = Number(lengthText);
  const last = Uint8Array.from(first.bytes);
  for (let bit = length; bit < last.length * 8; bit++) last[bit >> 3]! |= 0x80 >> (bit & 7);
  return [first, { family: first.family, bytes: last } as IpAddress];
}

Deno.test("every listed range is refused from its first to its last address", () => {
  for (const { prefix } of NON_PUBLIC_RANGES) {
    const [first, last] = edges(prefix);
    assert.equal(isPublicAddress(first), false, `${formatIp(first)} (${prefix})`);
    assert.equal(isPublicAddress(last), false, `${formatIp(last)} (${prefix})`);
  }
});

Deno.test("the ranges marked as kuberture's are exactly the seven its resolver excludes", () => {
  assert.deepEqual(
    NON_PUBLIC_RANGES.filter((range) => range.kuberture).map((range) => range.prefix).sort(),
    [
      "10.0.0.0/8",
      "127.0.0.0/8",
      "169.254.0.0/16",
      "172.16.0.0/12",
      "192.168.0.0/16",
      "fc00::/7",
      "fe80::/10",
    ],
  );
});
