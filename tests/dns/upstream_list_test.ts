import assert from "node:assert/strict";
import { parseUpstreams } from "../../lib/dns/upstream_list.ts";

Deno.test("parseUpstreams: addresses of both families, with and without ports", () => {
  assert.deepEqual(parseUpstreams("10.96.0.10, 10.96.0.11:5353,fd00::A,[fd00::b]:53"), {
    ok: true,
    upstreams: [
      { host: "10.96.0.10", port: 53 },
      { host: "10.96.0.11", port: 5353 },
      { host: "fd00::a", port: 53 },
      { host: "fd00::b", port: 53 },
    ],
  });
});

Deno.test("parseUpstreams: names, bad ports and bad addresses are each reported", () => {
  const parsed = parseUpstreams("kube-dns.kube-system,10.0.0.1:0,10.0.0.1:99999,300.1.1.1,[fd00::1]:x");
  assert.equal(parsed.ok, false);
  if (parsed.ok) return;
  assert.equal(parsed.problems.length, 5);
  assert.match(
    parsed.problems[0] ?? "",
    /"kube-dns.kube-system" is not an IP address \(names are not accepted\)/,
  );
  assert.match(parsed.problems[1] ?? "", /port must be 1-65535/);
  assert.match(parsed.problems[2] ?? "", /port must be 1-65535/);
  assert.match(parsed.problems[3] ?? "", /not an IP address/);
  assert.match(parsed.problems[4] ?? "", /not an IP address/);
});
