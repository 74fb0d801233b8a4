/**
 * coredns-import mode's mount check: does CoreDNS mount the import ConfigMap as a directory (a
 * `subPath` mount never sees a change), with our key, where the import line reads?
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { ConfigMapVolume, DeploymentVolumes } from "../../resources/deployment_volumes.ts";
import { objectKey } from "../../resources/kube_object.ts";
import { importPatterns } from "../../controller/modes/coredns/corefile/import_line.ts";
import type { Finding } from "../doctor_check.ts";
import { finding } from "./dns_wiring_findings.ts";

/** Advised when the Corefile's import folder is unknown. */
const MOUNT_DIR = "/etc/coredns/custom";

/** Where CoreDNS's images keep the Corefile: relative import patterns start there. */
const COREFILE_DIR = "/etc/coredns";

/**
 * The folders the import lines covering `key` read from; relative patterns start at the
 * Corefile's folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { importDirectories } from "./import_mount_findings.ts";
 *
 * const corefile = ".:53 {\n    import custom/*.override\n}\n";
 * assert.deepEqual(importDirectories(corefile, { key: "ouroboros.override", corefileKey: "Corefile" }), [
 *   "/etc/coredns/custom",
 * ]);
 * ```
 */
export function importDirectories(
  corefile: string,
  { key, corefileKey }: { readonly key: string; readonly corefileKey: string },
): string[] {
  const base = corefileKey.includes("/") ? corefileKey.slice(0, corefileKey.lastIndexOf("/")) : COREFILE_DIR;
  return [
    ...new Set(
      importPatterns(corefile, key).map((pattern) => {
        const folder = pattern.includes("/") ? pattern.slice(0, pattern.lastIndexOf("/")) : "";
        const absolute = folder.startsWith("/") ? folder : folder === "" ? base : `${base}/${folder}`;
        return trimSlash(absolute);
      }),
    ),
  ];
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

/** The import ConfigMap, and the folders the Corefile's import lines read from. */
export interface ImportMount {
  readonly namespace: string;
  readonly configmap: string;
  readonly key: string;
  /** Absent when the Corefile could not be read: the path is then not judged. */
  readonly directories?: readonly string[];
}

/** One finding per Deployment mounting the import ConfigMap, or a problem when none does. */
export function mountFindings(
  deployments: readonly DeploymentVolumes[],
  importMount: ImportMount,
): Finding[] {
  const { configmap, namespace } = importMount;
  const mounting = deployments.flatMap((deployment) =>
    deployment.configMapVolumes
      .filter((volume) => volume.configMap === configmap)
      .map((volume) => ({ deployment, volume }))
  );
  const at = importMount.directories?.[0] ?? MOUNT_DIR;
  if (mounting.length === 0) {
    return [
      finding(`Deployments in ${namespace}`, [
        "problem",
        `no Deployment in ${namespace} has a volume of ConfigMap ${configmap}, so CoreDNS cannot read the rules ouroboros writes`,
        `add a configMap volume of ${configmap} to the CoreDNS Deployment and mount it at ${at} as a directory (no subPath)`,
      ]),
    ];
  }
  return mounting.map(({ deployment, volume }) => mountFinding(deployment, volume, importMount));
}

function mountFinding(
  deployment: DeploymentVolumes,
  volume: ConfigMapVolume,
  importMount: ImportMount,
): Finding {
  const { key, directories } = importMount;
  const at = directories?.[0] ?? MOUNT_DIR;
  const subject = `Deployment ${objectKey(deployment.metadata)}`;
  const mounts = deployment.mounts.filter((mount) => mount.volume === volume.name);
  const withSubPath = mounts.find((mount) => mount.subPath !== undefined);
  if (withSubPath !== undefined) {
    return finding(subject, [
      "problem",
      `container ${withSubPath.container} mounts volume ${volume.name} (ConfigMap ${volume.configMap}) with ` +
      `subPath ${JSON.stringify(withSubPath.subPath)}: a subPath mount never sees the ConfigMap change`,
      `mount the volume at ${at} as a directory, without subPath`,
    ]);
  }
  if (mounts.length === 0) {
    return finding(subject, [
      "problem",
      `volume ${volume.name} (ConfigMap ${volume.configMap}) is mounted by no container`,
      `mount it in the CoreDNS container at ${at}`,
    ]);
  }
  if (volume.items !== undefined && !volume.items.includes(key)) {
    return finding(subject, [
      "problem",
      `volume ${volume.name} projects only the keys ${volume.items.join(", ") || "(none)"} of ConfigMap ` +
      `${volume.configMap}, not ${JSON.stringify(key)}`,
      `add ${JSON.stringify(key)} to the volume's items, or drop items to project every key`,
    ]);
  }
  const where = mounts.map((mount) => `${mount.container}:${mount.mountPath}`).join(", ");
  if (
    directories !== undefined && directories.length > 0 &&
    !mounts.some((mount) => directories.includes(trimSlash(mount.mountPath)))
  ) {
    return finding(subject, [
      "problem",
      `mounts ConfigMap ${volume.configMap} at ${where}, but the Corefile's import reads ` +
      `${directories.join(" or ")}, so CoreDNS never sees the rules`,
      `mount the volume at ${directories[0]}, or change the import line to the mount's folder`,
    ]);
  }
  return finding(subject, ["ok", `mounts ConfigMap ${volume.configMap} as a directory (${where})`]);
}
