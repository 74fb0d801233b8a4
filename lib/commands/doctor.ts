/**
 * `ouroboros doctor`: connects with the kubeconfig (or the pod's service account), runs every
 * check in turn with its own deadline, prints the report on stdout and exits 0 when nothing is
 * a problem, 1 otherwise. It never writes to the cluster: its client has a write fence that
 * refuses every write. The steps around it are the shared skeleton's (`daemon/subcommand.ts`).
 *
 * Effects: this is the wiring; the checks' verdicts are pure functions in `lib/doctor/`.
 *
 * @module
 */

import { ConfigError } from "../cli/options.ts";
import { defineSubcommand, type Service } from "../daemon/subcommand.ts";
import type { DoctorCheck, Finding } from "../doctor/doctor_check.ts";
import { exitStatus } from "../doctor/doctor_check.ts";
import { type CheckReport, renderJsonReport, renderTextReport } from "../doctor/doctor_report.ts";
import { needCheck, type NeedContext } from "../doctor/checks/need_check.ts";
import { KubeClient } from "../kube/client.ts";
import { WriteFencedError } from "../kube/errors.ts";
import { loadKubeAccess } from "../kube/kube_access.ts";
import { errorMessage } from "../util/error_message.ts";
import { printStdout } from "../util/stdio.ts";
import type { OptionValues } from "../cli/options.ts";
import { DOCTOR_OPTIONS } from "./doctor_options.ts";

/** The doctor's validated settings. */
interface DoctorSettings {
  readonly values: OptionValues<typeof DOCTOR_OPTIONS.options>;
  readonly ingressService: { readonly namespace: string; readonly name: string };
}

/** Runs one check within `timeoutMs`; a check that runs out or fails becomes a could-not-check finding. */
async function runCheck<C>(check: DoctorCheck<C>, context: C, timeoutMs: number): Promise<CheckReport> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let findings: readonly Finding[];
  try {
    findings = await check.run(context, deadline);
  } catch (error) {
    findings = [{
      check: check.id,
      subject: check.title,
      verdict: "could-not-check",
      saw: deadline.aborted
        ? `the check ran out of time (--check-timeout=${timeoutMs / 1000}s)`
        : errorMessage(error),
    }];
  }
  return { id: check.id, title: check.title, findings };
}

/** The `doctor` subcommand, for `main.ts`'s table. */
export const DOCTOR = defineSubcommand({
  options: DOCTOR_OPTIONS,
  usage: "check once, read-only, whether hairpinning works and why not",
  settings: ({ values }): DoctorSettings | ConfigError => {
    const [namespace = "", name = "", ...rest] = values.ingressService.split("/");
    if (namespace === "" || name === "" || rest.length > 0) {
      return new ConfigError("doctor", [
        `--ingress-service: "${values.ingressService}" is not <namespace>/<name>; accepted: a Service as ` +
        "ingress-nginx/ingress-nginx-controller",
      ]);
    }
    return { values, ingressService: { namespace, name } };
  },
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
  return {
    revoke: [{ name: "write" }, { name: "run" }, { name: "ffi" }, { name: "sys" }],
    async run() {
      const context: NeedContext = { api: client, ingressService: settings.ingressService };
      const reports = [await runCheck(needCheck(), context, values.checkTimeout)];
      printStdout(values.output === "json" ? renderJsonReport(reports) : renderTextReport(reports));
      return exitStatus(reports.flatMap((report) => report.findings));
    },
    close: () => client.close(),
  };
}
