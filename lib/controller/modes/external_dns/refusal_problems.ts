/**
 * Every problem code external-dns mode's sink refuses with, so the controller's
 * `ouroboros_controller_refusals_total{problem}` starts each at zero.
 *
 * Decision: the typed codes (the proxy targets', the owned objects') are listed through records
 * keyed by their types, so the compiler keeps them complete; the sink's own literals are checked
 * against its source by tests/controller/modes/external_dns/refusal_problems_test.ts.
 *
 * Pure: constants.
 *
 * @module
 */

import type { ObjectRefusalProblem } from "../../../publisher/owned_object_plan.ts";
import type { TargetsProblem } from "./targets.ts";

const TARGETS_PROBLEMS: Readonly<Record<TargetsProblem, true>> = {
  headless: true,
  "no-cluster-ip": true,
  "invalid-address": true,
  "service-not-found": true,
};

const OBJECT_PROBLEMS: Readonly<Record<ObjectRefusalProblem, true>> = {
  "foreign-object": true,
  "name-clash": true,
  "unreadable-object": true,
  "invalid-object": true,
};

/** The codes `ExternalDnsSink` refuses with. */
export const EXTERNAL_DNS_SINK_PROBLEMS: readonly string[] = [
  ...Object.keys(TARGETS_PROBLEMS),
  "no-targets",
  "mass-prune-guard",
  "nothing-built",
  ...Object.keys(OBJECT_PROBLEMS),
];
