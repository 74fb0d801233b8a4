{{/*
Names, labels, argument lists and hook building blocks shared by the templates. Every object name
that becomes part of a pod or label (Deployments, DaemonSets, Jobs, Services, ServiceAccounts) fits
63 characters whatever the release name: the suffix is kept and the prefix is cut.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "ouroboros.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The object name prefix: the release name alone when it already holds the chart name. */}}
{{- define "ouroboros.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
"<fullname>-<suffix>" within 63 characters: the full name is shortened, never the suffix.
Call with (list $ "suffix").
*/}}
{{- define "ouroboros.suffixed" -}}
{{- $root := index . 0 -}}
{{- $suffix := index . 1 -}}
{{- $base := include "ouroboros.fullname" $root | trunc (int (sub 62 (len $suffix))) | trimSuffix "-" -}}
{{- printf "%s-%s" $base $suffix -}}
{{- end -}}

{{/* The proxy Deployment and Service (re-cut to 63, unlike the original's). */}}
{{- define "ouroboros.proxyFullname" -}}
{{- include "ouroboros.suffixed" (list . "proxy") -}}
{{- end -}}

{{/* The etc-hosts DaemonSet. */}}
{{- define "ouroboros.etcHostsFullname" -}}
{{- include "ouroboros.suffixed" (list . "etc-hosts") -}}
{{- end -}}

{{/*
Name of an RBAC object outside the release namespace (cluster-wide, or in the CoreDNS or records
namespace): "<release namespace>:<fullname>[-suffix]", so two releases of one name in different
namespaces never claim the same object. Call with (list $ "suffix"), "" for no suffix.
*/}}
{{- define "ouroboros.foreignName" -}}
{{- $root := index . 0 -}}
{{- $suffix := index . 1 -}}
{{- $base := printf "%s:%s" $root.Release.Namespace (include "ouroboros.fullname" $root) -}}
{{- if $suffix -}}{{- printf "%s-%s" $base $suffix -}}{{- else -}}{{- $base -}}{{- end -}}
{{- end -}}

{{/*
The controller's ServiceAccount: serviceAccount.name, or the full name when the chart creates it.
With serviceAccount.create=false the chart binds its Roles to an account it does not create, so the
name must be given: the render fails rather than bind to a name nobody made.
*/}}
{{- define "ouroboros.serviceAccountName" -}}
{{- $sa := .Values.serviceAccount -}}
{{- if and (not $sa.create) (not $sa.name) -}}
{{- fail "serviceAccount.create=false needs serviceAccount.name: the controller runs as, and the chart's Roles are bound to, an existing ServiceAccount of that name in the release namespace. Set serviceAccount.name, or serviceAccount.create=true." -}}
{{- end -}}
{{- default (include "ouroboros.fullname" .) $sa.name -}}
{{- end -}}

{{- define "ouroboros.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Labels on every object. They hold no component: componentLabels adds it, so hook pods never
carry a Deployment's or DaemonSet's selector labels.
*/}}
{{- define "ouroboros.labels" -}}
helm.sh/chart: {{ include "ouroboros.chart" . }}
app.kubernetes.io/name: {{ include "ouroboros.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ouroboros
{{- end -}}

{{/* Selector labels of one component. Call with (list $ "component"). */}}
{{- define "ouroboros.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "ouroboros.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/*
The selector labels of one component as a label selector string ("a=b,c=d"), in the order of
selectorLabels. Call with (list $ "component").
*/}}
{{- define "ouroboros.selectorString" -}}
{{- $root := index . 0 -}}
{{- printf "app.kubernetes.io/name=%s,app.kubernetes.io/instance=%s,app.kubernetes.io/component=%s" (include "ouroboros.name" $root) $root.Release.Name (index . 1) -}}
{{- end -}}

{{/* Labels of one component's objects. Call with (list $ "component"). */}}
{{- define "ouroboros.componentLabels" -}}
{{ include "ouroboros.labels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/*
Labels of one component's pods: the operator's podLabels, then the common labels and the component
(a superset of the selector labels), which win over an operator's label of the same name, so the
Deployment's or DaemonSet's selector always matches its pods. Call with (list $ "component"
podLabels).
*/}}
{{- define "ouroboros.podLabels" -}}
{{- $labels := include "ouroboros.componentLabels" (list (index . 0) (index . 1)) -}}
{{- $own := $labels | fromYaml -}}
{{- $theirs := dict -}}
{{- range $key, $value := index . 2 | default dict }}
{{- if not (hasKey $own $key) }}
{{- $_ := set $theirs $key $value }}
{{- end }}
{{- end }}
{{- $labels }}
{{- with $theirs }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The extension points every workload offers (controller, proxy, kuberture and dns Deployments, the
etc-hosts DaemonSet), each rendered by the helpers below so that every workload renders them alike:
extraArgs after the chart's arguments, extraEnv after its environment, extraVolumes and
extraVolumeMounts after its own volumes and mounts (ouroboros.moreItems, ouroboros.field),
podAnnotations and podLabels (ouroboros.podAnnotations, ouroboros.podLabels), priorityClassName,
nodeSelector and tolerations (ouroboros.field), and the security contexts
(ouroboros.securityContext). tests/chart/extension_points_test.ts holds every workload to it.
*/}}

{{/*
Items appended to a list the chart starts (args, env, volumes, volumeMounts): each item of `items`
on its own line at `indent`; nothing when empty. Call with (list items indent) right after the
chart's own items.
*/}}
{{- define "ouroboros.moreItems" -}}
{{- with index . 0 }}
{{- toYaml . | nindent (index $ 1) }}
{{- end }}
{{- end -}}

{{/*
A pod or container field (priorityClassName, nodeSelector, tolerations, env, volumes,
volumeMounts, rollingUpdate): `name:` at `indent` on a line of its own, then the value (a string on
the same line, a list or map below); nothing when the value is empty. Call with (list "name" value
indent).
*/}}
{{- define "ouroboros.field" -}}
{{- with index . 1 }}
{{ index $ 0 | indent (index $ 2) }}:
{{- if kindIs "string" . }} {{ . }}
{{- else }}
{{- toYaml . | nindent (int (add (index $ 2) 2)) }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
A security context: the chart-wide one (podSecurityContext or securityContext), then the
workload's own key by key (a workload's key replaces the chart-wide key of that name whole), then
`required`, which nothing overrides (the etc-hosts DaemonSet's root user). Call with (list
chart-wide workload's) or (list chart-wide workload's required); the caller writes the field name.
*/}}
{{- define "ouroboros.securityContext" -}}
{{- $out := deepCopy (index . 0 | default dict) -}}
{{- range $key, $value := index . 1 | default dict }}
{{- $_ := set $out $key $value }}
{{- end }}
{{- if gt (len .) 2 }}
{{- range $key, $value := index . 2 }}
{{- $_ := set $out $key $value }}
{{- end }}
{{- end }}
{{- toYaml $out -}}
{{- end -}}

{{/*
terminationGracePeriodSeconds of a workload. Unset (null): the proxy gets proxy.shutdownGrace
rounded up plus 10 s, so the kubelet never kills a proxy still draining within its own grace; every
other workload 30 s (the Kubernetes default). Set: used as given for every workload, but refused at
or below proxy.shutdownGrace while the proxy runs, since the proxy would be killed mid-drain. Call
with (list $ "proxy") or (list $ "other").
*/}}
{{- define "ouroboros.terminationGrace" -}}
{{- $root := index . 0 -}}
{{- $given := $root.Values.terminationGracePeriodSeconds -}}
{{- $p := $root.Values.proxy -}}
{{- $graceSeconds := divf (float64 (include "ouroboros.durationMs" $p.shutdownGrace)) 1000.0 -}}
{{- if kindIs "invalid" $given -}}
{{- if eq (index . 1) "proxy" -}}
{{- add (int (ceil $graceSeconds)) 10 -}}
{{- else -}}
30
{{- end -}}
{{- else -}}
{{- if and $p.enabled (le (float64 $given) $graceSeconds) -}}
{{- fail (printf "terminationGracePeriodSeconds=%v must exceed proxy.shutdownGrace=%s: the kubelet kills the proxy when the grace period ends, cutting connections it is still draining. Raise terminationGracePeriodSeconds, lower proxy.shutdownGrace, or leave terminationGracePeriodSeconds null (then the proxy gets proxy.shutdownGrace + 10 s)." $given $p.shutdownGrace) -}}
{{- end -}}
{{- int $given -}}
{{- end -}}
{{- end -}}

{{/* The ouroboros image: repository@digest when image.digest is set (the tag is then ignored), else repository:tag. */}}
{{- define "ouroboros.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (toString (default .Chart.AppVersion .Values.image.tag)) -}}
{{- end -}}
{{- end -}}

{{/* An image from {repository, tag}. */}}
{{- define "ouroboros.imageRef" -}}
{{- printf "%s:%s" .repository (toString .tag) -}}
{{- end -}}

{{/*
The controller's mode: etc-hosts when etcHosts.enabled (it wins, as in the original) or
controller.mode=etc-hosts; otherwise controller.mode, coredns when empty.
*/}}
{{- define "ouroboros.mode" -}}
{{- $mode := default "coredns" .Values.controller.mode -}}
{{- if or .Values.etcHosts.enabled (eq $mode "etc-hosts") -}}
etc-hosts
{{- else -}}
{{- $mode -}}
{{- end -}}
{{- end -}}

{{/*
What runs the controller: "Deployment", "DaemonSet" (etc-hosts) or "" (nothing). etcHosts.enabled
renders the DaemonSet even with controller.enabled=false, as in the original.
*/}}
{{- define "ouroboros.controllerKind" -}}
{{- $mode := include "ouroboros.mode" . -}}
{{- if .Values.etcHosts.enabled -}}
DaemonSet
{{- else if not .Values.controller.enabled -}}
{{- else if eq $mode "etc-hosts" -}}
DaemonSet
{{- else -}}
Deployment
{{- end -}}
{{- end -}}

{{/*
Where the etc-hosts pods run: etcHosts.nodeSelector, affinity and tolerations, shared by the
controller DaemonSet and the cleanup DaemonSet so the cleanup reaches every node the controller
wrote to. Pod spec fields, at the pod spec's indentation (nindent 6 in a DaemonSet).
*/}}
{{- define "ouroboros.etcHostsPlacement" -}}
{{- $e := .Values.etcHosts -}}
{{- with $e.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $e.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $e.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
The etc-hosts DaemonSet's extension points, read back with fromYaml. The DaemonSet is the
controller run on every node, so it keeps taking controller.extraArgs, extraEnv, extraVolumes,
extraVolumeMounts, podAnnotations, podLabels and priorityClassName (as before etcHosts had its
own), and etcHosts.* adds to them: its list items after the controller's, its annotations and
labels over the controller's, its priority class instead of the controller's. The security
contexts are not the controller's (those are the Deployment's, which runs as non-root).
*/}}
{{- define "ouroboros.etcHostsExtensions" -}}
{{- $c := .Values.controller -}}
{{- $e := .Values.etcHosts -}}
{{- $out := dict -}}
{{- range list "extraArgs" "extraEnv" "extraVolumes" "extraVolumeMounts" }}
{{- $_ := set $out . (concat (index $c . | default list) (index $e . | default list)) }}
{{- end }}
{{- range list "podAnnotations" "podLabels" }}
{{- $_ := set $out . (merge (deepCopy (index $e . | default dict)) (index $c . | default dict)) }}
{{- end }}
{{- $_ := set $out "priorityClassName" (default $c.priorityClassName $e.priorityClassName) }}
{{- toYaml $out -}}
{{- end -}}

{{/* The controller pods' component label: etc-hosts for the DaemonSet, controller otherwise. */}}
{{- define "ouroboros.controllerComponent" -}}
{{- ternary "etc-hosts" "controller" (eq (include "ouroboros.controllerKind" .) "DaemonSet") -}}
{{- end -}}

{{/*
"true" when the controller Deployment elects a leader (controller.leaderElection.enabled), empty
otherwise: no controller, or the etc-hosts DaemonSet, which never elects (ouroboros.checkController
refuses the setting there).
*/}}
{{- define "ouroboros.leaderElect" -}}
{{- if and (eq (include "ouroboros.controllerKind" .) "Deployment") .Values.controller.leaderElection.enabled -}}
true
{{- end -}}
{{- end -}}

{{/* The Lease's name: controller.leaderElection.id, or "<fullname>-controller" (one per release). */}}
{{- define "ouroboros.leaseName" -}}
{{- default (include "ouroboros.suffixed" (list . "controller")) .Values.controller.leaderElection.id -}}
{{- end -}}

{{/* The Lease's namespace: controller.leaderElection.namespace, or the release namespace. */}}
{{- define "ouroboros.leaseNamespace" -}}
{{- default .Release.Namespace .Values.controller.leaderElection.namespace -}}
{{- end -}}

{{/*
A Go duration ("15s", "1m30s", "500ms"; the schema checks the spelling) in milliseconds, as a
number in text: what the start-up checks below compare.
*/}}
{{- define "ouroboros.durationMs" -}}
{{- $units := dict "ns" 0.000001 "us" 0.001 "µs" 0.001 "ms" 1.0 "s" 1000.0 "m" 60000.0 "h" 3600000.0 -}}
{{- $total := 0.0 -}}
{{- range regexFindAll "[0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h)" . -1 -}}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" . -}}
{{- $total = addf $total (mulf (float64 $number) (index $units (trimPrefix $number .))) -}}
{{- end -}}
{{- $total -}}
{{- end -}}

{{/*
The controller combinations the binary (or the cluster) would refuse, refused at render time with
a message naming the values and what is accepted. Renders nothing; included by both controller
workloads. Why not in values.schema.json: an if/then there makes Helm 3 print only 'Must validate
"then" as "if" was valid', without naming replicaCount, and the rules depend on the mode.
*/}}
{{- define "ouroboros.checkController" -}}
{{- $c := .Values.controller -}}
{{- $le := $c.leaderElection -}}
{{- $replicas := int $c.replicaCount -}}
{{- $kind := include "ouroboros.controllerKind" . -}}
{{- if and (eq $kind "DaemonSet") $le.enabled -}}
{{- fail "controller.leaderElection.enabled=true is refused in etc-hosts mode: the DaemonSet runs one controller per node and each writes only its own node's hosts file, so there is nothing to elect. Set controller.leaderElection.enabled=false (controller.replicaCount is not used by the DaemonSet)." -}}
{{- end -}}
{{- if eq $kind "Deployment" -}}
{{- if and $c.dryRun (or (gt $replicas 1) $le.enabled) -}}
{{- fail (printf "controller.dryRun=true previews and writes nothing, not even the Lease leader election needs, so a preview runs one replica without it: set controller.replicaCount=1 (now %d) and controller.leaderElection.enabled=false (now %t)." $replicas $le.enabled) -}}
{{- end -}}
{{- if and (gt $replicas 1) (not $le.enabled) -}}
{{- fail (printf "controller.replicaCount=%d needs controller.leaderElection.enabled=true: without leader election every replica writes, and they race on the same target. Set controller.leaderElection.enabled=true (only the holder of the Lease writes), or controller.replicaCount=1 (or 0)." $replicas) -}}
{{- end -}}
{{- if $le.enabled -}}
{{- $lease := float64 (include "ouroboros.durationMs" $le.leaseDuration) -}}
{{- $renew := float64 (include "ouroboros.durationMs" $le.renewDeadline) -}}
{{- $retry := float64 (include "ouroboros.durationMs" $le.retryPeriod) -}}
{{- if or (le $retry 0.0) (le $renew (mulf $retry 1.2)) (le $lease $renew) -}}
{{- fail (printf "controller.leaderElection durations must satisfy leaseDuration > renewDeadline > 1.2 × retryPeriod > 0 (the controller refuses to start otherwise); got leaseDuration=%s, renewDeadline=%s, retryPeriod=%s. The defaults are 15s, 10s and 2s." $le.leaseDuration $le.renewDeadline $le.retryPeriod) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The cluster domain without a trailing dot; empty when detected at run time. */}}
{{- define "ouroboros.clusterDomain" -}}
{{- trimSuffix "." .Values.controller.clusterDomain -}}
{{- end -}}

{{/* The rewrite target baked in when controller.clusterDomain is set. */}}
{{- define "ouroboros.proxyFqdn" -}}
{{- printf "%s.%s.svc.%s." (include "ouroboros.proxyFullname" .) .Release.Namespace (include "ouroboros.clusterDomain" .) -}}
{{- end -}}

{{- define "ouroboros.externalDnsNamespace" -}}
{{- default .Release.Namespace .Values.externalDns.namespace -}}
{{- end -}}

{{- define "ouroboros.externalDnsProxyService" -}}
{{- default (include "ouroboros.proxyFullname" .) .Values.externalDns.proxyService -}}
{{- end -}}

{{/* The label selector of this release's external-dns records (the binary's ownership labels). */}}
{{- define "ouroboros.recordSelector" -}}
{{- printf "app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=%s" .Release.Name -}}
{{- end -}}

{{/*
The marker id (`--marker-id`): controller.markerId when set; otherwise nothing for a release named
"ouroboros" (the original's markers) and the release name cut to a DNS label for any other.
*/}}
{{- define "ouroboros.markerId" -}}
{{- if .Values.controller.markerId -}}
{{- .Values.controller.markerId -}}
{{- else if ne .Release.Name "ouroboros" -}}
{{- regexReplaceAll "[^a-z0-9-]+" (lower .Release.Name) "-" | trunc 63 | trimAll "-" -}}
{{- end -}}
{{- end -}}

{{/*
"true" when the controller manages a block in node-local-dns's Corefile (controller.nodeLocalDns.mode=manage),
else empty; manage in etc-hosts or external-dns mode fails the render, as the controller would refuse to start.
*/}}
{{- define "ouroboros.manageNodeLocalDns" -}}
{{- $mode := include "ouroboros.mode" . -}}
{{- if eq .Values.controller.nodeLocalDns.mode "manage" -}}
{{- if not (or (eq $mode "coredns") (eq $mode "coredns-import")) -}}
{{- fail (printf "controller.nodeLocalDns.mode=manage works in coredns and coredns-import modes only, not in %s mode" $mode) -}}
{{- end -}}
true
{{- end -}}
{{- end -}}

{{/* The first marker line of this release's block, without indentation. */}}
{{- define "ouroboros.markerBegin" -}}
{{- with include "ouroboros.markerId" . -}}
{{- printf "# === BEGIN ouroboros %s (do not edit by hand) ===" . -}}
{{- else -}}
# === BEGIN ouroboros (do not edit by hand) ===
{{- end -}}
{{- end -}}

{{/* The last marker line of this release's block, without indentation. */}}
{{- define "ouroboros.markerEnd" -}}
{{- with include "ouroboros.markerId" . -}}
{{- printf "# === END ouroboros %s ===" . -}}
{{- else -}}
# === END ouroboros ===
{{- end -}}
{{- end -}}

{{/*
Arguments every controller gets, Deployment and DaemonSet alike: mode, resync, log level and the
source filters, in the original's order.
*/}}
{{- define "ouroboros.controllerCommonArgs" -}}
{{- $c := .Values.controller -}}
{{- if and $c.gatewayClass (not $c.gatewayApi.enabled) -}}
{{- fail (printf "controller.gatewayClass=%s filters Gateways, but controller.gatewayApi.enabled is false, so no Gateway is watched (the controller would refuse to start): set controller.gatewayApi.enabled=true or drop controller.gatewayClass." $c.gatewayClass) -}}
{{- end }}
- controller
- --mode={{ include "ouroboros.mode" . }}
- --resync={{ $c.resync }}
- --log-level={{ $c.logLevel }}
{{- if $c.gatewayApi.enabled }}
- --gateway-api
- --gateway-route-kinds={{ join "," $c.gatewayApi.routeKinds }}
{{- end }}
{{- with $c.ingressClass }}
- --ingress-class={{ . }}
{{- end }}
{{- with $c.gatewayClass }}
- --gateway-class={{ . }}
{{- end }}
{{- with (include "ouroboros.clusterDomain" .) }}
- --cluster-domain={{ . }}
{{- end }}
{{- end -}}

{{/*
Arguments of new settings, after the mode's: log format, Ingress hosts, wildcards, health address, marker id,
leader election (the Deployment only) and the dry-run preview.
*/}}
{{- define "ouroboros.controllerNewArgs" -}}
{{- $mode := include "ouroboros.mode" . }}
- --log-format={{ .Values.controller.logFormat }}
- --ingress-hosts={{ .Values.controller.ingressHosts }}
- --wildcards={{ .Values.controller.wildcards }}
- --listen-health=:8082
{{- $manageNodeLocalDns := include "ouroboros.manageNodeLocalDns" . }}
{{- if or (eq $mode "coredns") (eq $mode "etc-hosts") $manageNodeLocalDns }}
{{- with include "ouroboros.markerId" . }}
- --marker-id={{ . }}
{{- end }}
{{- end }}
{{- if $manageNodeLocalDns }}
- --node-local-dns=manage
{{- end }}
{{- if include "ouroboros.leaderElect" . }}
{{- $le := .Values.controller.leaderElection }}
- --leader-elect
- --leader-election-namespace={{ include "ouroboros.leaseNamespace" . }}
- --leader-election-id={{ include "ouroboros.leaseName" . }}
- --leader-election-lease-duration={{ $le.leaseDuration }}
- --leader-election-renew-deadline={{ $le.renewDeadline }}
- --leader-election-retry-period={{ $le.retryPeriod }}
{{- end }}
{{- if .Values.controller.dryRun }}
- --dry-run
{{- end }}
{{- end -}}

{{/*
The route table's ConfigMap (routing.enabled): "<fullname>-routes" in the release namespace. The
controller creates and owns it; the chart never renders it (Helm would revert the controller's writes),
it only grants the controller that one name, mounts it into the proxy and, on uninstall, deletes it.
*/}}
{{- define "ouroboros.routesConfigmap" -}}
{{- include "ouroboros.suffixed" (list . "routes") -}}
{{- end -}}

{{/*
Where the proxy reads the route table: the folder the ConfigMap is mounted at, the only one besides
its own files that deno.json's proxy permission set may read (tests/chart/routing_test.ts checks it).
*/}}
{{- define "ouroboros.routesDir" -}}
/etc/ouroboros/routes
{{- end -}}

{{/*
The controller's routing arguments (routing.enabled), the Deployment's and the etc-hosts DaemonSet's
alike, and the `helm test` doctor's (it takes the controller's flags, and reads the table where the
controller writes it): publish the table in this release's ConfigMap, in the release namespace (where
the proxy mounts it), with the PROXY version the proxy itself sends (proxy.proxyProtocol) as every
backend's default.
*/}}
{{- define "ouroboros.controllerRoutesArgs" -}}
{{- if .Values.routing.enabled }}
- --routes
- --routes-configmap={{ include "ouroboros.routesConfigmap" . }}
- --routes-namespace={{ .Release.Namespace }}
- --routes-proxy-protocol={{ .Values.proxy.proxyProtocol }}
{{- end }}
{{- end -}}

{{/* The rewrite target: a baked FQDN when the cluster domain is given, else runtime composition. */}}
{{- define "ouroboros.proxyTargetArgs" -}}
{{- if include "ouroboros.clusterDomain" . }}
- --proxy-fqdn={{ include "ouroboros.proxyFqdn" . }}
{{- else }}
- --proxy-service-name={{ include "ouroboros.proxyFullname" . }}
- --proxy-service-namespace={{ .Release.Namespace }}
{{- end }}
{{- end -}}

{{/* The Deployment's mode-specific arguments. */}}
{{- define "ouroboros.controllerModeArgs" -}}
{{- $mode := include "ouroboros.mode" . -}}
{{- if eq $mode "coredns" }}
- --coredns-namespace={{ .Values.controller.coredns.namespace }}
- --coredns-configmap={{ .Values.controller.coredns.configmap }}
- --coredns-key={{ .Values.controller.coredns.key }}
{{- include "ouroboros.proxyTargetArgs" . }}
{{- else if eq $mode "coredns-import" }}
- --coredns-import-namespace={{ .Values.controller.corednsImport.namespace }}
- --coredns-import-configmap={{ .Values.controller.corednsImport.configmap }}
- --coredns-import-key={{ .Values.controller.corednsImport.key }}
{{- /*
Always, not only when they differ from the binary's defaults: the start-up check reads the Corefile
at exactly these coordinates, the ones role-coredns.yaml grants get on, and the doctor reads it too.
*/}}
- --coredns-namespace={{ .Values.controller.coredns.namespace }}
- --coredns-configmap={{ .Values.controller.coredns.configmap }}
- --coredns-key={{ .Values.controller.coredns.key }}
{{- include "ouroboros.proxyTargetArgs" . }}
{{- else if eq $mode "external-dns" }}
{{- $e := .Values.externalDns }}
- --external-dns-namespace={{ include "ouroboros.externalDnsNamespace" . }}
- --external-dns-record-ttl={{ $e.recordTTL }}
- --external-dns-proxy-service={{ include "ouroboros.externalDnsProxyService" . }}
- --external-dns-output={{ default "crd" $e.output }}
- --external-dns-annotation-prefix={{ default "external-dns.alpha.kubernetes.io/" $e.annotationPrefix }}
{{- with $e.proxyIP }}
- --external-dns-proxy-ip={{ . }}
{{- end }}
{{- range $key, $value := $e.annotations }}
- {{ printf "--external-dns-annotation=%s=%v" $key $value | quote }}
{{- end }}
{{- range $key, $value := $e.labels }}
- {{ printf "--external-dns-label=%s=%v" $key $value | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
The pod annotations: prometheus.io scrape annotations for /metrics on `port` (when
metrics.podAnnotations), overridden by the operator's own. Call with (list $ port podAnnotations).
*/}}
{{- define "ouroboros.podAnnotations" -}}
{{- $root := index . 0 -}}
{{- $annotations := dict -}}
{{- if $root.Values.metrics.podAnnotations -}}
{{- $_ := set $annotations "prometheus.io/scrape" "true" -}}
{{- $_ := set $annotations "prometheus.io/port" (toString (index . 1)) -}}
{{- $_ := set $annotations "prometheus.io/path" "/metrics" -}}
{{- end -}}
{{- $annotations = merge (deepCopy (index . 2 | default dict)) $annotations -}}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Liveness and readiness probes on the container port named "health". */}}
{{- define "ouroboros.probes" -}}
livenessProbe:
  httpGet:
    path: /healthz
    port: health
  initialDelaySeconds: 5
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: health
  initialDelaySeconds: 2
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 3
{{- end -}}

{{/* The pod's imagePullSecrets field, or nothing. */}}
{{- define "ouroboros.imagePullSecrets" -}}
{{- with .Values.imagePullSecrets -}}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/*
Annotations of a hook object. Call with (list "pre-delete" weight [delete-policy]); the policy
defaults to deleting the object whatever the outcome (RBAC and ServiceAccounts).
*/}}
{{- define "ouroboros.hookAnnotations" -}}
helm.sh/hook: {{ index . 0 }}
helm.sh/hook-weight: {{ index . 1 | quote }}
{{- if eq (len .) 3 }}
helm.sh/hook-delete-policy: {{ index . 2 }}
{{- else }}
helm.sh/hook-delete-policy: hook-succeeded,hook-failed,before-hook-creation
{{- end }}
{{- end -}}

{{/* The ServiceAccount of a hook. Call with a dict: root, name, hook. */}}
{{- define "ouroboros.hookServiceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .name }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "ouroboros.componentLabels" (list .root "cleanup-hook") | nindent 4 }}
  annotations:
    {{- include "ouroboros.hookAnnotations" (list .hook "-10") | nindent 4 }}
{{- end -}}

{{/*
A hook Role and its RoleBinding to the hook's ServiceAccount. Call with a dict: root, name,
namespace, hook, serviceAccount, rules (a YAML list as text).
*/}}
{{- define "ouroboros.hookRole" -}}
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ .name }}
  namespace: {{ .namespace }}
  labels:
    {{- include "ouroboros.componentLabels" (list .root "cleanup-hook") | nindent 4 }}
  annotations:
    {{- include "ouroboros.hookAnnotations" (list .hook "-10") | nindent 4 }}
rules:
  {{- .rules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ .name }}
  namespace: {{ .namespace }}
  labels:
    {{- include "ouroboros.componentLabels" (list .root "cleanup-hook") | nindent 4 }}
  annotations:
    {{- include "ouroboros.hookAnnotations" (list .hook "-10") | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ .serviceAccount }}
    namespace: {{ .root.Release.Namespace }}
{{- end -}}

{{/*
A hook Job running the ouroboros image itself (the same editor, guards and refusals as the running
parts). Failed pods are kept (no hook-failed delete policy on the Job) so `kubectl logs` shows why;
the Job itself is removed 10 minutes after it finishes. Call with a dict: root, name, hook, weight,
serviceAccount, container (its name), args (a list), env (a list of {name, value}, optional),
deadline (seconds, optional, default 120).
*/}}
{{- define "ouroboros.ownHookJob" -}}
{{- $root := .root -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "ouroboros.componentLabels" (list $root "cleanup-hook") | nindent 4 }}
  annotations:
    {{- include "ouroboros.hookAnnotations" (list .hook .weight "hook-succeeded,before-hook-creation") | nindent 4 }}
spec:
  activeDeadlineSeconds: {{ .deadline | default 120 }}
  backoffLimit: 1
  ttlSecondsAfterFinished: 600
  template:
    metadata:
      labels:
        {{- include "ouroboros.componentLabels" (list $root "cleanup-hook") | nindent 8 }}
    spec:
      serviceAccountName: {{ .serviceAccount }}
      restartPolicy: Never
      {{- with include "ouroboros.imagePullSecrets" $root }}
      {{- . | nindent 6 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .container }}
          image: {{ include "ouroboros.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args:
            {{- range .args }}
            - {{ . | quote }}
            {{- end }}
          env:
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            {{- range .env }}
            - name: {{ .name }}
              value: {{ .value | toString | quote }}
            {{- end }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          resources:
            requests:
              cpu: 10m
              memory: 64Mi
            limits:
              cpu: 200m
              memory: 192Mi
{{- end -}}

{{/*
The Gateway API resources the controller and the dns server read with controller.gatewayApi:
Gateways and the plural of each of controller.gatewayApi.routeKinds (HTTPRoute -> httproutes), as
a flow list for an RBAC rule's resources.
*/}}
{{- define "ouroboros.gatewayApiResources" -}}
{{- $resources := list "gateways" -}}
{{- range .Values.controller.gatewayApi.routeKinds -}}
{{- $resources = append $resources (printf "%ss" (lower .)) -}}
{{- end -}}
{{- toJson $resources -}}
{{- end -}}

{{/*
The address every node's hosts file maps the hairpinned names to: etcHosts.proxyIP, else the proxy
Service's pinned proxy.service.clusterIP (so etc-hosts mode installs in one step). Both set must agree.
*/}}
{{- define "ouroboros.etcHostsProxyIP" -}}
{{- $given := .Values.etcHosts.proxyIP -}}
{{- $pinned := .Values.proxy.service.clusterIP -}}
{{- if and $given $pinned (ne $given $pinned) -}}
{{- fail (printf "etcHosts.proxyIP=%s and proxy.service.clusterIP=%s differ: the hosts files would point away from the proxy Service. Set one of them, or both to the same address." $given $pinned) -}}
{{- end -}}
{{- $given | default $pinned -}}
{{- end -}}
