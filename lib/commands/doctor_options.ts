/**
 * The `ouroboros doctor` option table: its own rows, then every controller row, so the doctor
 * takes the controller's flags as they are (the chart's `helm test` passes the same ones) and
 * judges exactly the set-up the controller runs with.
 *
 * Pure: data.
 *
 * @module
 */

import { duration, oneOf, text } from "../cli/kinds.ts";
import type { OptionSpec, OptionTable } from "../cli/options.ts";
import { CONTROLLER_OPTIONS } from "./controller_options.ts";

/** The doctor's option table. */
export const DOCTOR_OPTIONS = {
  command: "doctor",
  summary:
    "Check once, read-only, whether hairpinned calls work in this cluster, why not, and whether you need " +
    "ouroboros at all; print one line per finding with what to do. Exit 0 when nothing is a problem, 1 otherwise.",
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
    ...CONTROLLER_OPTIONS.options,
  },
} as const satisfies OptionTable<Record<string, OptionSpec<unknown>>>;
