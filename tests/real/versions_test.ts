/**
 * The one file of versions (`versions.ts`) and the build modules agree: each build module's
 * `go.mod` names the component's main package as its tool and requires exactly the pinned
 * version, and the kube-apiserver module pins every staging module to the matching `v0.x`. Runs
 * in the unit suite (no Go, no network): a version bumped in one place only fails here first.
 *
 * @module
 */

import assert from "node:assert/strict";
import { BUILD_MODULES } from "./build.ts";
import { GO_COMPONENTS, KUBERNETES_VERSION, stagingVersion } from "./versions.ts";

/** `module version` pairs of a go.mod's require lines (single or in blocks). */
function requires(goMod: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of goMod.matchAll(/^(?:require\s+|\t)([^\s=]+)\s+(v\S+)(?:\s*\/\/.*)?$/gm)) {
    found.set(match[1]!, match[2]!);
  }
  return found;
}

/** `module => module version` replacements of a go.mod. */
function replacements(goMod: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of goMod.matchAll(/^(?:replace\s+|\t)(\S+)\s+=>\s+(\S+)\s+(v\S+)\s*$/gm)) {
    if (match[1] === match[2]) found.set(match[1]!, match[3]!);
  }
  return found;
}

Deno.test("real suite: each build module requires the version versions.ts pins and builds its main package", async () => {
  for (const component of GO_COMPONENTS) {
    const goMod = await Deno.readTextFile(`${BUILD_MODULES}/${component.buildModule}/go.mod`);
    assert.equal(
      requires(goMod).get(component.module),
      component.version,
      `${component.name}: go.mod's require`,
    );
    assert.match(
      goMod,
      new RegExp(`^tool ${component.mainPackage.replaceAll(".", "\\.")}$`, "m"),
      component.name,
    );
    const goSum = await Deno.readTextFile(`${BUILD_MODULES}/${component.buildModule}/go.sum`);
    assert.ok(goSum.includes(`${component.module} ${component.version} h1:`), `${component.name}: go.sum`);
  }
});

Deno.test("real suite: the kube-apiserver module pins every staging module to the release's v0.x", async () => {
  assert.equal(stagingVersion("v1.35.4"), "v0.35.4");
  const goMod = await Deno.readTextFile(`${BUILD_MODULES}/kube-apiserver/go.mod`);
  const pinned = replacements(goMod);
  // The staging modules k8s.io/kubernetes replaces with folders of its own tree (its go.mod).
  for (const name of ["api", "apimachinery", "apiserver", "client-go", "component-base", "kube-aggregator"]) {
    assert.equal(pinned.get(`k8s.io/${name}`), stagingVersion(KUBERNETES_VERSION), `k8s.io/${name}`);
  }
  assert.ok(pinned.size >= 31, `every staging module is pinned (found ${pinned.size})`);
  for (const [module, version] of pinned) {
    assert.equal(version, stagingVersion(KUBERNETES_VERSION), `${module} is pinned to another release`);
  }
});
