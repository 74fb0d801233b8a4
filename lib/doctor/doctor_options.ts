/**
 * The `ouroboros doctor` option table: its own rows, then every controller row, so it judges the
 * controller's exact set-up. Rows meaningless to a one-shot read-only run (`--once`, …) are
 * accepted and ignored, so a controller's argument list can be pasted unchanged.
 *
 * Pure: data.
 *
 * @module
 */

import { boolean, domainName, duration, integer, oneOf, text } from "../cli/kinds.ts";
import type { OptionSpec, OptionTable } from "../cli/options.ts";
import { CONTROLLER_OPTIONS } from "../controller/controller_options.ts";

/** Controller rows the doctor accepts and ignores. */
export const IGNORED_CONTROLLER_ROWS = [
  "dryRun",
  "once",
  "cleanup",
  "listenHealth",
  "leaderElectionRenewDeadline",
  "leaderElectionRetryPeriod",
] as const satisfies readonly (keyof typeof CONTROLLER_OPTIONS.options)[];

type ControllerRows = typeof CONTROLLER_OPTIONS.options;

/** The controller's rows, those the doctor ignores saying so in their help. */
function controllerRows(): ControllerRows {
  const rows: Record<string, OptionSpec<unknown>> = { ...CONTROLLER_OPTIONS.options };
  for (const key of IGNORED_CONTROLLER_ROWS) {
    const row = CONTROLLER_OPTIONS.options[key];
    rows[key] = {
      ...row,
      help: `Ignored by the doctor (accepted so the controller's arguments pass as they are).`,
    };
  }
  return rows as ControllerRows;
}

/** The doctor's option table. */
export const DOCTOR_OPTIONS = {
  command: "doctor",
  summary:
    "Check once, read-only, whether hairpinned calls work in this cluster, why not, and whether you need " +
    "ouroboros at all; print one line per finding with what to do. Exit 0 when every check was made and nothing " +
    "is a problem, 1 when something is, 4 when a check could not be made (see --allow-unchecked).",
  options: {
    output: {
      flag: "output",
      kind: oneOf(["text", "json"] as const),
      default: "text",
      help: "text for people; json for machines (every finding, its verdict, and a summary).",
    },
    ingressService: {
      flag: "ingress-service",
      kind: text("NAMESPACE/NAME", "a Service as <namespace>/<name>"),
      default: "ingress-nginx/ingress-nginx-controller",
      help: "The ingress controller's LoadBalancer Service (others are found from Ingress status addresses).",
    },
    checkTimeout: {
      flag: "check-timeout",
      kind: duration(),
      default: "20s",
      help: "How long one check may take; a check that runs out says what it could not check.",
    },
    allowUnchecked: {
      flag: "allow-unchecked",
      kind: boolean(),
      default: "false",
      help:
        "Exit 0 although a check could not be made (no access, a timeout), as long as nothing is a problem; " +
        "without it such a run exits 4, so `helm test` does not pass having checked nothing.",
    },
    probeDirect: {
      flag: "probe-direct",
      kind: boolean(),
      default: "false",
      help:
        "Also connect to the ingress load balancer's addresses without a PROXY header, as a hairpinned call " +
        "does, and report whether the ingress rejects it (whether the problem is real here).",
    },
    host: {
      flag: "host",
      kind: domainName(),
      default: "",
      defaultText: "(the hairpinned hostnames of the current Ingresses and Gateway API objects)",
      help: "A hostname to resolve and to call through the proxy; repeat the flag for more.",
      repeatable: true,
    },
    hostLimit: {
      flag: "host-limit",
      kind: integer({ min: 1, max: 1000 }),
      default: "20",
      help:
        "At most this many hostnames are resolved and called; above it an even sample is taken and named.",
    },
    clusterDnsService: {
      flag: "cluster-dns-service",
      kind: text("NAMESPACE/NAME", "a Service as <namespace>/<name>"),
      default: "kube-system/kube-dns",
      help: "The cluster DNS Service, queried directly to tell CoreDNS's answer from the pod resolver's.",
    },
    reach: {
      flag: "reach",
      kind: oneOf(["auto", "direct", "apiserver"] as const),
      default: "auto",
      help:
        "How our pods' health endpoints are read: direct to the pod IP, or through the API server's pods/proxy. " +
        "auto: direct when running in a pod without --kubeconfig, else apiserver.",
    },
    controllerSelector: {
      flag: "controller-selector",
      kind: text("SELECTOR", "a label selector such as app.kubernetes.io/component=controller"),
      default: "app.kubernetes.io/name=ouroboros,app.kubernetes.io/component=controller",
      help:
        "The controller's pods, in the proxy Service's namespace, whose readiness and reconciles are read.",
    },
    ...controllerRows(),
  },
  groups: [
    {
      title: "The doctor's flags",
      options: [
        "output",
        "ingressService",
        "checkTimeout",
        "allowUnchecked",
        "probeDirect",
        "host",
        "hostLimit",
        "clusterDnsService",
        "reach",
        "controllerSelector",
      ],
    },
    {
      title: "The controller's flags, accepted to judge its set-up",
      options: Object.keys(CONTROLLER_OPTIONS.options) as (keyof ControllerRows)[],
      collapsed:
        "Give the doctor the controller's own arguments (the chart does) and it judges that set-up; " +
        "`ouroboros controller --help` says what each one means. Their environment variables are " +
        "OUROBOROS_DOCTOR_*. Ignored here, as they mean nothing to a read-only run: " +
        IGNORED_CONTROLLER_ROWS.map((key) => `--${CONTROLLER_OPTIONS.options[key].flag}`).join(", ") + ".",
    },
  ],
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;
