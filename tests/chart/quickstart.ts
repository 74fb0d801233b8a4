/**
 * Renders `chart/quickstart.yaml`: the chart's default install as plain manifests for
 * `kubectl apply`, that is `helm template ouroboros chart --namespace ouroboros --no-hooks` (hooks
 * left out: applied by kubectl, a pre-delete hook would run at once and undo the install) after a
 * header saying how to install and uninstall, and the Namespace.
 *
 * `deno task chart:quickstart` writes the file; `tests/chart/quickstart_test.ts` checks it is in step.
 *
 * @module
 */

import { type Helm, installHelm4, requireHelm, runHelm } from "../support/helm.ts";
import { CHART_DIR } from "./support.ts";

/** Where the quickstart manifest lives. */
export const QUICKSTART_PATH = `${CHART_DIR}/quickstart.yaml`;

const HEADER = `# deno-fmt-ignore-file
# ouroboros quickstart: the chart's default install as plain manifests (coredns mode, release "ouroboros" in
# namespace "ouroboros"), rendered by \`helm template ouroboros chart --namespace ouroboros --no-hooks\` after the
# Namespace. Regenerate it with \`deno task chart:quickstart\`; do not edit it by hand. For any other setting or mode
# use the chart (chart/README.md).
#
# Install:
#   kubectl apply --server-side --filename chart/quickstart.yaml
#
# The proxy forwards to the Service ingress-nginx/ingress-nginx-controller (ports 80 and 443). The controller edits
# the ConfigMap kube-system/coredns, between the lines "# === BEGIN ouroboros (do not edit by hand) ===" and
# "# === END ouroboros ===", and nothing else.
#
# Uninstall: the chart's pre-delete hook does not run under kubectl, so do its work by hand first.
#   1. Stop the controller, so it cannot write its block back, and wait for its pod to go:
#        kubectl --namespace ouroboros scale deployment ouroboros --replicas=0
#        kubectl --namespace ouroboros wait --for=delete pod --timeout=60s \\
#          --selector app.kubernetes.io/instance=ouroboros,app.kubernetes.io/component=controller
#   2. Remove the block from the Corefile (the lines from BEGIN to END above, both included), either with
#        kubectl --namespace kube-system edit configmap coredns
#      or, when the Corefile is shown as a block (\`Corefile: |\`), with
#        kubectl --namespace kube-system get configmap coredns --output yaml \\
#          | sed '/# === BEGIN ouroboros (do not edit by hand) ===/,/# === END ouroboros ===/d' \\
#          | kubectl replace --filename -
#   3. Delete the rest (the Namespace, and the RBAC objects outside it):
#        kubectl delete --filename chart/quickstart.yaml
`;

const NAMESPACE = `---
# The namespace of the quickstart install (not part of the chart). The controller and the proxy meet the
# "restricted" Pod Security level.
apiVersion: v1
kind: Namespace
metadata:
  name: ouroboros
  labels:
    app.kubernetes.io/name: ouroboros
    app.kubernetes.io/part-of: ouroboros
    pod-security.kubernetes.io/enforce: restricted
`;

/** The quickstart manifest as it should be, rendered with `helm`. */
export async function renderQuickstart(helm: Helm): Promise<string> {
  const run = await runHelm(helm, [
    "template",
    "ouroboros",
    CHART_DIR,
    "--namespace",
    "ouroboros",
    "--no-hooks",
  ]);
  if (run.code !== 0) throw new Error(`helm template failed: ${run.stderr.trim()}`);
  return HEADER + NAMESPACE + run.stdout;
}

if (import.meta.main) {
  const helm = requireHelm(await installHelm4());
  await Deno.writeTextFile(QUICKSTART_PATH, await renderQuickstart(helm));
  // deno-lint-ignore no-console
  console.log(`wrote ${QUICKSTART_PATH} with ${helm.label} ${helm.version}`);
}
