/**
 * The `--kubeconfig` option row shared by every subcommand that talks to the API server.
 *
 * Pure: data.
 *
 * @module
 */

import { text } from "../cli/kinds.ts";

/** `--kubeconfig`: spread into a subcommand's option table. */
export const KUBECONFIG_OPTION = {
  kubeconfig: {
    flag: "kubeconfig",
    kind: text("PATH", "a path to a kubeconfig file"),
    default: "",
    defaultText: "(empty: in-cluster service account)",
    help: "Kubeconfig file to use instead of the pod's service account.",
  },
} as const;
