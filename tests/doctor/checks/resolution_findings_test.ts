import assert from "node:assert/strict";
import {
  type HostResolution,
  hostVerdict,
  mergeLookups,
  resolutionFindings,
  type ResolverView,
} from "../../../lib/doctor/checks/resolution_findings.ts";

const KUBE_DNS = { host: "10.96.0.10", port: 53 };
const NODE_LOCAL = { host: "169.254.20.10", port: 53 };
const CUSTOM = { host: "192.0.2.53", port: 53 };
const PROXY = ["10.96.14.2", "fd00::e:2"];
const FROM = "the ClusterIPs of Service ouroboros/ouroboros-proxy";

function answer(
  server: typeof KUBE_DNS,
  addresses: readonly string[],
  rcode = 0,
  ttl?: number,
): ResolverView {
  return { kind: "answer", server, rcode, addresses, ...(ttl === undefined ? {} : { ttl }) };
}
const silent = (server: typeof KUBE_DNS): ResolverView => ({
  kind: "no-answer",
  server,
  timedOut: true,
  reason: "no reply within 2s",
});
const notInPod: ResolverView = { kind: "not-asked", why: "not in a pod" };
const forbidden: ResolverView = { kind: "not-asked", why: "RBAC does not allow get on services (403)" };

function resolution(pod: ResolverView, cluster: ResolverView, inCluster = true): HostResolution {
  return {
    host: "shop.example.com",
    pod,
    cluster,
    expected: PROXY,
    expectedFrom: FROM,
    inCluster,
    release: "ouro",
  };
}

Deno.test("hostVerdict: a table of what the two resolvers said", () => {
  const cases: readonly {
    name: string;
    input: HostResolution;
    verdict: string;
    saw: RegExp;
    todo?: RegExp;
  }[] = [
    {
      name: "both give exactly the proxy's addresses",
      input: resolution(answer(KUBE_DNS, ["fd00::e:2", "10.96.14.2"]), answer(KUBE_DNS, PROXY)),
      verdict: "ok",
      saw: /^both resolvers give the proxy's 10\.96\.14\.2, fd00::e:2 \(the ClusterIPs of Service/,
    },
    {
      name: "addresses compare in canonical spelling",
      input: resolution(answer(KUBE_DNS, ["10.96.14.2", "FD00:0::E:2"]), answer(KUBE_DNS, PROXY)),
      verdict: "ok",
      saw: /^both resolvers give/,
    },
    {
      name: "node-local-dns gives the public address while the cluster DNS gives the proxy",
      input: resolution(answer(NODE_LOCAL, ["203.0.113.7"], 0, 30), answer(KUBE_DNS, PROXY)),
      verdict: "problem",
      saw: /169\.254\.20\.10:53 gives 203\.0\.113\.7.*node-local-dns.*up to 30s after a change/,
      todo: /--node-local-dns=manage/,
    },
    {
      name: "a custom dnsConfig nameserver gives something else",
      input: resolution(answer(CUSTOM, ["203.0.113.7"]), answer(KUBE_DNS, PROXY)),
      verdict: "problem",
      saw: /names 192\.0\.2\.53, not the cluster DNS Service: a custom dnsConfig or a dnsPolicy/,
      todo: /dnsPolicy: ClusterFirst/,
    },
    {
      name: "the same address answering differently is a cache or a change in flight",
      input: resolution(answer(KUBE_DNS, ["203.0.113.7"]), answer(KUBE_DNS, PROXY)),
      verdict: "problem",
      saw: /the same address answered differently/,
    },
    {
      name: "the pod's resolver gives only the IPv4 half",
      input: resolution(answer(NODE_LOCAL, ["10.96.14.2"]), answer(KUBE_DNS, PROXY)),
      verdict: "warning",
      saw: /the pod.s answer lacks part of it: the pod.s resolver is node-local-dns/,
    },
    {
      name: "the cluster DNS gives the public address: the rewrite is not in effect, with the cache note",
      input: resolution(answer(KUBE_DNS, ["203.0.113.7"], 0, 25), answer(KUBE_DNS, ["203.0.113.7"], 0, 25)),
      verdict: "problem",
      saw:
        /cluster DNS 10\.96\.0\.10:53 gives 203\.0\.113\.7, not the proxy's .*: the rewrite is not in effect; caches may keep this answer up to 25s/,
      todo: /dns-wiring check.*reload/,
    },
    {
      name: "the cluster DNS adds the public address to the proxy's",
      input: resolution(answer(KUBE_DNS, PROXY), answer(KUBE_DNS, [...PROXY, "203.0.113.7"])),
      verdict: "problem",
      saw: /bypass the proxy/,
    },
    {
      name: "the cluster DNS rewrites only A",
      input: resolution(answer(KUBE_DNS, ["10.96.14.2"]), answer(KUBE_DNS, ["10.96.14.2"])),
      verdict: "warning",
      saw: /one address family is not rewritten/,
    },
    {
      name: "NXDOMAIN from the cluster DNS",
      input: resolution(answer(KUBE_DNS, [], 3), answer(KUBE_DNS, [], 3)),
      verdict: "problem",
      saw: /says NXDOMAIN.*the proxy Service's name, does not exist/,
      todo: /dns-wiring/,
    },
    {
      name: "SERVFAIL from the cluster DNS",
      input: resolution(answer(KUBE_DNS, [], 2), answer(KUBE_DNS, [], 2)),
      verdict: "problem",
      saw: /says SERVFAIL/,
    },
    {
      name: "NODATA from the cluster DNS",
      input: resolution(answer(KUBE_DNS, []), answer(KUBE_DNS, [])),
      verdict: "problem",
      saw: /no address records \(NODATA\)/,
    },
    {
      name: "in a pod, a cluster DNS that does not answer is a problem",
      input: resolution(silent(KUBE_DNS), silent(KUBE_DNS)),
      verdict: "problem",
      saw: /did not answer \(no reply within 2s\)/,
      todo: /NetworkPolicy/,
    },
    {
      name: "from a workstation, no reply is could-not-check with the helm test hint",
      input: resolution(notInPod, silent(KUBE_DNS), false),
      verdict: "could-not-check",
      saw: /pod's resolver was not asked \(not in a pod\); the cluster DNS 10\.96\.0\.10:53 did not answer/,
      todo: /^not reachable from here; run it in the cluster: `helm test ouro`$/,
    },
    {
      name: "from a workstation with the ClusterIP routed, a right answer is ok",
      input: resolution(notInPod, answer(KUBE_DNS, PROXY), false),
      verdict: "ok",
      saw: /not in a pod.*gives 10\.96\.14\.2, fd00::e:2/,
    },
    {
      name: "from a workstation, a wrong answer of the cluster DNS is a problem",
      input: resolution(notInPod, answer(KUBE_DNS, ["203.0.113.7"]), false),
      verdict: "problem",
      saw: /the rewrite is not in effect/,
    },
    {
      name: "the Service unreadable, the pod's resolver right: ok on what was seen",
      input: resolution(answer(KUBE_DNS, PROXY), forbidden),
      verdict: "ok",
      saw: /cluster DNS was not asked \(RBAC.*the pod's resolver gives the proxy's/,
    },
    {
      name: "the Service unreadable, the pod's resolver wrong: a problem all the same",
      input: resolution(answer(KUBE_DNS, ["203.0.113.7"], 0, 10), forbidden),
      verdict: "problem",
      saw: /gives 203\.0\.113\.7.*not the proxy's.*up to 10s/,
    },
    {
      name: "neither asked (out of time)",
      input: resolution({ kind: "not-asked", why: "out of time" }, { kind: "not-asked", why: "out of time" }),
      verdict: "could-not-check",
      saw: /not asked \(out of time\).*not asked \(out of time\)/,
    },
  ];
  for (const { name, input, verdict, saw, todo } of cases) {
    const [gotVerdict, gotSaw, gotTodo] = hostVerdict(input);
    assert.equal(gotVerdict, verdict, name);
    assert.match(gotSaw, saw, name);
    if (todo !== undefined) assert.match(gotTodo ?? "", todo, name);
    if (verdict === "ok") assert.equal(gotTodo, undefined, name);
    else if (verdict !== "could-not-check") assert.notEqual(gotTodo, undefined, name);
  }
});

Deno.test("mergeLookups: addresses of both types, the smaller TTL, the first error, no reply wins", () => {
  assert.deepEqual(
    mergeLookups(KUBE_DNS, [
      { kind: "answer", rcode: 0, addresses: ["10.96.14.2"], ttl: 30 },
      { kind: "answer", rcode: 0, addresses: ["fd00::e:2"], ttl: 5 },
    ]),
    { kind: "answer", server: KUBE_DNS, rcode: 0, addresses: ["10.96.14.2", "fd00::e:2"], ttl: 5 },
  );
  assert.deepEqual(
    mergeLookups(KUBE_DNS, [{ kind: "answer", rcode: 3, addresses: [] }, {
      kind: "answer",
      rcode: 3,
      addresses: [],
    }]),
    { kind: "answer", server: KUBE_DNS, rcode: 3, addresses: [] },
  );
  assert.deepEqual(
    mergeLookups(KUBE_DNS, [
      { kind: "answer", rcode: 0, addresses: ["10.96.14.2"] },
      { kind: "no-answer", timedOut: true, reason: "no reply" },
    ]),
    { kind: "no-answer", server: KUBE_DNS, timedOut: true, reason: "no reply" },
  );
});

Deno.test("resolutionFindings: hosts with the same outcome share a finding; the first says it is a sample", () => {
  const ok = (host: string): HostResolution => ({
    ...resolution(answer(KUBE_DNS, PROXY), answer(KUBE_DNS, PROXY)),
    host,
  });
  const wrong: HostResolution = {
    ...resolution(answer(KUBE_DNS, ["203.0.113.7"]), answer(KUBE_DNS, ["203.0.113.7"])),
    host: "old.example.com",
  };
  const hosts = Array.from({ length: 7 }, (_, i) => `h${i}.example.com`);
  const findings = resolutionFindings([...hosts.map(ok), wrong], { sampledFrom: 41 });
  assert.deepEqual(findings.map((finding) => [finding.check, finding.verdict, finding.subject]), [
    [
      "resolution",
      "ok",
      "7 hosts: h0.example.com, h1.example.com, h2.example.com, h3.example.com, h4.example.com and 2 more",
    ],
    ["resolution", "problem", "host old.example.com"],
  ]);
  assert.match(findings[0]!.saw, /\(a sample of 8 of 41 hosts, --host-limit\)$/);
  assert.doesNotMatch(findings[1]!.saw, /sample/);
  assert.doesNotMatch(resolutionFindings([ok("a.example.com")], { sampledFrom: 1 })[0]!.saw, /sample/);
});
