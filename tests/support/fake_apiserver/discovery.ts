/**
 * Discovery documents in the legacy (unaggregated) JSON form every client falls back to:
 * `/version`, `/api` (APIVersions), `/apis` (APIGroupList), `/apis/<group>` (APIGroup) and
 * `/api/v1`, `/apis/<group>/<version>` (APIResourceList with verbs, short names, kinds,
 * categories and subresources). Built from the served kinds only, so a group that is not
 * installed is simply absent.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { groupVersion, type KindInfo, VERBS } from "./kinds.ts";

/** The `/version` answer: a Kubernetes 1.35 server. */
export const VERSION_INFO = {
  major: "1",
  minor: "35",
  emulationMajor: "1",
  emulationMinor: "35",
  minCompatibilityMajor: "1",
  minCompatibilityMinor: "34",
  gitVersion: "v1.35.0-fake",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2025-12-01T00:00:00Z",
  goVersion: "go1.25.0",
  compiler: "gc",
  platform: "linux/amd64",
} as const;

/** The groups (other than core) the kinds belong to, in a stable order, with their versions. */
function groups(kinds: readonly KindInfo[]): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const info of kinds) {
    if (info.group === "") continue;
    const versions = result.get(info.group) ?? [];
    if (!versions.includes(info.version)) versions.push(info.version);
    result.set(info.group, versions);
  }
  return result;
}

/** `/api`. */
export function apiVersions(kinds: readonly KindInfo[], serverAddress: string): Record<string, unknown> {
  const versions = [...new Set(kinds.filter((info) => info.group === "").map((info) => info.version))];
  return {
    kind: "APIVersions",
    versions,
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function apiGroup(name: string, versions: readonly string[]): Record<string, unknown> {
  const list = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: list, preferredVersion: list[0] };
}

/** `/apis`. */
export function apiGroupList(kinds: readonly KindInfo[]): Record<string, unknown> {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [...groups(kinds)].map(([name, versions]) => apiGroup(name, versions)),
  };
}

/** `/apis/<group>`, or undefined when the group is not served. */
export function apiGroupDocument(
  kinds: readonly KindInfo[],
  group: string,
): Record<string, unknown> | undefined {
  const versions = groups(kinds).get(group);
  if (versions === undefined) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...apiGroup(group, versions) };
}

/** `/api/v1` or `/apis/<group>/<version>`, or undefined when nothing is served there. */
export function apiResourceList(
  kinds: readonly KindInfo[],
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const served = kinds.filter((info) => info.group === group && info.version === version);
  if (served.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const info of served) {
    resources.push({
      name: info.plural,
      singularName: info.singular,
      namespaced: info.namespaced,
      kind: info.kind,
      verbs: [...VERBS],
      ...(info.shortNames.length > 0 ? { shortNames: [...info.shortNames] } : {}),
      ...(info.categories.length > 0 ? { categories: [...info.categories] } : {}),
    });
    if (info.statusSubresource) {
      resources.push({
        name: `${info.plural}/status`,
        singularName: "",
        namespaced: info.namespaced,
        kind: info.kind,
        verbs: ["get", "patch", "update"],
      });
    }
    if (info.scaleSubresource) {
      resources.push({
        name: `${info.plural}/scale`,
        singularName: "",
        namespaced: info.namespaced,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      });
    }
  }
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: groupVersion({ group, version }),
    resources,
  };
}
