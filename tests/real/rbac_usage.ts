/**
 * Judging the chart's RBAC from the real apiserver's own records: what an identity did (its
 * audit log entries: verb, group, resource, namespace, name, status), what it may do (a
 * SelfSubjectRulesReview per namespace, as `kubectl auth can-i --list` shows), and the two
 * differences that matter: a request refused with 403 (a permission the chart forgot) and a grant
 * never used (a permission the chart need not give).
 *
 * A grant counts as used when a request of its verb on its group and resource passed
 * authorization (any answer but 401 and 403: a 404 or 409 was still allowed) in a namespace it
 * covers, and on a name it lists when it lists names. A rules review is asked per namespace and
 * cannot say where a rule came from, so a grant that also shows in a namespace no Role is bound in
 * is taken for cluster-wide (a ClusterRoleBinding's) and counts as used by a request anywhere
 * ({@linkcode withClusterWide}). Grants every authenticated identity has (self reviews,
 * non-resource URLs) are not the chart's and are ignored.
 *
 * Pure: audit text and review objects in, findings out.
 *
 * @module
 */

/** One request, as the audit log records it. */
export interface AuditedRequest {
  readonly user: string;
  /** The identity's uid (static tokens of one user can differ here, as replicas do in the suite). */
  readonly uid: string;
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly code: number;
  readonly requestURI: string;
  /** When the apiserver received it (RFC 3339 with microseconds). */
  readonly received: string;
  /** When the apiserver answered it (same form). */
  readonly completed: string;
}

interface RawAuditEvent {
  readonly stage?: string;
  readonly verb?: string;
  readonly requestURI?: string;
  readonly requestReceivedTimestamp?: string;
  readonly stageTimestamp?: string;
  readonly user?: { readonly username?: string; readonly uid?: string };
  readonly objectRef?: {
    readonly apiGroup?: string;
    readonly resource?: string;
    readonly subresource?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
  readonly responseStatus?: { readonly code?: number };
}

/**
 * The completed resource requests of an audit log (JSON lines). A line that is not JSON, a
 * request that never completed (stage other than `ResponseComplete`, such as a watch still open
 * or `Panic`) and a non-resource request are left out; a watch is recorded when it ends, so a
 * scenario reads the log after it has stopped the components.
 */
export function parseAuditLog(text: string): AuditedRequest[] {
  const requests: AuditedRequest[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let event: RawAuditEvent;
    try {
      event = JSON.parse(line) as RawAuditEvent;
    } catch {
      continue;
    }
    const ref = event.objectRef;
    if (ref?.resource === undefined || event.verb === undefined || event.user?.username === undefined) {
      continue;
    }
    if (event.stage !== "ResponseComplete" && event.stage !== "ResponseStarted") continue;
    requests.push({
      user: event.user.username,
      uid: event.user.uid ?? "",
      verb: event.verb,
      apiGroup: ref.apiGroup ?? "",
      resource: ref.resource,
      ...(ref.subresource === undefined ? {} : { subresource: ref.subresource }),
      ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }),
      ...(ref.name === undefined ? {} : { name: ref.name }),
      code: event.responseStatus?.code ?? 0,
      requestURI: event.requestURI ?? "",
      received: event.requestReceivedTimestamp ?? "",
      completed: event.stageTimestamp ?? "",
    });
  }
  return requests;
}

/** One resource rule of a SelfSubjectRulesReview's status. */
export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** One grant: a verb on a resource, in a namespace (or cluster-wide), maybe narrowed to names. */
export interface Grant {
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  /** The namespace the review was asked about, or `*` for a cluster-wide grant. */
  readonly namespace: string;
  /** The names it is narrowed to; empty: every name. */
  readonly names: readonly string[];
}

/** Resources every authenticated identity may use (granted by the apiserver's default roles). */
const EVERYONE: ReadonlySet<string> = new Set([
  "authentication.k8s.io/selfsubjectreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
]);

/** The grants of a rules review asked about `namespace`, one per verb, group and resource. */
export function grantsOf(rules: readonly ResourceRule[], namespace: string): Grant[] {
  const grants: Grant[] = [];
  for (const rule of rules) {
    for (const apiGroup of rule.apiGroups ?? [""]) {
      for (const resource of rule.resources ?? []) {
        if (EVERYONE.has(`${apiGroup}/${resource}`)) continue;
        for (const verb of rule.verbs) {
          grants.push({ verb, apiGroup, resource, namespace, names: rule.resourceNames ?? [] });
        }
      }
    }
  }
  return grants;
}

/** Whether two grants are the same rule (verb, group, resource, names), wherever they were seen. */
function sameRule(a: Grant, b: Grant): boolean {
  return a.verb === b.verb && a.apiGroup === b.apiGroup && a.resource === b.resource &&
    a.names.join(",") === b.names.join(",");
}

/**
 * The grants of several namespaces' reviews, with those also seen in `unbound` (the review of a
 * namespace no Role is bound in, so only cluster-wide rules show there) made one cluster-wide
 * grant (namespace `*`) instead of one per namespace.
 */
export function withClusterWide(unbound: readonly Grant[], namespaced: readonly Grant[]): Grant[] {
  const clusterWide = unbound.map((grant) => ({ ...grant, namespace: "*" }));
  return [
    ...clusterWide,
    ...namespaced.filter((grant) => !clusterWide.some((wide) => sameRule(wide, grant))),
  ];
}

/** `verb group/resource` in `namespace` [names], for messages. */
export function describeGrant(grant: Grant): string {
  const names = grant.names.length === 0 ? "" : ` [${grant.names.join(",")}]`;
  const where = grant.namespace === "*" ? "cluster-wide" : `in ${grant.namespace}`;
  return `${grant.verb} ${
    grant.apiGroup === "" ? "core" : grant.apiGroup
  }/${grant.resource} ${where}${names}`;
}

/**
 * Whether a successful request used the grant. A server-side apply that created its object (a
 * `patch` answered 201) used `create` as well: the apiserver authorizes that create too.
 */
export function usesGrant(request: AuditedRequest, grant: Grant): boolean {
  if (request.code === 401 || request.code === 403 || request.code === 0) return false;
  const createdByPatch = request.verb === "patch" && request.code === 201 && grant.verb === "create";
  if ((request.verb !== grant.verb && !createdByPatch) || request.apiGroup !== grant.apiGroup) return false;
  const resource = request.subresource === undefined
    ? request.resource
    : `${request.resource}/${request.subresource}`;
  if (resource !== grant.resource && grant.resource !== "*") return false;
  // A namespaced grant serves requests in its namespace only; a cluster-wide one serves any.
  if (grant.namespace !== "*" && request.namespace !== grant.namespace) return false;
  if (grant.names.length > 0 && (request.name === undefined || !grant.names.includes(request.name))) {
    return false;
  }
  return true;
}

/** The grants no request of `user` used. */
export function unusedGrants(
  grants: readonly Grant[],
  requests: readonly AuditedRequest[],
  user: string,
): Grant[] {
  const own = requests.filter((request) => request.user === user);
  return grants.filter((grant) => !own.some((request) => usesGrant(request, grant)));
}

/** The requests of `user` refused for lack of permission. */
export function forbidden(requests: readonly AuditedRequest[], user: string): AuditedRequest[] {
  return requests.filter((request) => request.user === user && request.code === 403);
}

/**
 * The controller's Event grants, as {@linkcode describeGrant} words them, which a scenario without
 * a refusal cannot use: the controller records a Warning Event only when it refuses something
 * (`chart_rbac_test.ts` makes one and shows `create` used), and patches one only for a repeat after
 * the recorder's 10-minute window. Scenarios waive exactly these, by name.
 */
export const CONTROLLER_EVENT_GRANTS: readonly string[] = [
  "create core/events cluster-wide",
  "patch core/events cluster-wide",
];

/** One refused request, for messages. */
export function describeRequest(request: AuditedRequest): string {
  return `${request.verb} ${request.requestURI} → ${request.code}`;
}
