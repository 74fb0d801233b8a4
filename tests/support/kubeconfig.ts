/**
 * A kubeconfig for one API server (the fake one, as a rule): one cluster, one user and one
 * context of the same name, which is the current context. The text is what `ouroboros
 * --kubeconfig=…`, kubectl and Helm read.
 *
 * @module
 */

/** What the kubeconfig says. */
export interface KubeconfigOptions {
  /** The API server's URL, such as the fake API server's `url`. */
  readonly server: string;
  /** The bearer token the user presents; without one the user is empty (`user: {}`). */
  readonly token?: string;
  /** The name of the cluster and of the context. @default "fake" */
  readonly name?: string;
  /** The name of the user. @default "tester" */
  readonly user?: string;
  /** The context's namespace; without one, none is set (clients use `default`). */
  readonly namespace?: string;
}

/**
 * The kubeconfig's text (YAML; every value quoted, so any string is safe).
 *
 * @example
 * ```ts
 * kubeconfigText({ server: "http://127.0.0.1:8080", token: "t" });
 * // apiVersion: v1 … current-context: "fake" … token: "t"
 * ```
 */
export function kubeconfigText(options: KubeconfigOptions): string {
  const quote = (value: string): string => JSON.stringify(value);
  const name = quote(options.name ?? "fake");
  const user = quote(options.user ?? "tester");
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${name}`,
    "  cluster:",
    `    server: ${quote(options.server)}`,
    "contexts:",
    `- name: ${name}`,
    "  context:",
    `    cluster: ${name}`,
    `    user: ${user}`,
    ...(options.namespace === undefined ? [] : [`    namespace: ${quote(options.namespace)}`]),
    `current-context: ${name}`,
    "users:",
    `- name: ${user}`,
    ...(options.token === undefined ? ["  user: {}"] : ["  user:", `    token: ${quote(options.token)}`]),
    "",
  ].join("\n");
}

/** Writes {@linkcode kubeconfigText} to `path` and returns `path`. */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<string> {
  await Deno.writeTextFile(path, kubeconfigText(options));
  return path;
}
