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

import { defineSubcommand, type Service } from "../daemon/subcommand.ts";
import { type DoctorCheck, exitStatus, type Finding } from "../doctor/doctor_check.ts";
import { type CheckReport, renderJsonReport, renderTextReport } from "../doctor/doctor_report.ts";
import { dnsWiringCheck, type DnsWiringContext } from "../doctor/checks/dns_wiring_check.ts";
import { needCheck, type NeedContext } from "../doctor/checks/need_check.ts";
import { readTextOrUndefined } from "../daemon/read_text_or_undefined.ts";
import { POD_NAMESPACE_FILE } from "../kube/kube_access.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";
import { corednsSettings, desiredSetOptions } from "./controller.ts";
import { type DoctorSettings, doctorSettings } from "./doctor_settings.ts";
import { KubeClient } from "../kube/client.ts";
import { WriteFencedError } from "../kube/errors.ts";
import { loadKubeAccess } from "../kube/kube_access.ts";
import { errorMessage } from "../util/error_message.ts";
import { printStdout } from "../util/stdio.ts";
import { DOCTOR_OPTIONS } from "./doctor_options.ts";

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
  settings: ({ values, sources }) =>
    doctorSettings({
      values,
      sources,
      readResolvConf: () => readTextOrUndefined(RESOLV_CONF),
      podNamespace: Deno.env.get("POD_NAMESPACE") || readTextOrUndefined(POD_NAMESPACE_FILE)?.trim() ||
        undefined,
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
  return {
    revoke: [{ name: "write" }, { name: "run" }, { name: "ffi" }, { name: "sys" }],
    async run() {
      const need: NeedContext = { api: client, ingressService: settings.ingressService };
      const reports = [await runCheck(needCheck(), need, values.checkTimeout)];
      const { controller } = settings;
      const mode = controller.values.mode;
      if (mode === "coredns" || mode === "coredns-import") {
        const coredns = corednsSettings(controller);
        const wiring: DnsWiringContext = {
          api: client,
          settings: {
            mode,
            coredns: coredns.coredns,
            corednsImport: coredns.corednsImport,
            markers: coredns.markers,
            proxyFqdn: coredns.proxyFqdn,
            nodeLocalDns: coredns.nodeLocalDns,
            desired: desiredSetOptions(controller),
            gatewayApi: controller.values.gatewayApi,
            gatewayRouteKinds: controller.values.gatewayRouteKinds,
          },
        };
        reports.push(await runCheck(dnsWiringCheck(), wiring, values.checkTimeout));
      } else {
        reports.push({
          id: "dns-wiring",
          title: "DNS wiring",
          findings: [{
            check: "dns-wiring",
            subject: `--mode=${mode}`,
            verdict: "could-not-check",
            saw:
              `the doctor checks the DNS wiring of the coredns and coredns-import modes so far, not ${mode}`,
          }],
        });
      }
      printStdout(values.output === "json" ? renderJsonReport(reports) : renderTextReport(reports));
      return exitStatus(reports.flatMap((report) => report.findings));
    },
    close: () => client.close(),
  };
}
