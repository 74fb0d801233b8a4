/**
 * `ouroboros doctor`: runs every check, prints the report, exits 1 when anything is a problem.
 * Its client's write fence refuses every write, so it cannot change the cluster.
 *
 * Effects: this is the wiring; the checks' verdicts are pure functions in `lib/doctor/`.
 *
 * @module
 */

import { defineSubcommand, type Service } from "../daemon/subcommand.ts";
import { exitStatus } from "./doctor_check.ts";
import { renderJsonReport, renderTextReport } from "./doctor_report.ts";
import { readTextOrUndefined } from "../daemon/read_text_or_undefined.ts";
import { runningNamespace } from "../kube/kube_access.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";
import { type DoctorSettings, doctorSettings } from "./doctor_settings.ts";
import { KubeClient } from "../kube/client.ts";
import { WriteFencedError } from "../kube/errors.ts";
import { loadKubeAccess } from "../kube/kube_access.ts";
import { printStdout } from "../util/stdio.ts";
import { DOCTOR_OPTIONS } from "./doctor_options.ts";
import { runDoctorChecks } from "./doctor_checks.ts";

/** The `doctor` subcommand, for `main.ts`'s table. */
export const DOCTOR = defineSubcommand({
  options: DOCTOR_OPTIONS,
  usage: "check once, read-only, whether hairpinning works and why not",
  settings: ({ values, sources }) =>
    doctorSettings({
      values,
      sources,
      readResolvConf: () => readTextOrUndefined(RESOLV_CONF),
      podNamespace: runningNamespace("", { env: (name) => Deno.env.get(name) }),
    }),
  start: startDoctor,
});

async function startDoctor(settings: DoctorSettings): Promise<Service> {
  const { values } = settings;
  const access = await loadKubeAccess(values.kubeconfig, (name) => Deno.env.get(name));
  const client = KubeClient.fromConfig(access, {
    fieldManager: "ouroboros-doctor",
    writeFence: (request) => {
      throw new WriteFencedError(request, "the doctor is read-only");
    },
  });
  const inCluster = values.kubeconfig === "";
  return {
    revoke: [{ name: "write" }, { name: "run" }, { name: "ffi" }, { name: "sys" }],
    async run() {
      const reports = await runDoctorChecks(settings, {
        api: client,
        environment: {
          inCluster,
          resolvConf: inCluster ? readTextOrUndefined(RESOLV_CONF) : undefined,
          release: Deno.env.get("OUROBOROS_INSTANCE") || undefined,
        },
      });
      const verdict = { allowUnchecked: values.allowUnchecked };
      printStdout(values.output === "json" ? renderJsonReport(reports, verdict) : renderTextReport(reports));
      return exitStatus(reports.flatMap((report) => report.findings), verdict);
    },
    close: () => client.close(),
  };
}
