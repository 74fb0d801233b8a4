/**
 * Every problem code external-dns mode's sink refuses with, so
 * `ouroboros_controller_refusals_total{problem}` starts each at zero. Typed codes come through
 * records keyed by their types, so the compiler keeps them complete; a test checks the literals.
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
