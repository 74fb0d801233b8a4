/**
 * Picks a kubeconfig's context (`--context`, else `current-context`) and its cluster and user.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Decoded } from "../resources/json.ts";
import type { Kubeconfig, KubeconfigCluster, KubeconfigContext, KubeconfigUser } from "./kubeconfig.ts";

/** The context in use, with its cluster and user looked up. */
export interface SelectedContext {
  readonly context: KubeconfigContext;
  readonly cluster: KubeconfigCluster;
  /** `undefined` when the context names no user. */
  readonly user?: KubeconfigUser;
  /** `default` when the context sets none. */
  readonly namespace: string;
}

function available(names: Iterable<string>): string {
  const list = [...names].map((name) => JSON.stringify(name));
  return list.length === 0 ? "none defined" : `defined: ${list.join(", ")}`;
}

/** Looks up a context and what it names; a failure lists the entries that are defined. */
export function selectContext(config: Kubeconfig, name?: string): Decoded<SelectedContext> {
  const contextName = name ?? config.currentContext;
  if (contextName === "") {
    return {
      ok: false,
      reason: `kubeconfig sets no current-context and no context was chosen (${
        available(config.contexts.keys())
      })`,
    };
  }
  const context = config.contexts.get(contextName);
  if (context === undefined) {
    return {
      ok: false,
      reason: `context ${JSON.stringify(contextName)} is not in the kubeconfig (${
        available(config.contexts.keys())
      })`,
    };
  }
  const cluster = config.clusters.get(context.cluster);
  if (cluster === undefined) {
    return {
      ok: false,
      reason: `context ${JSON.stringify(contextName)} names cluster ${
        JSON.stringify(context.cluster)
      }, which is not in the kubeconfig (${available(config.clusters.keys())})`,
    };
  }
  const user = context.user === "" ? undefined : config.users.get(context.user);
  if (context.user !== "" && user === undefined) {
    return {
      ok: false,
      reason: `context ${JSON.stringify(contextName)} names user ${
        JSON.stringify(context.user)
      }, which is not in the kubeconfig (${available(config.users.keys())})`,
    };
  }
  return {
    ok: true,
    value: {
      context,
      cluster,
      ...(user === undefined ? {} : { user }),
      namespace: context.namespace === "" ? "default" : context.namespace,
    },
  };
}
