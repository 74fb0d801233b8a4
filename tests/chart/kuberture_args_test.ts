/**
 * Every argument and environment variable the chart gives the kuberture container is one
 * `ouroboros kuberture` accepts: the rendered args are parsed with the subcommand's own option
 * table, as render_test.ts does for the controller and the proxy.
 */

import assert from "node:assert/strict";
import { type OptionSpec, type OptionTable, parseOptions } from "../../lib/cli/options.ts";
import { KUBERTURE_OPTIONS } from "../../lib/kuberture/kuberture_options.ts";
import { chartHelms, container, envOf, renderOk } from "./support.ts";
import {
  KUBERTURE_ONLY,
  kubertureDeployment,
  output,
  SEED_MULTIPLE,
  SEED_SINGLE,
  valuesOf,
  withOutputs,
} from "./kuberture_support.ts";

const { helms, test } = await chartHelms("chart kuberture argument check");

/** The row of a flag, or undefined. */
function row(
  table: OptionTable<Record<string, OptionSpec<unknown>>>,
  flag: string,
): OptionSpec<unknown> | undefined {
  return Object.values(table.options).find((spec) => spec.flag === flag);
}

const VARIANTS: { release?: string; values: Record<string, unknown>; set?: readonly string[] }[] = [
  { values: valuesOf(SEED_SINGLE) },
  { values: valuesOf(SEED_MULTIPLE), release: "kuberture" },
  {
    values: valuesOf(SEED_SINGLE),
    set: ["kuberture.leaderElection.enabled=false", "kuberture.logFormat=text"],
  },
  {
    values: withOutputs([output("a", { addressSource: "node-public", output: "crd" })], {
      config: { logLevel: "debug", metricsBindAddress: "0.0.0.0:9090" },
      leaderElection: {
        id: "edge-lease",
        namespace: "kube-system",
        leaseDuration: "1m",
        renewDeadline: "40s",
        retryPeriod: "500ms",
      },
      replicaCount: 3,
    }),
  },
];

test("every argument and variable the chart gives the kuberture container is one the binary accepts", async () => {
  const table: OptionTable<Record<string, OptionSpec<unknown>>> = KUBERTURE_OPTIONS;
  const instance = Object.values(table.options).find((spec) => spec.env === "KUBERTURE_INSTANCE");
  assert.ok(instance !== undefined, "the table reads KUBERTURE_INSTANCE, which the chart sets");
  // The drop-in defaults the chart's values repeat: election on, kuberture's Lease name.
  assert.equal(
    row(table, "leader-elect")?.default,
    "true",
    "--leader-elect defaults to true, as kuberture's",
  );
  assert.equal(row(table, "leader-election-id")?.default, "kuberture-leader");
  for (const helm of helms()) {
    for (const variant of VARIANTS) {
      const objects = await renderOk(helm, {
        ...variant,
        set: [...KUBERTURE_ONLY, ...(variant.set ?? [])],
      });
      const c = container(kubertureDeployment(objects), "kuberture");
      const [command, ...argv] = c.args ?? [];
      assert.equal(command, "kuberture");
      // POD_NAMESPACE comes from the downward API: give it the value the kubelet would.
      const env: Record<string, string> = { ...envOf(c), POD_NAMESPACE: "ouroboros" };
      const outcome = parseOptions(table, { argv, getEnv: (name) => env[name] });
      assert.equal(
        outcome.kind,
        "ok",
        `${helm.label} ${JSON.stringify(variant)}: ${JSON.stringify(outcome)}`,
      );
    }
  }
});
