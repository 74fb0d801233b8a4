import assert from "node:assert/strict";
import { ConfigError, parseOptions } from "../../lib/cli/options.ts";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import {
  clusterDomainMismatch,
  type ControllerSettings,
  controllerSettings,
  labelKeyProblem,
} from "../../lib/controller/controller_settings.ts";
import { runOuroboros } from "../support/ouroboros_process.ts";

const COZY_RESOLV = "search ouroboros.svc.cozy.local svc.cozy.local cozy.local\nnameserver 10.96.0.10\n";

/** Parses argv and env like the CLI, then validates; returns settings or the problems. */
function settle(
  argv: readonly string[],
  env: Record<string, string> = {},
  options: { resolv?: string; podNamespace?: string } = {},
): ControllerSettings | readonly string[] {
  const outcome = parseOptions(CONTROLLER_OPTIONS, { argv, getEnv: (name) => env[name] });
  if (outcome.kind === "help") throw new Error("unexpected help");
  if (outcome.kind === "invalid") return outcome.problems;
  const result = controllerSettings({
    values: outcome.values,
    clusterDomainSource: outcome.sources.clusterDomain,
    readResolvConf: () => options.resolv,
    podNamespace: options.podNamespace,
  });
  return result instanceof ConfigError ? result.problems : result;
}

function problems(result: ControllerSettings | readonly string[]): readonly string[] {
  if (!Array.isArray(result)) {
    assert.fail(`expected problems, got settings for mode ${(result as ControllerSettings).values.mode}`);
  }
  return result;
}

function settings(result: ControllerSettings | readonly string[]): ControllerSettings {
  if (Array.isArray(result)) assert.fail(`expected settings, got problems:\n${result.join("\n")}`);
  return result as ControllerSettings;
}

Deno.test("coredns mode composes the rewrite target from the Service and the detected cluster domain", () => {
  const result = settings(settle(["--proxy-service-namespace=ouroboros"], {}, { resolv: COZY_RESOLV }));
  assert.equal(result.proxyFqdn, "ouroboros-proxy.ouroboros.svc.cozy.local.");
  assert.equal(result.clusterDomain, "cozy.local");
  assert.equal(result.clusterDomainSource, "detected");
  assert.deepEqual(result.coredns, { namespace: "kube-system", configmap: "coredns", key: "Corefile" });
});

Deno.test("an explicit --proxy-fqdn wins, and a given cluster domain skips detection", () => {
  let read = false;
  const outcome = parseOptions(CONTROLLER_OPTIONS, {
    argv: ["--proxy-fqdn=Proxy.Example.Svc.K8s.Local.", "--cluster-domain=k8s.local"],
    getEnv: () => undefined,
  });
  assert.equal(outcome.kind, "ok");
  if (outcome.kind !== "ok") return;
  const result = controllerSettings({
    values: outcome.values,
    clusterDomainSource: outcome.sources.clusterDomain,
    readResolvConf: () => {
      read = true;
      return undefined;
    },
    podNamespace: undefined,
  });
  assert.ok(!(result instanceof ConfigError));
  assert.equal(result.proxyFqdn, "proxy.example.svc.k8s.local.");
  assert.equal(result.clusterDomainSource, "flag");
  assert.equal(read, false, "resolv.conf must not be read when the domain is given");
});

Deno.test("the controller's cross-field rules each name what to set", async (t) => {
  const cases: readonly { name: string; argv: string[]; env?: Record<string, string>; expect: RegExp[] }[] = [
    {
      name: "coredns without a target",
      argv: ["--proxy-service-name="],
      expect: [/set --proxy-fqdn, or --proxy-service-name with --proxy-service-namespace/],
    },
    { name: "coredns without the namespace", argv: [], expect: [/needs --proxy-service-namespace/] },
    {
      name: "an fqdn without the trailing dot",
      argv: ["--proxy-fqdn=proxy.ns.svc.cluster.local"],
      expect: [/--proxy-fqdn="proxy.ns.svc.cluster.local" must be a fully qualified name ending with a dot/],
    },
    {
      name: "node-local-dns manage outside the CoreDNS modes",
      argv: [
        "--mode=external-dns",
        "--node-local-dns=manage",
        "--external-dns-proxy-ip=10.0.0.1",
        "--external-dns-namespace=dns",
      ],
      env: { OUROBOROS_INSTANCE: "edge" },
      expect: [
        /--node-local-dns=manage works in coredns and coredns-import modes only, not in external-dns mode/,
      ],
    },
    {
      name: "node-local-dns manage with a bad ConfigMap name and key",
      argv: ["--proxy-fqdn=p.n.svc.cluster.local.", "--node-local-dns=manage"],
      env: { OUROBOROS_NODE_LOCAL_DNS_CONFIGMAP: "Bad_Name", OUROBOROS_NODE_LOCAL_DNS_KEY: "a b" },
      expect: [
        /OUROBOROS_NODE_LOCAL_DNS_CONFIGMAP="Bad_Name" must be a ConfigMap name/,
        /OUROBOROS_NODE_LOCAL_DNS_KEY="a b" must be a ConfigMap data key/,
      ],
    },
    {
      name: "gateway-class without gateway-api",
      argv: ["--proxy-fqdn=p.n.svc.cluster.local.", "--gateway-class=eg"],
      expect: [/--gateway-class is set but --gateway-api is off/],
    },
    {
      name: "coredns with an empty key",
      argv: ["--proxy-fqdn=p.n.svc.cluster.local.", "--coredns-key=", "--coredns-configmap=Bad_Name"],
      expect: [
        /--coredns-configmap="Bad_Name" must be a ConfigMap name/,
        /--coredns-key="" must be a ConfigMap data key/,
      ],
    },
    {
      name: "etc-hosts without the proxy address",
      argv: ["--mode=etc-hosts", "--etc-hosts="],
      expect: [/--etc-hosts must name the hosts file/, /etc-hosts mode needs --proxy-ip/],
    },
    {
      name: "etc-hosts pointed at a file not named hosts, or through '..'",
      argv: ["--mode=etc-hosts", "--proxy-ip=10.0.0.1", "--etc-hosts=/host/etc/shadow"],
      expect: [/--etc-hosts: refusing to write "\/host\/etc\/shadow": its file name must be "hosts"/],
    },
    {
      name: "etc-hosts path with a '..' component",
      argv: ["--mode=etc-hosts", "--proxy-ip=10.0.0.1", "--etc-hosts=/host/../etc/hosts"],
      expect: [/--etc-hosts: refusing to write "\/host\/..\/etc\/hosts": it has a "\.\." component/],
    },
    {
      name: "external-dns without instance, target or prefix slash",
      argv: [
        "--mode=external-dns",
        "--external-dns-proxy-service=",
        "--external-dns-annotation-prefix=internal-dns",
        "--external-dns-namespace=dns",
      ],
      expect: [
        /--external-dns-annotation-prefix="internal-dns" must end with '\/'/,
        /set --external-dns-proxy-ip, or --external-dns-proxy-service/,
        /needs OUROBOROS_INSTANCE/,
      ],
    },
    {
      name: "external-dns service output with an empty prefix",
      argv: ["--mode=external-dns", "--external-dns-output=service", "--external-dns-annotation-prefix="],
      env: { OUROBOROS_INSTANCE: "blue" },
      expect: [
        /--external-dns-output=service needs --external-dns-annotation-prefix/,
        /records' namespace is unknown/,
      ],
    },
    {
      name: "reserved and malformed annotation and label keys",
      argv: [
        "--mode=external-dns",
        "--external-dns-namespace=dns",
        "--external-dns-annotation=external-dns.alpha.kubernetes.io/target=1.2.3.4",
        "--external-dns-annotation=-bad=x",
        "--external-dns-label=ouroboros.lexfrei.tech/instance=x",
        "--external-dns-label=Bad_Prefix/name=x",
        "--external-dns-label=team/=x",
      ],
      env: { OUROBOROS_INSTANCE: "blue" },
      expect: [
        /--external-dns-annotation key "external-dns.alpha.kubernetes.io\/target" is reserved/,
        /--external-dns-annotation key "-bad" is not valid/,
        /--external-dns-label key "ouroboros.lexfrei.tech\/instance" is reserved/,
        /--external-dns-label key "Bad_Prefix\/name" is not valid: its prefix "Bad_Prefix" must be a lower-case DNS subdomain/,
        /--external-dns-label key "team\/" is not valid: its name part must be 1 to 63 characters \(got 0\)/,
      ],
    },
  ];
  for (const testCase of cases) {
    await t.step(testCase.name, () => {
      const found = problems(settle(testCase.argv, testCase.env ?? {}));
      for (const pattern of testCase.expect) {
        assert.ok(found.some((problem) => pattern.test(problem)), `${pattern} not in:\n${found.join("\n")}`);
      }
      assert.equal(found.length, testCase.expect.length, `unexpected extra problems:\n${found.join("\n")}`);
    });
  }
});

Deno.test("more than 32 annotations or labels are refused; repeated keys keep the last value", () => {
  const many = Array.from({ length: 33 }, (_, i) => `--external-dns-label=k${i}=v`);
  const found = problems(
    settle(["--mode=external-dns", "--external-dns-namespace=dns", ...many], { OUROBOROS_INSTANCE: "blue" }),
  );
  assert.deepEqual(found, ["--external-dns-label: 33 keys, more than the limit of 32"]);
  const ok = settings(
    settle(
      [
        "--mode=external-dns",
        "--external-dns-label=team=a",
        "--external-dns-label=team=b",
        "--external-dns-annotation=x=",
      ],
      { OUROBOROS_INSTANCE: "blue" },
      { podNamespace: "ouroboros" },
    ),
  );
  assert.deepEqual(ok.externalDns.labels, { team: "b" });
  assert.deepEqual(ok.externalDns.annotations, { x: "" });
  assert.equal(ok.externalDns.namespace, "ouroboros", "the pod's namespace is the default records namespace");
  assert.equal(ok.externalDns.instance, "blue");
});

Deno.test("label keys follow the Kubernetes rules", () => {
  assert.equal(labelKeyProblem("team"), undefined);
  assert.equal(labelKeyProblem("example.com/team-a.b_c"), undefined);
  assert.match(labelKeyProblem("x".repeat(64)) ?? "", /1 to 63 characters \(got 64\)/);
  assert.match(labelKeyProblem("-team") ?? "", /name part "-team"/);
  assert.match(labelKeyProblem(`${"a".repeat(254)}/x`) ?? "", /prefix must be 1 to 253 characters/);
});

Deno.test("the cluster-domain mismatch check compares the target's suffix with the domain in use", () => {
  assert.equal(clusterDomainMismatch("p.ns.svc.cluster.local.", "cluster.local"), false);
  assert.equal(clusterDomainMismatch("p.ns.svc.cluster.local.", "cozy.local"), true);
  assert.equal(clusterDomainMismatch("p.ns.svc.COZY.local.", "cozy.local."), false);
  assert.equal(clusterDomainMismatch("", "cozy.local"), false);
});

Deno.test("ouroboros controller: bad configuration exits 2 with every problem; env-only settings are read", async () => {
  const result = await runOuroboros(
    ["controller", "--mode=external-dns", "--resync=often", "--external-dns-record-ttl=0"],
    { env: { OUROBOROS_NODE_LOCAL_DNS_NAMESPACE: "Not_A_Namespace" } },
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--resync="often"/);
  assert.match(
    result.stderr,
    /--external-dns-record-ttl="0": 0 is out of range; expected a whole number from 1 to 86400/,
  );
  assert.match(result.stderr, /OUROBOROS_NODE_LOCAL_DNS_NAMESPACE="Not_A_Namespace"/);
});

Deno.test("leader election settings: the Lease, its defaults, and what cannot go with it", async (t) => {
  const base = ["--proxy-fqdn=ouroboros-proxy.ouroboros.svc.cluster.local.", "--leader-elect"];
  await t.step("defaults: the pod's namespace, <instance>-controller, client-go's durations", () => {
    const result = settings(settle(base, { OUROBOROS_INSTANCE: "edge" }, { podNamespace: "ouroboros" }));
    assert.deepEqual(result.election, {
      kind: "on",
      lease: {
        namespace: "ouroboros",
        name: "edge-controller",
        timing: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      },
    });
  });
  await t.step("without OUROBOROS_INSTANCE the Lease is ouroboros-controller; flags win", () => {
    const lease = (argv: readonly string[]) => {
      const election = settings(settle(argv, {}, { podNamespace: "x" })).election;
      return election.kind === "on" ? [election.lease.namespace, election.lease.name] : election.kind;
    };
    assert.deepEqual(lease(base), ["x", "ouroboros-controller"]);
    assert.deepEqual(
      lease([...base, "--leader-election-id=mine", "--leader-election-namespace=other"]),
      ["other", "mine"],
    );
  });
  await t.step("off by default; ignored in etc-hosts mode", () => {
    assert.deepEqual(settings(settle(base.slice(0, 1))).election, { kind: "off" });
    const etcHosts = settle(["--mode=etc-hosts", "--proxy-ip=10.96.0.20", "--leader-elect"]);
    assert.deepEqual(settings(etcHosts).election, { kind: "ignored" });
  });
  const cases: [string, string[], Record<string, string>, string | undefined, RegExp][] = [
    [
      "no namespace known",
      base,
      {},
      undefined,
      /needs the Lease's namespace: set --leader-election-namespace/,
    ],
    [
      "a Lease name that is no DNS subdomain",
      [...base, "--leader-election-id=Not_Valid"],
      {},
      "x",
      /must be a Lease name/,
    ],
    [
      "renew deadline not above 1.2 × retry period",
      [...base, "--leader-election-renew-deadline=2s", "--leader-election-retry-period=2s"],
      {},
      "x",
      /--leader-election-renew-deadline \(2s\) must be longer than 1.2 × --leader-election-retry-period \(2s\)/,
    ],
    [
      "--once",
      [...base, "--once"],
      {},
      "x",
      /--once runs a single pass and exits; it takes no part in leader election/,
    ],
    [
      "--dry-run",
      [...base, "--dry-run"],
      {},
      "x",
      /--dry-run writes nothing, and taking the leader-election Lease/,
    ],
  ];
  for (const [name, argv, env, podNamespace, expected] of cases) {
    await t.step(`refused: ${name}`, () => {
      const found = problems(settle(argv, env, podNamespace === undefined ? {} : { podNamespace }));
      assert.ok(found.some((problem) => expected.test(problem)), found.join("\n"));
    });
  }
});

Deno.test("--wildcards: rewrite by default, skip by flag or OUROBOROS_CONTROLLER_WILDCARDS, nothing else", () => {
  const base = ["--proxy-service-namespace=ouroboros"];
  assert.equal(settings(settle(base, {}, { resolv: COZY_RESOLV })).values.wildcards, "rewrite");
  assert.equal(
    settings(settle([...base, "--wildcards=skip"], {}, { resolv: COZY_RESOLV })).values.wildcards,
    "skip",
  );
  assert.equal(
    settings(settle(base, { OUROBOROS_CONTROLLER_WILDCARDS: "SKIP" }, { resolv: COZY_RESOLV })).values
      .wildcards,
    "skip",
  );
  assert.match(problems(settle([...base, "--wildcards=all"])).join("\n"), /wildcards.*rewrite, skip/);
});
