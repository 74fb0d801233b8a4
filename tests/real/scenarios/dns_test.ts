/**
 * Scenario 4 of the real-component suite: `ouroboros dns` against a real kube-apiserver.
 *
 * - The chart's par `Records` CRD (chart/templates/dns-crd.yaml), applied as rendered, is
 *   Established and accepted as a structural schema (no NonStructuralSchema condition; its
 *   fields are published, so `kubectl explain` shows them).
 * - A good Records object is stored; bad ones (wrong types, missing required fields, a
 *   `forward-type` outside the enum, unknown fields) are refused by the real apiserver with a
 *   message naming the field, whichever way kubectl sends them; an unknown field sent with
 *   validation off is pruned, never stored. The messages asserted are the real apiserver's.
 * - `ouroboros dns` runs with the chart's flags as the chart's dns ServiceAccount (so the
 *   chart's RBAC judges it) and answers per client from the real Pod and Records watches: a pod
 *   the Records entry selects gets its addresses, over UDP and TCP; a pod of the same namespace
 *   without the labels, a pod with the labels in another namespace and an address that is no
 *   pod get the upstream's answer. A `proxy` entry sends the pods it selects to par's forward
 *   proxy Service (found by its label), but not par's proxy pod itself; an Ingress TLS host is
 *   answered with the proxy Service's ClusterIP for pods only. Changing the Records, a pod's labels
 *   or its address, and deleting the pod and the Records move the answers along; an entry the
 *   schema accepts but that cannot answer (no valid address) is logged by name and answers nobody.
 * - After a graceful stop, the audit log holds no 403 for the dns identity and every grant the
 *   chart gives it was used (this found `get` on Records and on the Services, which dns never
 *   sends: every read is a watch; the chart now grants list and watch only).
 *
 * Pods stay Pending (no kubelet): the scenario writes their `status.podIP` itself as the admin.
 * Client addresses are 127.0.60.x, so dig's `-b` makes each query come from its "pod".
 *
 * @module
 */

import assert from "node:assert/strict";
import { queryDns, startDnsmasq } from "../../support/dns_tools.ts";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { type DnsProcess, startDns } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { describeRequest, forbidden } from "../rbac_usage.ts";
import { type Stack, startStack } from "../stack.ts";

const CRD = "records.dns.par.dev";
const API_VERSION = "dns.par.dev/v1alpha1";

/** The client addresses: each a "pod" by its status.podIP, or no pod at all. */
const CHECKER_IP = "127.0.60.1";
const OTHER_IP = "127.0.60.2";
const ELSEWHERE_IP = "127.0.60.3";
const OTHER_MOVED_IP = "127.0.60.4";
const STRANGER_IP = "127.0.60.9";
/** par's forward proxy pod, and a pod of its namespace that a `proxy` entry sends to it. */
const PAR_PROXY_POD_IP = "127.0.61.1";
const CRAWLER_IP = "127.0.61.2";

/** What the upstream (dnsmasq) answers for the name; the Records answer differs. */
const UPSTREAM_ANSWER = "192.0.2.200";
const NAME = "api.example.com";

/** A well-formed `spec.a` entry selecting `app=checker` pods. */
const ENTRY = {
  labels: { app: "checker" },
  hostname: NAME,
  "ip-addresses": ["192.0.2.10", "2001:db8::10"],
  "forward-type": "manager",
};

function records(name: string, namespace: string, spec: unknown): Record<string, unknown> {
  return { apiVersion: API_VERSION, kind: "Records", metadata: { name, namespace }, spec };
}

/** An entry with fields replaced (`undefined` drops a field). */
function entryWith(changes: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify({ ...ENTRY, ...changes }));
}

/** One Records object the schema must refuse, how kubectl sends it, and what the apiserver says. */
interface BadRecords {
  readonly what: string;
  /** kubectl arguments before `-f -`. */
  readonly command: readonly string[];
  readonly spec: unknown;
  /** The real apiserver's message (kube-apiserver 1.35), which names the field. */
  readonly message: RegExp;
}

const SERVER_SIDE = ["apply", "--server-side", "--field-manager=real-suite"];
const CLIENT_SIDE = ["apply"];
const CREATE = ["create"];

/**
 * Server-side apply builds a typed patch first, so a wrong JSON type is refused there ("failed to
 * create typed patch object … expected string"), before the OpenAPI validation a create gets
 * ("Invalid value … must be of type string"); both name the field's path.
 */
const BAD: readonly BadRecords[] = [
  {
    what: "forward-type outside the enum (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [entryWith({ "forward-type": "Manager" })] },
    message: /spec\.a\[0\]\.forward-type: Unsupported value: "Manager": supported values: "manager", "proxy"/,
  },
  {
    what: "forward-type outside the enum (create)",
    command: CREATE,
    spec: { a: [entryWith({ "forward-type": "Proxy" })] },
    message: /spec\.a\[0\]\.forward-type: Unsupported value: "Proxy": supported values: "manager", "proxy"/,
  },
  {
    what: "forward-type a number (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [entryWith({ "forward-type": 7 })] },
    message: /\.spec\.a\[0\]\.forward-type: expected string, got/,
  },
  {
    what: "hostname a list (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [entryWith({ hostname: [NAME] })] },
    message: /\.spec\.a\[0\]\.hostname: expected string, got/,
  },
  {
    what: "ip-addresses a string (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [entryWith({ "ip-addresses": "192.0.2.10" })] },
    message: /\.spec\.a\[0\]\.ip-addresses: expected list, got/,
  },
  {
    what: "a label value a number (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [entryWith({ labels: { app: 1 } })] },
    message: /\.spec\.a\[0\]\.labels\.app: expected string, got/,
  },
  {
    what: "a label value a number (create)",
    command: CREATE,
    spec: { a: [entryWith({ labels: { app: 1 } })] },
    message:
      /spec\.a\[0\]\.labels\.app: Invalid value: "integer": spec\.a\[0\]\.labels\.app in body must be of type string/,
  },
  {
    what: "labels a string (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [entryWith({ labels: "app=checker" })] },
    message: /\.spec\.a\[0\]\.labels: expected map, got/,
  },
  {
    what: "spec.a an object, not a list (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: ENTRY },
    message: /\.spec\.a: expected list, got/,
  },
  {
    what: "hostname missing (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [entryWith({ hostname: undefined })] },
    message: /spec\.a\[0\]\.hostname: Required value/,
  },
  {
    what: "forward-type missing (create)",
    command: CREATE,
    spec: { a: [entryWith({ "forward-type": undefined })] },
    message: /spec\.a\[0\]\.forward-type: Required value/,
  },
  {
    what: "labels missing (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [entryWith({ labels: undefined })] },
    message: /spec\.a\[0\]\.labels: Required value/,
  },
  {
    what: "ip-addresses missing (create)",
    command: CREATE,
    spec: { a: [entryWith({ "ip-addresses": undefined })] },
    message: /spec\.a\[0\]\.ip-addresses: Required value/,
  },
  {
    what: "an unknown field in an entry (server-side apply: field validation Strict)",
    command: SERVER_SIDE,
    spec: { a: [{ ...ENTRY, ttl: 60 }] },
    message: /\.spec\.a\[0\]\.ttl: field not declared in schema/,
  },
  {
    what: "an unknown field in spec (server-side apply)",
    command: SERVER_SIDE,
    spec: { a: [ENTRY], aaaa: [] },
    message: /\.spec\.aaaa: field not declared in schema/,
  },
  {
    what: "an unknown field in an entry (client-side apply: strict decoding)",
    command: CLIENT_SIDE,
    spec: { a: [{ ...ENTRY, ttl: 60 }] },
    message: /strict decoding error: unknown field "spec\.a\[0\]\.ttl"/,
  },
];

/** The A (or AAAA) addresses `dns` answers `source` for `name`, sorted, or the status without any. */
async function answer(
  dns: DnsProcess,
  source: string,
  options: { type?: string; tcp?: boolean; name?: string } = {},
): Promise<string> {
  const type = options.type ?? "A";
  const [reply] = await queryDns(
    { host: dns.dns.hostname, port: dns.dns.port },
    [{ name: options.name ?? NAME, type }],
    {
      source,
      timeoutSeconds: 2,
      ...(options.tcp ? { tcp: true, client: "kdig" as const } : {}),
    },
  );
  const addresses = (reply?.answers ?? []).filter((record) => record.type === type).map((record) =>
    record.data
  );
  return addresses.length > 0 ? addresses.sort().join(",") : reply?.status ?? "no reply";
}

/** Runs `wait`; on failure adds the dns process's last log lines. */
async function explain<T>(dns: DnsProcess, wait: () => Promise<T>): Promise<T> {
  try {
    return await wait();
  } catch (error) {
    const tail = dns.logs.slice(-25).map((line) => JSON.stringify(line)).join("\n");
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\ndns's last log lines:\n${tail}`,
      { cause: error },
    );
  }
}

/** Waits until `source` is answered `expected` for the name. */
function until(dns: DnsProcess, what: string, source: string, expected: string): Promise<string> {
  return explain(dns, () =>
    waitFor(`${what}: ${source} to be answered ${expected}`, async () => {
      const now = await answer(dns, source);
      return now === expected ? now : undefined;
    }, { timeoutMs: 45_000, intervalMs: 250 }));
}

function pod(namespace: string, name: string, labels: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] },
  };
}

/** What a kubelet would write: the pod running at `ip`. */
async function setPodIp(stack: Stack, namespace: string, name: string, ip: string): Promise<void> {
  await stack.kubectlOk([
    "patch",
    "pod",
    "-n",
    namespace,
    name,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ status: { phase: "Running", podIP: ip, podIPs: [{ ip }] } }),
  ]);
}

Deno.test("real: dns — the chart's Records CRD on a real apiserver, its schema's refusals, per-client answers from real watches, least RBAC", async (t) => {
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      set: ["dns.enabled=true", "dns.replicaCount=1"],
    }],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    // A failed step resolves false instead of throwing: stop there, and keep the stack's files.
    const step = async (name: string, run: () => Promise<void>) => {
      if (!await t.step(name, run)) throw new Error(`step failed: ${name}`);
    };

    await step("the chart's Records CRD is Established with a structural schema", async () => {
      assert.equal(renderedOfKind(release, "CustomResourceDefinition").length, 1, "the render has the CRD");
      const crd = JSON.parse(await stack.kubectlOk(["get", "crd", CRD, "-o", "json"])) as {
        status?: {
          conditions?: { type: string; status: string; message?: string }[];
          acceptedNames?: { kind?: string; plural?: string };
        };
      };
      const conditions = crd.status?.conditions ?? [];
      const condition = (type: string) => conditions.find((found) => found.type === type);
      assert.equal(condition("Established")?.status, "True");
      assert.equal(condition("NamesAccepted")?.status, "True");
      assert.equal(
        condition("NonStructuralSchema"),
        undefined,
        `the apiserver found the schema non-structural: ${condition("NonStructuralSchema")?.message}`,
      );
      assert.deepEqual(
        conditions.filter((found) => found.status !== "True").map((found) =>
          `${found.type}: ${found.message}`
        ),
        [],
      );
      assert.equal(crd.status?.acceptedNames?.kind, "Records");
      // Only a structural schema is published as OpenAPI; kubectl explain reads that.
      const explained = await stack.kubectlOk(["explain", "records.spec.a", `--api-version=${API_VERSION}`]);
      for (const field of ["forward-type", "hostname", "ip-addresses", "labels"]) {
        assert.match(explained, new RegExp(`^\\s+${field}\\s+<[^>]+> -required-$`, "m"), field);
      }
      assert.match(explained, /^\s+enum: manager, proxy$/m);
    });

    await step("a good Records is stored; bad ones are refused naming the field", async () => {
      await stack.apply([records("checks", "shop", { a: [ENTRY] })]);
      const stored = JSON.parse(
        await stack.kubectlOk(["get", "records", "-n", "shop", "checks", "-o", "json"]),
      ) as { spec: unknown };
      assert.deepEqual(stored.spec, { a: [ENTRY] });

      const refused: string[] = [];
      for (const bad of BAD) {
        const run = await stack.kubectl([...bad.command, "-f", "-"], {
          stdin: JSON.stringify(records("bad", "shop", bad.spec)),
        });
        assert.notEqual(run.code, 0, `${bad.what}: accepted (${run.stdout.trim()})`);
        assert.match(run.stderr, bad.message, `${bad.what}: ${run.stderr}`);
        refused.push(`${bad.what}: ${run.stderr.trim()}`);
        const left = await stack.kubectl(["get", "records", "-n", "shop", "bad", "-o", "name"]);
        assert.match(left.stderr, /NotFound/, `${bad.what}: something was stored`);
      }
      assert.equal(refused.length, BAD.length);

      // Validation off (kubectl's --validate=ignore): the unknown field is pruned, never stored.
      await stack.kubectlOk(["create", "--validate=ignore", "-f", "-"], {
        stdin: JSON.stringify(records("pruned", "shop", { a: [{ ...ENTRY, ttl: 60 }] })),
      });
      const pruned = JSON.parse(
        await stack.kubectlOk(["get", "records", "-n", "shop", "pruned", "-o", "json"]),
      ) as { spec: unknown };
      assert.deepEqual(pruned.spec, { a: [ENTRY] }, "the unknown field was stored");
      await stack.kubectlOk(["delete", "records", "-n", "shop", "pruned"]);
    });

    await step(
      "ouroboros dns, as the chart runs it, answers per client from the Pod and Records watches",
      async () => {
        await using upstream = await startDnsmasq({ hosts: [{ name: NAME, addresses: [UPSTREAM_ANSWER] }] });
        await stack.apply(renderedOfKind(release, "Service"));
        const proxyIp = await stack.clusterIp("ouroboros", "ouroboros-proxy");
        assert.match(proxyIp, /^127\.96\./);

        await stack.apply([
          pod("shop", "checker", { app: "checker" }),
          pod("shop", "other", { app: "other" }),
          pod("elsewhere", "checker", { app: "checker" }),
        ]);
        await setPodIp(stack, "shop", "checker", CHECKER_IP);
        await setPodIp(stack, "shop", "other", OTHER_IP);
        await setPodIp(stack, "elsewhere", "checker", ELSEWHERE_IP);

        const launch = await chartLaunch(stack, release, {
          workload: "ouroboros-dns",
          container: "dns",
          // The chart's upstream is the pod's resolv.conf (the cluster DNS); here, dnsmasq.
          overrides: [`--upstream=${upstream.endpoint.host}:${upstream.endpoint.port}`],
        });
        const dns = await startDns(launch.args, { env: launch.env });
        try {
          await explain(
            dns,
            () =>
              waitFor("/readyz to answer 200", async () => (await dns.get("/readyz")).status === 200, {
                timeoutMs: 60_000,
                intervalMs: 250,
              }),
          );

          await until(dns, "the selected pod", CHECKER_IP, "192.0.2.10");
          assert.equal(await answer(dns, CHECKER_IP, { type: "AAAA" }), "2001:db8::10");
          assert.equal(await answer(dns, CHECKER_IP, { tcp: true }), "192.0.2.10", "over TCP (kdig)");
          assert.equal(
            await answer(dns, OTHER_IP),
            UPSTREAM_ANSWER,
            "a pod of the namespace without the labels",
          );
          assert.equal(
            await answer(dns, ELSEWHERE_IP),
            UPSTREAM_ANSWER,
            "a pod with the labels in another namespace",
          );
          assert.equal(await answer(dns, STRANGER_IP), UPSTREAM_ANSWER, "an address that is no pod");

          // The hairpin answers come from the same watches: an Ingress TLS host for any pod in scope.
          await stack.apply([ingressManifest({
            namespace: "shop",
            name: "shop",
            tls: { hosts: ["shop.example.com"], secretName: "shop-tls" },
            ruleHosts: ["shop.example.com"],
            service: { name: "shop", port: 80 },
          })]);
          await explain(
            dns,
            () =>
              waitFor(
                "the hairpinned host for a pod",
                async () => (await answer(dns, OTHER_IP, { name: "shop.example.com" })) === proxyIp,
                {
                  timeoutMs: 45_000,
                  intervalMs: 250,
                },
              ),
          );
          assert.notEqual(await answer(dns, STRANGER_IP, { name: "shop.example.com" }), proxyIp);

          // A `proxy` entry: every A of the pods it selects is par's forward proxy Service (found by
          // its label in the par namespace, the release's), except for the proxy's own pods.
          await stack.apply([
            {
              apiVersion: "v1",
              kind: "Service",
              metadata: { name: "par-proxy", namespace: "ouroboros", labels: { "par.dev/proxy": "true" } },
              spec: { ports: [{ name: "http", port: 8080 }] },
            },
            pod("ouroboros", "par-proxy", { app: "par-proxy", "par.dev/proxy": "true" }),
            pod("ouroboros", "crawler", { app: "crawler" }),
            records("egress", "ouroboros", {
              a: [{ labels: {}, hostname: "", "ip-addresses": [], "forward-type": "proxy" }],
            }),
          ]);
          await setPodIp(stack, "ouroboros", "par-proxy", PAR_PROXY_POD_IP);
          await setPodIp(stack, "ouroboros", "crawler", CRAWLER_IP);
          const parProxyIp = (await stack.kubectlOk([
            "get",
            "service",
            "-n",
            "ouroboros",
            "par-proxy",
            "-o",
            "jsonpath={.spec.clusterIP}",
          ])).trim();
          await until(dns, "a pod a proxy entry selects", CRAWLER_IP, parProxyIp);
          assert.equal(await answer(dns, CRAWLER_IP, { name: "shop.example.com" }), parProxyIp);
          assert.equal(
            await answer(dns, PAR_PROXY_POD_IP),
            UPSTREAM_ANSWER,
            "par's proxy pod resolves normally",
          );
          assert.equal(await answer(dns, CHECKER_IP), "192.0.2.10", "another namespace's entry is untouched");
          await stack.kubectlOk(["delete", "records", "-n", "ouroboros", "egress"]);
          await until(dns, "the proxy entry deleted", CRAWLER_IP, UPSTREAM_ANSWER);

          // The Records changes: the new address is answered.
          await stack.apply([
            records("checks", "shop", { a: [entryWith({ "ip-addresses": ["192.0.2.11"] })] }),
          ]);
          await until(dns, "the changed Records", CHECKER_IP, "192.0.2.11");
          assert.equal(await answer(dns, OTHER_IP), UPSTREAM_ANSWER);

          // A pod gains the labels: it is selected.
          await stack.kubectlOk(["label", "pod", "-n", "shop", "other", "app=checker", "--overwrite"]);
          await until(dns, "a pod relabelled into the entry", OTHER_IP, "192.0.2.11");

          // The pod's address changes: the new one is the pod, the old one nobody.
          await setPodIp(stack, "shop", "other", OTHER_MOVED_IP);
          await until(dns, "the pod's new address", OTHER_MOVED_IP, "192.0.2.11");
          await until(dns, "the pod's old address", OTHER_IP, UPSTREAM_ANSWER);

          // The pod goes (unscheduled, so it is gone at once): its address is nobody's.
          await stack.kubectlOk(["delete", "pod", "-n", "shop", "checker"]);
          await until(dns, "a deleted pod's address", CHECKER_IP, UPSTREAM_ANSWER);
          assert.equal(await answer(dns, OTHER_MOVED_IP), "192.0.2.11");

          // An entry the schema accepts but that cannot answer (no valid address) is reported by
          // name and answers nobody.
          await stack.apply([
            records("checks", "shop", { a: [entryWith({ "ip-addresses": ["192.0.2.300"] })] }),
          ]);
          await until(dns, "a Records entry without a valid address", OTHER_MOVED_IP, UPSTREAM_ANSWER);
          await dns.waitForLog(
            "the problem named",
            (line) =>
              line.level === "WARN" && line.msg.includes("Records shop/checks spec.a[0]") &&
              line.msg.includes('"192.0.2.300" is not an IP address'),
            30_000,
          );

          // The Records goes back, then is deleted: answers follow.
          await stack.apply([records("checks", "shop", { a: [ENTRY] })]);
          await until(dns, "the Records restored", OTHER_MOVED_IP, "192.0.2.10");
          await stack.kubectlOk(["delete", "records", "-n", "shop", "checks"]);
          await until(dns, "the Records deleted", OTHER_MOVED_IP, UPSTREAM_ANSWER);
          assert.equal(await answer(dns, OTHER_MOVED_IP, { name: "shop.example.com" }), proxyIp);

          const unexpected = dns.logs.filter((line) =>
            line.level === "ERROR" || line.level === "RAW" ||
            (line.level === "WARN" && !line.msg.startsWith("Records shop/checks spec.a[0]: "))
          );
          assert.deepEqual(unexpected, [], "dns logged errors or warnings the scenario did not cause");
        } finally {
          dns.kill("SIGTERM");
          const status = await dns.status;
          assert.equal(status.code, 0, "dns stopped gracefully");
        }
      },
    );

    await step("the chart's dns RBAC: no 403, no unused grant", async () => {
      const identity = stack.identity("ouroboros", "ouroboros-dns");
      const requests = await stack.audited();
      assert.deepEqual(
        forbidden(requests, identity.user).map(describeRequest),
        [],
        "requests the chart's RBAC refused",
      );
      assert.ok(
        requests.some((request) => request.user === identity.user),
        "the audit log has dns's requests",
      );

      assert.deepEqual(
        await stack.unusedGrants(identity, ["ouroboros", "shop", "elsewhere"]),
        [],
        "grants dns never used",
      );
    });
  } catch (error) {
    stack.keep();
    throw error;
  }
});
