import assert from "node:assert/strict";
import { ConfigError, parseOptions } from "../../lib/cli/options.ts";
import { DNS_OPTIONS } from "../../lib/dns/dns_options.ts";
import { type DnsSettings, dnsSettings } from "../../lib/dns/dns_settings.ts";

const RESOLV =
  "search shop.svc.cozy.local svc.cozy.local cozy.local\nnameserver 10.95.0.10\noptions ndots:5\n";

function settings(
  argv: readonly string[],
  input: { resolvConf?: string | undefined; podNamespace?: string | undefined } = {},
): DnsSettings | ConfigError {
  const parsed = parseOptions(DNS_OPTIONS, { argv, getEnv: () => undefined });
  if (parsed.kind !== "ok") throw new Error(`options refused: ${JSON.stringify(parsed)}`);
  return dnsSettings({
    values: parsed.values,
    resolvConf: "resolvConf" in input ? input.resolvConf : RESOLV,
    podNamespace: "podNamespace" in input ? input.podNamespace : "ouroboros",
  });
}

function problems(result: DnsSettings | ConfigError): string[] {
  assert.ok(result instanceof ConfigError, "expected a ConfigError");
  return [...result.problems];
}

Deno.test("dns settings: defaults come from resolv.conf and the pod's namespace", () => {
  const result = settings([]);
  assert.ok(!(result instanceof ConfigError), String(result));
  assert.deepEqual(result.upstreams, [{ host: "10.95.0.10", port: 53 }]);
  assert.equal(result.upstreamSource, "resolv.conf");
  assert.equal(result.clusterDomain, "cozy.local");
  assert.equal(result.ttlSeconds, 30);
  assert.deepEqual(result.proxyService, { namespace: "ouroboros", name: "ouroboros-proxy" });
  assert.equal(result.parNamespace, "ouroboros");
  assert.equal(result.dnsService, undefined);
});

Deno.test("dns settings: flags win over resolv.conf and the pod's namespace", () => {
  const result = settings([
    "--upstream=10.0.0.53:5353,[fd00::53]",
    "--cluster-domain=cluster.local",
    "--proxy-service-namespace=edge",
    "--par-namespace=par",
    "--dns-service-name=ouroboros-dns",
    "--manage-workloads",
    "--ttl=5m",
  ]);
  assert.ok(!(result instanceof ConfigError), String(result));
  assert.deepEqual(result.upstreams, [{ host: "10.0.0.53", port: 5353 }, { host: "fd00::53", port: 53 }]);
  assert.equal(result.upstreamSource, "flag");
  assert.equal(result.clusterDomain, "cluster.local");
  assert.equal(result.proxyService.namespace, "edge");
  assert.equal(result.parNamespace, "par");
  assert.deepEqual(result.dnsService, { namespace: "ouroboros", name: "ouroboros-dns" });
  assert.equal(result.ttlSeconds, 300);
});

Deno.test("dns settings: every problem at once, each naming the flag and what is accepted", () => {
  const found = problems(settings([
    "--upstream=kube-dns,10.0.0.1:0",
    "--ttl=1500ms",
    "--client-selector=app=cert manager",
    "--manage-proxy-config",
  ]));
  assert.equal(found.length, 5, found.join("\n"));
  assert.match(found[0] ?? "", /^--upstream: "kube-dns" is not an IP address .*accepted: IP addresses/);
  assert.match(found[1] ?? "", /^--upstream: "10.0.0.1:0": the port must be 1-65535/);
  assert.match(found[2] ?? "", /^--ttl: 1500 ms is not whole seconds/);
  assert.match(found[3] ?? "", /^--client-selector: .*accepted: a label selector/);
  assert.match(found[4] ?? "", /^--manage-proxy-config needs --dns-service-name/);
});

Deno.test("dns settings: no usable resolv.conf and no --upstream is refused at start-up", () => {
  assert.match(
    problems(settings([], { resolvConf: undefined }))[0] ?? "",
    /could not be read.*give --upstream/,
  );
  assert.match(
    problems(settings([], { resolvConf: "search cluster.local\n" }))[0] ?? "",
    /no usable nameserver/,
  );
});

Deno.test("dns settings: an unknown namespace is refused only where one is needed", () => {
  const found = problems(settings(["--dns-service-name=dns"], { podNamespace: undefined }));
  assert.deepEqual(found.map((problem) => problem.split(" ")[0]), [
    "--proxy-service-namespace",
    "--dns-service-namespace",
  ]);
  const withoutHairpin = settings(["--hairpin=false"], { podNamespace: undefined });
  assert.ok(!(withoutHairpin instanceof ConfigError), String(withoutHairpin));
});

Deno.test("dns settings: --restore-workloads needs no upstream", () => {
  const result = settings(["--restore-workloads"], { resolvConf: undefined });
  assert.ok(!(result instanceof ConfigError), String(result));
});

Deno.test("dns --wildcards: the same row as the controller's, rewrite by default, OUROBOROS_DNS_WILDCARDS", () => {
  const parse = (argv: readonly string[], env: Record<string, string> = {}) =>
    parseOptions(DNS_OPTIONS, { argv, getEnv: (name) => env[name] });
  const byDefault = parse([]);
  assert.equal(byDefault.kind === "ok" ? byDefault.values.wildcards : byDefault.kind, "rewrite");
  const byEnv = parse([], { OUROBOROS_DNS_WILDCARDS: "skip" });
  assert.equal(byEnv.kind === "ok" ? byEnv.values.wildcards : byEnv.kind, "skip");
  assert.equal(parse(["--wildcards=maybe"]).kind, "invalid");
});
