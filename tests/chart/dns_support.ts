/**
 * What the chart's `dns:` tests share: the value sets rendered (each once per test file), readers
 * for the objects of the `dns` component, and the Records CRD's validation with
 * `kubernetes-models`, which `validateObject` in support.ts does not cover.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  type Container,
  container,
  type K8sObject,
  ofKind,
  rbacMatrix,
  type RenderOptions,
  validateObject,
} from "./support.ts";

/** The DNS server alone: no controller, no proxy, so no hairpin answers (par Records only). */
export const DNS_ALONE: RenderOptions = {
  set: [
    "dns.enabled=true",
    "dns.hairpin=false",
    "controller.enabled=false",
    "proxy.enabled=false",
    "dns.replicaCount=1",
    "dns.installCRD=false",
    "dns.serviceAccount.create=false",
    "dns.serviceAccount.name=dns-reader",
  ],
};

/** Every opt-in and option of the dns section at once, with the controller's filters it shares. */
export const DNS_EVERYTHING: RenderOptions = {
  set: [
    "dns.enabled=true",
    "dns.replicaCount=3",
    "dns.manageWorkloads=true",
    "dns.manageProxyConfig=true",
    "dns.parNamespace=par",
    "dns.ttl=1m",
    "dns.maxUdpSize=4096",
    "dns.upstreamTimeout=1500ms",
    "dns.cacheSize=0",
    "dns.tcpIdleTimeout=30s",
    "dns.logLevel=warning",
    "dns.service.clusterIP=10.96.0.53",
    "dns.networkPolicy.enabled=true",
    "controller.gatewayApi.enabled=true",
    "controller.gatewayClass=eg",
    "controller.ingressClass=nginx",
    "controller.ingressHosts=all",
    "controller.wildcards=skip",
    "controller.clusterDomain=cozy.local",
    "controller.logFormat=text",
    "metrics.serviceMonitor.enabled=true",
    "imagePullSecrets[0].name=registry",
  ],
  values: {
    dns: {
      upstream: "10.96.0.10, [fd00::a]:5353",
      clientSelector: "app in (cert-manager,webhook),tier!=batch",
      networkPolicy: { from: [{ namespaceSelector: { matchLabels: { team: "edge" } } }] },
    },
    networkPolicy: { metrics: { from: [{ namespaceSelector: { matchLabels: { role: "monitoring" } } }] } },
  },
};

/** Caches an async computation: each value set is rendered once per test file. */
export function once<T>(compute: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= compute());
}

/** The "Kind namespace/name" ids of `objects` that `base` does not have: what a setting adds. */
export function added(objects: readonly K8sObject[], base: readonly K8sObject[]): string[] {
  const key = (o: K8sObject) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`;
  const before = new Set(base.map(key));
  return objects.map(key).filter((id) => !before.has(id)).sort();
}

/** The dns Deployment (the one Deployment of the `dns` component), whatever the release. */
export function dnsDeployment(objects: readonly K8sObject[]): K8sObject {
  const found = ofKind(objects, "Deployment").filter((o) =>
    o.metadata.labels?.["app.kubernetes.io/component"] === "dns"
  );
  assert.equal(found.length, 1, "one dns Deployment");
  return found[0]!;
}

/** The dns container. */
export function dnsContainer(objects: readonly K8sObject[]): Container {
  return container(dnsDeployment(objects), "dns");
}

/** The RBAC of the dns server and its hook (names `<fullname>-dns…`), as rbacMatrix gives it. */
export function dnsRbac(objects: readonly K8sObject[]): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(rbacMatrix(objects)).filter(([name]) => /ouroboros-dns(-|$)/.test(name)),
  );
}

type Validator = new (data: unknown) => { validate(): void };

/**
 * Validates every object, the CustomResourceDefinition with `kubernetes-models`' own class (the
 * others through support.ts).
 */
export async function validateAll(objects: readonly K8sObject[]): Promise<void> {
  for (const object of objects) {
    if (object.kind !== "CustomResourceDefinition") {
      await validateObject(object);
      continue;
    }
    assert.equal(object.apiVersion, "apiextensions.k8s.io/v1");
    const module: Record<string, unknown> = await import(
      "npm:kubernetes-models@5.1.0/apiextensions.k8s.io/v1/CustomResourceDefinition"
    );
    const model = module.CustomResourceDefinition as Validator;
    try {
      new model(structuredClone(object)).validate();
    } catch (error) {
      throw new Error(`CustomResourceDefinition ${object.metadata.name} is invalid: ${String(error)}`);
    }
  }
}
