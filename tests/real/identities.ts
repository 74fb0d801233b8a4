/**
 * Who talks to the real apiserver, and how: one static token per identity in the apiserver's
 * `--token-auth-file`, and one kubeconfig per identity. An ouroboros component authenticates as
 * its chart ServiceAccount (`system:serviceaccount:<namespace>:<name>` with the groups a real
 * ServiceAccount token carries), so RBAC judges it exactly as in a cluster; the suite itself acts
 * as a `system:masters` admin only to set the stage.
 *
 * Tokens come from the caller's random source, so no two stacks share one.
 *
 * Pure: text in, text out.
 *
 * @module
 */

/** One identity the apiserver knows. */
export interface Identity {
  /** A short label: the ServiceAccount's name, or "admin". */
  readonly label: string;
  readonly user: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly token: string;
}

/** The identity of a ServiceAccount, as the apiserver's ServiceAccount authenticator names it. */
export function serviceAccountIdentity(namespace: string, name: string, token: string): Identity {
  return {
    label: `${namespace}/${name}`,
    user: `system:serviceaccount:${namespace}:${name}`,
    uid: `sa-${namespace}-${name}`,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`],
    token,
  };
}

/** The stage-setting admin: every verb through the `system:masters` group. */
export function adminIdentity(token: string): Identity {
  return { label: "admin", user: "real-suite-admin", uid: "admin", groups: ["system:masters"], token };
}

/** A field of the token file: quoted when it holds a comma or a quote (CSV). */
function csvField(value: string): string {
  return /[",]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * The apiserver's `--token-auth-file`: `token,user,uid,"group1,group2"` per line.
 *
 * @example
 * ```ts
 * tokenFile([adminIdentity("t0")]); // 't0,real-suite-admin,admin,system:masters\n'
 * ```
 */
export function tokenFile(identities: readonly Identity[]): string {
  return identities.map((identity) =>
    [identity.token, identity.user, identity.uid, identity.groups.join(",")].map(csvField).join(",") + "\n"
  ).join("");
}

/** Where the apiserver is and which CA signed it. */
export interface ApiEndpoint {
  /** Such as `https://127.0.0.1:41234`. */
  readonly server: string;
  readonly caPem: string;
}

/** A kubeconfig (as JSON, which is YAML) for one identity. */
export function kubeconfigFor(endpoint: ApiEndpoint, identity: Identity, namespace = "default"): string {
  const name = identity.label.replace(/[^a-zA-Z0-9-]/g, "-");
  return JSON.stringify(
    {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "real",
        cluster: { server: endpoint.server, "certificate-authority-data": btoa(endpoint.caPem) },
      }],
      users: [{ name, user: { token: identity.token } }],
      contexts: [{ name, context: { cluster: "real", user: name, namespace } }],
      "current-context": name,
    },
    null,
    2,
  ) + "\n";
}

/** A random token of 32 hex digits from `random`, a source of numbers in [0, 1) like `Math.random`. */
export function newToken(random: () => number): string {
  return Array.from({ length: 16 }, () => Math.floor(random() * 256).toString(16).padStart(2, "0")).join("");
}
