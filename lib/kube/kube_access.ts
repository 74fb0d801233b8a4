/**
 * How a subcommand reaches the API server: the service account or `--kubeconfig`. All of it,
 * credentials included, is checked at start-up, so a bad setup fails the start, not a request.
 *
 * Effects: reads the configuration files, and obtains a credential (which may run an exec plugin).
 *
 * @module
 */

import { type ClusterConfig, loadInClusterConfig, loadKubeconfig, SERVICE_ACCOUNT_DIR } from "./config.ts";
import { KubeConfigError } from "./config_error.ts";
import { ExecCredentialSource } from "./exec_plugin.ts";
import { parseKubeconfig, resolvePath, type YamlParse } from "./kubeconfig.ts";
import { selectContext } from "./select_context.ts";
import { readTextOrUndefined } from "../daemon/read_text_or_undefined.ts";
import { errorMessage } from "../util/error_message.ts";

/** The start failed for a reason the operator can fix; `message` says how. */
export class KubeAccessError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KubeAccessError";
  }
}

/** The service account's namespace file: the namespace a subcommand runs in. */
export const POD_NAMESPACE_FILE = `${SERVICE_ACCOUNT_DIR}/namespace`;

/** Where {@linkcode runningNamespace} looks. */
export interface RunningNamespaceOptions {
  readonly env: (name: string) => string | undefined;
  /** Given: a kubeconfig's context may name the namespace (the caller has the YAML parser loaded). */
  readonly parseYaml?: YamlParse;
}

/**
 * The namespace a subcommand works in when no flag names one: `POD_NAMESPACE`, else the service
 * account's namespace file, else (outside a pod, with `--kubeconfig` and a YAML parser) the
 * namespace of the kubeconfig's current context, `default` when it names none, as kubectl does.
 * `undefined` when none is known; a kubeconfig that cannot be used is reported at start.
 */
export function runningNamespace(kubeconfig: string, options: RunningNamespaceOptions): string | undefined {
  const fromPod = options.env("POD_NAMESPACE") || readTextOrUndefined(POD_NAMESPACE_FILE)?.trim();
  if (fromPod) return fromPod;
  if (kubeconfig === "" || options.parseYaml === undefined) return undefined;
  const absolute = resolvePath(Deno.cwd(), kubeconfig);
  const text = readTextOrUndefined(absolute);
  if (text === undefined) return undefined;
  const baseDir = absolute.slice(0, absolute.lastIndexOf("/")) || "/";
  const parsed = parseKubeconfig(text, { baseDir, parseYaml: options.parseYaml });
  const selected = parsed.ok ? selectContext(parsed.value) : undefined;
  return selected?.ok === true ? selected.value.namespace : undefined;
}

/** The environment variables in-cluster configuration reads. */
export const IN_CLUSTER_ENV = ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"] as const;

/** Loads the configuration (`kubeconfig` empty: in-cluster) and obtains a first credential. */
export async function loadKubeAccess(
  kubeconfig: string,
  env: (name: string) => string | undefined,
): Promise<ClusterConfig> {
  let config: ClusterConfig;
  try {
    config = kubeconfig !== "" ? await loadKubeconfig(kubeconfig) : await loadInClusterConfig({
      env: Object.fromEntries(IN_CLUSTER_ENV.map((name) => [name, env(name)])),
    });
  } catch (error) {
    const where = kubeconfig !== "" ? `--kubeconfig=${kubeconfig}` : "in-cluster configuration";
    if (error instanceof KubeConfigError) {
      throw new KubeAccessError(`cannot use the ${where}: ${error.message}`, { cause: error });
    }
    throw new KubeAccessError(`cannot use the ${where}: ${errorMessage(error)}`, { cause: error });
  }
  const credentials = config.credentials;
  if (credentials === undefined) return config;
  if (
    credentials instanceof ExecCredentialSource &&
    Deno.permissions.querySync({ name: "run" }).state !== "granted"
  ) {
    throw new KubeAccessError(
      `the kubeconfig's user gets its token from an ${credentials.description}, and this subcommand's ` +
        "permission set does not allow running programs. Use a kubeconfig with a token, a token file or a " +
        "client certificate (or, in a cluster, the service account: no --kubeconfig), or run with --allow-run.",
    );
  }
  try {
    await credentials.current();
  } catch (error) {
    throw new KubeAccessError(
      `cannot get credentials from the ${credentials.description}: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  return config;
}
