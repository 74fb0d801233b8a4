/**
 * Scenario 3 of the real-component suite: the records ouroboros hands external-dns, published by a
 * real external-dns (built from its pinned module) into a real BIND 9 through the rfc2136 provider,
 * and read back from BIND with dig.
 *
 * - external-dns mode: the controller, with the chart's flags as the chart's ServiceAccount, writes
 *   DNSEndpoints (the CRD as external-dns's module ships it); external-dns `--source=crd` publishes
 *   each Ingress hostname as an A record of the proxy Service's ClusterIP with the chart's
 *   `externalDns.recordTTL`, marks it with its TXT owner records, follows a wildcard, and removes
 *   the record of a deleted Ingress; the controller was never refused a request (audit log).
 * - kuberture: the cozystack package's two-output example (two annotation prefixes) as chart
 *   values; kuberture runs as the chart runs it, its config file the rendered ConfigMap's, copied
 *   as the kubelet copies a mount; two external-dns instances `--source=service`, each with its own
 *   `--annotation-prefix` and owner id, each publish their own output only, with the TTL, and
 *   follow an address that leaves the EndpointSlice and an output removed from the config.
 *   kuberture owns its Services by its Deployment (found from HOSTNAME through a ReplicaSet),
 *   deletes a DNSEndpoint an earlier `output: crd` left, leaves a foreign Service of an output's
 *   name alone with a Warning Event, is never refused, and uses every grant the chart gives it
 *   but one (Event patches: only after the recorder's 10-minute window).
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { freePort } from "../../support/daemons.ts";
import { SEED_MULTIPLE, valuesOf } from "../../chart/kuberture_support.ts";
import { queryDns } from "../../support/dns_tools.ts";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController, startKuberture } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { type Bind, startBind, type ZoneRecord } from "../bind.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { deploymentChain } from "../running_pod.ts";
import { apiServerSlice, SECOND_SLICE } from "../../support/api_server_slice.ts";
import { mirrorConfigMap } from "../configmap_volume.ts";
import { dnsEndpointCrd, externalDnsAccount, startExternalDns } from "../external_dns.ts";
import { type AuditedRequest, CONTROLLER_EVENT_GRANTS, describeRequest, forbidden } from "../rbac_usage.ts";
import { startStack } from "../stack.ts";

/** Generous: other scenarios share the machine's two cores. */
const DEADLINE = { timeoutMs: 60_000, intervalMs: 250 };

/** The A records BIND answers for `name` (`"<ttl> <address>"`, sorted), or the status when none. */
async function answer(bind: Bind, name: string): Promise<string> {
  const [reply] = await queryDns({ host: bind.host, port: bind.port }, [{ name }], { timeoutSeconds: 2 });
  const found = (reply?.answers ?? []).filter((record) => record.type === "A").map((record) =>
    `${record.ttl} ${record.data}`
  );
  return found.length > 0 ? found.sort().join(",") : reply?.status ?? "no reply";
}

/** The TXT records of a zone transfer that external-dns's registry wrote for `owner`. */
function ownerRecords(records: readonly ZoneRecord[], owner: string): ZoneRecord[] {
  return records.filter((record) =>
    record.type === "TXT" && record.data.includes("heritage=external-dns") &&
    record.data.includes(`external-dns/owner=${owner}`)
  );
}

/** `name`s of the A records of a zone transfer. */
function addressNames(records: readonly ZoneRecord[]): string[] {
  return [...new Set(records.filter((record) => record.type === "A").map((record) => record.name))].sort();
}

Deno.test("real: external-dns mode — the controller's DNSEndpoints are published by a real external-dns into BIND", async () => {
  const ownerId = "ouroboros-real";
  const edAccount = externalDnsAccount("external-dns", "external-dns");
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      set: ["controller.mode=external-dns", "externalDns.recordTTL=120", "controller.ingressClass=nginx"],
    }],
    peers: [edAccount],
    objects: [await dnsEndpointCrd()],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply(renderedOfKind(release, "Service"));
    const proxyIp = await stack.clusterIp("ouroboros", "ouroboros-proxy");
    assert.match(proxyIp, /^127\.96\./);

    await using bind = await startBind({ dir: stack.dir, zones: ["example.org"] });
    await using externalDns = await startExternalDns(stack, bind, {
      account: edAccount,
      sources: ["crd"],
      ownerId,
    });
    const launch = await chartLaunch(stack, release, { workload: "ouroboros", container: "controller" });
    assert.ok(launch.args.includes("--mode=external-dns"), `the chart's flags: ${launch.args.join(" ")}`);
    assert.ok(
      launch.args.includes("--external-dns-record-ttl=120"),
      `the chart's flags: ${launch.args.join(" ")}`,
    );
    await using controller = await startController(launch.args, { env: launch.env });

    await stack.apply([
      ingressManifest({
        namespace: "shop",
        name: "shop",
        tls: { hosts: ["shop.example.org", "*.apps.example.org"], secretName: "shop-tls" },
        ruleHosts: ["shop.example.org"],
        service: { name: "shop", port: 80 },
      }),
      ingressManifest({
        namespace: "blog",
        name: "blog",
        tls: { hosts: ["blog.example.org"], secretName: "blog-tls" },
        ruleHosts: ["blog.example.org"],
        service: { name: "blog", port: 80 },
      }),
    ]);

    const published = `120 ${proxyIp}`;
    const until = (what: string, check: () => Promise<boolean>) =>
      controller.explain(() => externalDns.explain(() => waitFor(what, check, DEADLINE)));
    for (const name of ["shop.example.org", "blog.example.org", "x.apps.example.org"]) {
      await until(
        `BIND to answer ${name} with the proxy's ClusterIP and the chart's TTL (${published})`,
        async () => (await answer(bind, name)) === published,
      );
    }
    // A DNS wildcard record (RFC 4592) answers any depth under its domain, unlike coredns mode's
    // one-label rewrite: docs/controller.md says so for external-dns mode.
    assert.equal(await answer(bind, "a.b.apps.example.org"), published, "two labels under a DNS wildcard");
    assert.equal(
      await answer(bind, "apps.example.org"),
      "NOERROR",
      "the wildcard's own domain has no address",
    );

    // external-dns's registry marks every record it owns; nothing else in the zone is its own.
    const zone = await bind.records();
    const endpoints = (await stack.kubectlOk([
      "get",
      "dnsendpoints.externaldns.k8s.io",
      "-n",
      "ouroboros",
      "-o",
      "jsonpath={.items[*].metadata.name}",
    ])).trim().split(/\s+/).sort();
    assert.equal(endpoints.length, 3, `one DNSEndpoint per hostname: ${endpoints.join(" ")}`);
    assert.deepEqual(
      addressNames(zone),
      ["*.apps.example.org", "blog.example.org", "ns.example.org", "shop.example.org"],
      "the A records of the zone",
    );
    // external-dns 0.21's TXT registry: `a-<name>` (the record type first) naming the DNSEndpoint.
    const owned = ownerRecords(zone, ownerId);
    assert.deepEqual(
      owned.map((record) => record.name).sort(),
      ["a-*.apps.example.org", "a-blog.example.org", "a-shop.example.org"],
      `the owner TXT records of ${ownerId}; the zone:\n${JSON.stringify(zone, null, 1)}`,
    );
    assert.deepEqual(
      owned.map((record) => /external-dns\/resource=crd\/ouroboros\/([^",]+)/.exec(record.data)?.[1]).sort(),
      endpoints,
      "each owner record names its DNSEndpoint",
    );

    // A deleted Ingress: its DNSEndpoint goes, and external-dns removes its record and owner records.
    await stack.kubectlOk(["delete", "ingress", "-n", "blog", "blog"]);
    await until(
      "BIND to stop answering blog.example.org",
      async () => (await answer(bind, "blog.example.org")) === "NXDOMAIN",
    );
    await until(
      "blog.example.org's owner records to go",
      async () =>
        !ownerRecords(await bind.records(), ownerId).some((record) =>
          record.name.endsWith("blog.example.org")
        ),
    );
    assert.equal(await answer(bind, "shop.example.org"), published, "the other Ingress's record stays");

    // The proxy Service is deleted and created again (a new ClusterIP): the controller's watch of it
    // by name sees the new address, and it merge-patches every record to point there.
    const proxyService = renderedOfKind(release, "Service").filter((object) =>
      (object.metadata as { name: string }).name === "ouroboros-proxy"
    );
    let movedIp = proxyIp;
    for (let attempt = 0; attempt < 3 && movedIp === proxyIp; attempt++) {
      await stack.kubectlOk(["delete", "service", "-n", "ouroboros", "ouroboros-proxy"]);
      await stack.apply(proxyService);
      movedIp = await stack.clusterIp("ouroboros", "ouroboros-proxy");
    }
    assert.notEqual(movedIp, proxyIp, "the re-created Service has a new ClusterIP");
    for (const name of ["shop.example.org", "x.apps.example.org"]) {
      await until(
        `BIND to answer ${name} with the re-created Service's ClusterIP`,
        async () => (await answer(bind, name)) === `120 ${movedIp}`,
      );
    }

    // Stop the controller first: a watch is audited when it ends.
    controller.kill();
    await controller.status;
    const user = stack.identity("ouroboros", "ouroboros").user;
    // No refusal at all: the start-up probe for records of the inactive output (Services here) is
    // granted its list (chart/templates/role-externaldns.yaml), like every other request.
    assert.deepEqual(forbidden(await stack.audited(), user).map(describeRequest), [], "refused requests");
    assert.deepEqual(
      await stack.unusedGrants(stack.identity("ouroboros", "ouroboros"), ["ouroboros", "default"]),
      CONTROLLER_EVENT_GRANTS,
      "grants the controller never used (Events waived: see CONTROLLER_EVENT_GRANTS)",
    );
    // The probe ran once, at start-up, and was answered: one list of at most one owned Service.
    const probe = (request: AuditedRequest) =>
      request.user === user && request.verb === "list" && request.resource === "services" &&
      request.namespace === "ouroboros" && request.requestURI.includes("limit=1") &&
      request.requestURI.includes("managed-by%3Douroboros");
    assert.deepEqual(
      (await stack.audited()).filter(probe).map((request) => request.code),
      [200],
      "the orphan probe's list of the inactive kind",
    );
    assert.deepEqual(
      forbidden(await stack.audited(), stack.identity("external-dns", "external-dns").user).map(
        describeRequest,
      ),
      [],
      "external-dns's own chart rules (externalDnsAccount) were short of what it asked",
    );
  } catch (error) {
    stack.keep();
    throw error;
  }
});

/** The kuberture ServiceAccount and Deployment of a render (`<release>-ouroboros-kuberture`). */
const KUBERTURE = "kuberture-ouroboros-kuberture";

Deno.test("real: kuberture — the seed's two outputs, two annotation prefixes, two real external-dns instances", async () => {
  // The cozystack package's second example as it is, in the package's namespace.
  const seed = valuesOf(SEED_MULTIPLE);
  const publicAccount = externalDnsAccount("external-dns", "external-dns-public");
  const internalAccount = externalDnsAccount("external-dns", "external-dns-internal");
  await using stack = await startStack({
    releases: [{
      release: "kuberture",
      namespace: "cozy-kuberture",
      set: ["controller.enabled=false", "proxy.enabled=false"],
      values: seed,
    }],
    peers: [publicAccount, internalAccount],
    // Installed, so a DNSEndpoint an earlier `output: crd` left can be there to prune.
    objects: [await dnsEndpointCrd()],
  });
  try {
    const release = releaseNamed(stack, "kuberture");
    // The API server's addresses, as kuberture reads them (see apiServerSlice).
    await stack.apply([apiServerSlice(["192.0.2.10", "192.0.2.11"], { name: SECOND_SLICE })]);

    // The rendered config file, its listeners moved to free loopback ports (the one change), in the
    // ConfigMap the chart renders; the kubelet-style copy is the pod's /etc/kuberture.
    const [configMap] = renderedOfKind(release, "ConfigMap").filter((object) =>
      (object.metadata as { name: string }).name === KUBERTURE
    );
    assert.ok(configMap !== undefined, "the render has kuberture's ConfigMap");
    const rendered = parse((configMap.data as Record<string, string>)["config.yaml"]!) as Record<
      string,
      unknown
    >;
    const outputs = rendered.outputs as Record<string, unknown>[];
    assert.deepEqual(outputs.map((output) => output.annotationPrefix), [
      undefined,
      "internal-dns.example.com/",
    ]);
    const config = {
      ...rendered,
      metricsBindAddress: `127.0.0.1:${freePort()}`,
      healthProbeBindAddress: `127.0.0.1:${freePort()}`,
    };
    const writeConfig = (file: Record<string, unknown>) =>
      stack.apply([{ ...configMap, data: { "config.yaml": stringify(file) } }]);
    await writeConfig(config);
    await using volume = await mirrorConfigMap(`${stack.dir}/kuberture-volume`, async () => {
      const response = await stack.plane.request(`/api/v1/namespaces/cozy-kuberture/configmaps/${KUBERTURE}`);
      if (!response.ok) {
        await response.body?.cancel();
        return undefined;
      }
      const object = await response.json() as {
        data?: Record<string, string>;
        metadata: { resourceVersion: string };
      };
      return { data: object.data ?? {}, resourceVersion: object.metadata.resourceVersion };
    });

    await using bind = await startBind({
      dir: stack.dir,
      zones: ["k8s.example.com", "k8s.example.internal"],
    });
    // Both instances manage both zones, so an instance reading the other's Service would show.
    await using publicDns = await startExternalDns(stack, bind, {
      name: "external-dns-public",
      account: publicAccount,
      sources: ["service"],
      ownerId: "public",
    });
    await using internalDns = await startExternalDns(stack, bind, {
      name: "external-dns-internal",
      account: internalAccount,
      sources: ["service"],
      ownerId: "internal",
      annotationPrefix: "internal-dns.example.com/",
    });

    const launch = await chartLaunch(stack, release, {
      workload: KUBERTURE,
      container: "kuberture",
      overrides: [`--config=${volume.dir}/config.yaml`],
    });
    // Its pod, as a Deployment's pod is named and owned, so kuberture finds its Deployment and
    // owns what it writes by it (the garbage collector would remove them with it).
    const podName = `${KUBERTURE}-5d8f9c7b4-x7k2q`;
    const deploymentUid = await deploymentChain(stack, release, KUBERTURE, podName);
    // A DNSEndpoint of this instance that an earlier run's `output: crd` left (no output names it
    // now), there before kuberture starts: its first pass lists DNSEndpoints (later passes only
    // while a crd output has been configured since start), and the chart lets it list and delete
    // them without a crd output, so it deletes it.
    const instance = launch.args.find((arg) => arg.startsWith("--instance="))?.slice("--instance=".length) ??
      launch.env.KUBERTURE_INSTANCE ?? "kuberture";
    await stack.apply([{
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata: {
        name: "kuberture-retired",
        namespace: "cozy-kuberture",
        labels: { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": instance },
      },
      spec: { endpoints: [{ dnsName: "retired.k8s.example.com", recordType: "A", targets: ["192.0.2.99"] }] },
    }]);
    await using kuberture = await startKuberture(launch.args, { env: { ...launch.env, HOSTNAME: podName } });

    const explain = <T>(wait: () => Promise<T>) =>
      publicDns.explain(() =>
        internalDns.explain(async () => {
          try {
            return await wait();
          } catch (error) {
            const tail = kuberture.logs.slice(-15).map((line) => JSON.stringify(line)).join("\n");
            throw new Error(
              `${error instanceof Error ? error.message : String(error)}\nkuberture's last lines:\n${tail}`,
            );
          }
        })
      );
    const until = (what: string, name: string, expected: string) =>
      explain(() =>
        waitFor(
          `${what}: BIND to answer ${name} with ${expected}`,
          async () => (await answer(bind, name)) === expected,
          DEADLINE,
        )
      );

    await until("the public output", "api.k8s.example.com", "60 192.0.2.10,60 192.0.2.11");
    await until("the internal output", "api-internal.k8s.example.internal", "60 192.0.2.10,60 192.0.2.11");

    const owners = JSON.parse(
      await stack.kubectlOk([
        "get",
        "service",
        "kuberture-public",
        "-n",
        "cozy-kuberture",
        "-o",
        "jsonpath={.metadata.ownerReferences}",
      ]),
    ) as { kind: string; name: string; uid: string }[];
    assert.deepEqual(owners.map((owner) => [owner.kind, owner.name, owner.uid]), [[
      "Deployment",
      KUBERTURE,
      deploymentUid,
    ]]);
    // Written by server-side apply under kuberture's field manager, as kuberture does (so a switch
    // takes kuberture's Services over as they are).
    const managers = JSON.parse(
      await stack.kubectlOk([
        "get",
        "service",
        "kuberture-public",
        "-n",
        "cozy-kuberture",
        "--show-managed-fields",
        "-o",
        "jsonpath={.metadata.managedFields}",
      ]),
    ) as { manager: string; operation: string }[];
    assert.deepEqual(managers.map((entry) => `${entry.manager} ${entry.operation}`), ["kuberture Apply"]);

    // Each instance owns its own output's records and nothing else.
    const publicZone = await bind.records("k8s.example.com");
    const internalZone = await bind.records("k8s.example.internal");
    const all = [...publicZone, ...internalZone];
    assert.deepEqual(addressNames(publicZone), ["api.k8s.example.com", "ns.k8s.example.com"]);
    assert.deepEqual(addressNames(internalZone), [
      "api-internal.k8s.example.internal",
      "ns.k8s.example.internal",
    ]);
    const summary = (owner: string) =>
      ownerRecords(all, owner).map((record) =>
        `${record.name} ${/external-dns\/resource=([^",]+)/.exec(record.data)?.[1]}`
      ).sort();
    assert.deepEqual(summary("public"), ["a-api.k8s.example.com service/cozy-kuberture/kuberture-public"]);
    assert.deepEqual(summary("internal"), [
      "a-api-internal.k8s.example.internal service/cozy-kuberture/kuberture-internal",
    ]);

    // An address leaves the EndpointSlice: both records follow.
    await stack.apply([apiServerSlice(["192.0.2.10"], { name: SECOND_SLICE })]);
    await until("an address gone from the slice", "api.k8s.example.com", "60 192.0.2.10");
    await until("an address gone from the slice", "api-internal.k8s.example.internal", "60 192.0.2.10");
    await explain(() =>
      waitFor("the leftover DNSEndpoint to be deleted", async () => {
        const response = await stack.plane.request(
          "/apis/externaldns.k8s.io/v1alpha1/namespaces/cozy-kuberture/dnsendpoints/kuberture-retired",
        );
        await response.body?.cancel();
        return response.status === 404;
      }, DEADLINE)
    );

    // The internal output is removed from the config (a chart upgrade's new ConfigMap): kuberture
    // deletes its Service, and the internal instance removes the record and its owner record. The
    // same upgrade adds an output whose Service name a foreign Service holds: left alone, with a
    // Warning Event on it.
    await stack.apply([{
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "taken", namespace: "cozy-kuberture" },
      spec: { clusterIP: "None", ports: [{ port: 443 }] },
    }]);
    await writeConfig({
      ...config,
      outputs: [
        ...outputs.filter((output) => output.name !== "internal"),
        { name: "clash", hostname: ["clash.k8s.example.com"], serviceName: "taken" },
      ],
    });
    await explain(() =>
      waitFor("a Warning Event on the foreign Service", async () =>
        (await stack.kubectlOk([
          "get",
          "events",
          "-n",
          "cozy-kuberture",
          "--field-selector=involvedObject.name=taken,type=Warning",
          "-o",
          "name",
        ])).trim() !== "", DEADLINE)
    );
    await until("a removed output", "api-internal.k8s.example.internal", "NXDOMAIN");
    await explain(() =>
      waitFor(
        "the internal owner record to go",
        async () => ownerRecords(await bind.records("k8s.example.internal"), "internal").length === 0,
        DEADLINE,
      )
    );
    assert.equal(await answer(bind, "api.k8s.example.com"), "60 192.0.2.10", "the public output stays");

    kuberture.kill();
    await kuberture.status;
    // No refusal at all (the chart grants DNSEndpoints list and delete without a crd output), and
    // no grant kuberture never used.
    const identity = stack.identity("cozy-kuberture", KUBERTURE);
    const requests = await stack.audited();
    assert.deepEqual(forbidden(requests, identity.user).map(describeRequest), [], "refused");
    assert.deepEqual(
      await stack.unusedGrants(identity, ["cozy-kuberture", "default"]),
      // A repeated Warning is sent again (a merge patch of its count) only after the recorder's
      // 10-minute de-duplication window.
      ["patch core/events in cozy-kuberture"],
      "grants kuberture never used",
    );
    for (const account of [publicAccount, internalAccount]) {
      assert.deepEqual(
        forbidden(await stack.audited(), stack.identity(account.namespace, account.name).user).map(
          describeRequest,
        ),
        [],
        `${account.name}'s own chart rules (externalDnsAccount) were short of what it asked`,
      );
    }
  } catch (error) {
    stack.keep();
    throw error;
  }
});
