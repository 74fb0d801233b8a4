/**
 * What the kuberture chart tests share: the two `values:` blocks of the cozystack kuberture
 * package's README (the seed, `../shared/spec/kuberture-readme.txt`), copied as they are printed
 * there, and small readers for the objects of the `kuberture` component.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { container, type K8sObject, ofKind } from "./support.ts";

/** The cozystack package README's "Example: single external-dns instance" `values:` block (not ours). */
export const SEED_SINGLE = `
kuberture:
  config:
    outputs:
      - name: api
        hostname:
          - api.k8s.example.com
        serviceName: kuberture-api
        addressSource: endpointslice
        recordTTL: 60
`;

/** The cozystack package README's "Example: routing to multiple external-dns instances" `values:` block. */
export const SEED_MULTIPLE = `
kuberture:
  config:
    outputs:
      - name: public
        hostname:
          - api.k8s.example.com
        serviceName: kuberture-public
        addressSource: endpointslice
      - name: internal
        hostname:
          - api-internal.k8s.example.internal
        annotationPrefix: internal-dns.example.com/
        serviceName: kuberture-internal
        addressSource: endpointslice
`;

/** A values block parsed into the tree `render` writes to a values file. */
export function valuesOf(yaml: string): Record<string, unknown> {
  const tree: unknown = parse(yaml);
  assert.ok(typeof tree === "object" && tree !== null && !Array.isArray(tree), "a values block is a map");
  return tree as Record<string, unknown>;
}

/** One output as the values give it. */
export type Output = Record<string, unknown>;

/** `{kuberture: {config: {outputs}}}` and more kuberture keys, as values. */
export function withOutputs(outputs: readonly Output[], more: Record<string, unknown> = {}): {
  kuberture: Record<string, unknown>;
} {
  const config = (more.config ?? {}) as Record<string, unknown>;
  return { kuberture: { ...more, config: { ...config, outputs } } };
}

/** A valid output named `name`, with `extra` keys. */
export function output(name: string, extra: Output = {}): Output {
  return { name, hostname: [`${name}.k8s.example.com`], serviceName: `kuberture-${name}`, ...extra };
}

/** Turns off the controller and the proxy, so a render holds kuberture's objects alone. */
export const KUBERTURE_ONLY = ["controller.enabled=false", "proxy.enabled=false"];

/** Objects of the kuberture component (by the component label the chart puts on every one). */
export function kubertureObjects(objects: readonly K8sObject[]): K8sObject[] {
  return objects.filter((object) => object.metadata.labels?.["app.kubernetes.io/component"] === "kuberture");
}

/** The kuberture Deployment (the one Deployment of the kuberture component), whatever the release. */
export function kubertureDeployment(objects: readonly K8sObject[]): K8sObject {
  const found = ofKind(kubertureObjects(objects), "Deployment");
  assert.equal(found.length, 1, "one kuberture Deployment");
  return found[0]!;
}

/** The arguments of the kuberture container. */
export function kubertureArgs(objects: readonly K8sObject[]): string[] {
  return container(kubertureDeployment(objects), "kuberture").args ?? [];
}

/** The config file the ConfigMap holds, parsed. */
export function renderedConfig(objects: readonly K8sObject[]): unknown {
  const maps = ofKind(kubertureObjects(objects), "ConfigMap");
  assert.equal(maps.length, 1, "one kuberture ConfigMap");
  const data = maps[0]!.data as Record<string, string> | undefined;
  assert.deepEqual(Object.keys(data ?? {}), ["config.yaml"], "the ConfigMap holds config.yaml alone");
  return parse(data!["config.yaml"]!);
}

/** kuberture.config's defaults (chart/values.yaml) with `outputs`. */
export function defaultConfig(outputs: readonly Output[]): Record<string, unknown> {
  return {
    source: { namespace: "default", serviceName: "kubernetes" },
    outputs,
    metricsBindAddress: ":8080",
    healthProbeBindAddress: ":8081",
    logLevel: "info",
  };
}
