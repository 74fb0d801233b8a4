import assert from "node:assert/strict";
import { ConfigError, parseOptions } from "../../lib/cli/options.ts";
import { DOCTOR_OPTIONS } from "../../lib/doctor/doctor_options.ts";
import { doctorSettings } from "../../lib/doctor/doctor_settings.ts";

function settings(argv: readonly string[], podNamespace: string | undefined) {
  const parsed = parseOptions(DOCTOR_OPTIONS, { argv: [...argv], getEnv: () => undefined });
  assert.equal(parsed.kind, "ok", JSON.stringify(parsed));
  if (parsed.kind !== "ok") throw new Error("unreachable");
  return doctorSettings({
    values: parsed.values,
    sources: parsed.sources,
    readResolvConf: () => undefined,
    podNamespace,
  });
}

Deno.test("doctor settings: --routes names the table as the controller does, the proxy's namespace outside a pod", () => {
  const base = ["--cluster-domain=cluster.local"];
  const POD = "--proxy-service-namespace=ouroboros";
  const cases: readonly [string, readonly string[], string | undefined, string | undefined][] = [
    ["off", [POD], "ouroboros", undefined],
    [
      "in a pod: the pod's namespace, the default name",
      [POD, "--routes"],
      "ouroboros",
      "ouroboros/ouroboros-routes",
    ],
    [
      "in a pod: the flags win",
      [POD, "--routes", "--routes-namespace=edge", "--routes-configmap=edge-routes"],
      "ouroboros",
      "edge/edge-routes",
    ],
    [
      "outside a pod: the proxy Service's namespace, where the proxy mounts it",
      ["--routes", "--proxy-service-namespace=hairpin"],
      undefined,
      "hairpin/ouroboros-routes",
    ],
    [
      "outside a pod: --routes-namespace still wins",
      ["--routes", "--proxy-service-namespace=hairpin", "--routes-namespace=edge"],
      undefined,
      "edge/ouroboros-routes",
    ],
  ];
  for (const [name, argv, podNamespace, expected] of cases) {
    const result = settings([...base, ...argv], podNamespace);
    assert.ok(!(result instanceof ConfigError), `${name}: ${JSON.stringify(result)}`);
    const routes = result.controller.routes;
    assert.equal(
      routes === undefined ? undefined : `${routes.namespace}/${routes.configmap}`,
      expected,
      name,
    );
  }
});

Deno.test("doctor settings: outside a pod with no namespace at all, --routes is refused in the controller's words", () => {
  const result = settings(["--cluster-domain=cluster.local", "--routes"], undefined);
  assert.ok(result instanceof ConfigError);
  assert.match(
    result.problems.join("\n"),
    /--routes: the route table's namespace is unknown; set --routes-namespace/,
  );
});
