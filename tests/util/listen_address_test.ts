import assert from "node:assert/strict";
import { formatHostPort, type ListenAddress, parseListenAddress } from "../../lib/util/listen_address.ts";
import { listenAddress } from "../../lib/cli/kinds.ts";

Deno.test("listen addresses in Go's host:port form are accepted", async (t) => {
  const cases: readonly [string, ListenAddress, string][] = [
    [":8080", { host: undefined, port: 8080 }, ":8080"],
    [":0", { host: undefined, port: 0 }, ":0"],
    [":65535", { host: undefined, port: 65535 }, ":65535"],
    ["0.0.0.0:8080", { host: "0.0.0.0", port: 8080 }, "0.0.0.0:8080"],
    ["127.0.0.1:0", { host: "127.0.0.1", port: 0 }, "127.0.0.1:0"],
    ["[::]:8080", { host: "::", port: 8080 }, "[::]:8080"],
    ["[::1]:0", { host: "::1", port: 0 }, "[::1]:0"],
    ["[2001:db8::7]:443", { host: "2001:db8::7", port: 443 }, "[2001:db8::7]:443"],
    ["localhost:8080", { host: "localhost", port: 8080 }, "localhost:8080"],
    ["proxy.ns.svc.cluster.local:9000", { host: "proxy.ns.svc.cluster.local", port: 9000 }, ""],
  ];
  for (const [text, expected, printed] of cases) {
    await t.step(text, () => {
      assert.deepEqual(parseListenAddress(text), expected);
      assert.equal(formatHostPort(expected.host, expected.port), printed === "" ? text : printed);
    });
  }
});

Deno.test("malformed listen addresses are refused with a reason", async (t) => {
  const cases: readonly [string, RegExp][] = [
    ["8080", /missing ':'/],
    ["", /missing ':'/],
    [":99999", /port "99999" is not a number from 0 to 65535/],
    [":65536", /port "65536"/],
    [":-1", /port "-1"/],
    [":", /port ""/],
    [":80a", /port "80a"/],
    ["host:port", /port "port"/],
    ["::8080", /IPv6 host must be written in brackets/],
    ["::1:8080", /IPv6 host must be written in brackets/],
    ["[::1", /unbalanced '\['/],
    ["[::1:8080", /unbalanced '\['/],
    ["[::1]", /missing ':' before the port/],
    ["[::1]8080", /missing ':' before the port/],
    ["[1.2.3.4]:80", /"1.2.3.4" is not an IPv6 address/],
    ["[fe80::1%eth0]:80", /is not an IPv6 address/],
    ["[zz::1]:80", /is not an IPv6 address/],
    ["1.2.3:80", /"1.2.3" is not an IPv4 address/],
    ["1.2.3.256:80", /is not an IPv4 address/],
    ["01.2.3.4:80", /is not an IPv4 address/],
    ["bad_host:80", /is not a host name or IP address/],
    ["-host:80", /is not a host name or IP address/],
    ["a b:80", /is not a host name or IP address/],
  ];
  for (const [text, reason] of cases) {
    await t.step(JSON.stringify(text), () => {
      const parsed = parseListenAddress(text);
      assert.equal(typeof parsed, "string", `${text} should be refused, got ${JSON.stringify(parsed)}`);
      assert.match(parsed as string, reason);
    });
  }
});

Deno.test("the listen-address option kind treats empty as disabled only when allowed", () => {
  const optional = listenAddress({ allowEmpty: true });
  const required = listenAddress();
  assert.deepEqual(optional.parse(""), { ok: true, value: null });
  assert.equal(required.parse("").ok, false);
  assert.match(optional.accepted, /empty disables/);
  assert.deepEqual(required.parse("[::]:8443"), { ok: true, value: { host: "::", port: 8443 } });
  const bad = required.parse("8080");
  assert.ok(!bad.ok && bad.reason !== undefined && /missing ':'/.test(bad.reason));
});
