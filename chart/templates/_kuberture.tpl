{{/*
Names, checks and arguments of `ouroboros kuberture` (the kuberture.* values). Its objects carry
the component label "kuberture" and never share a name, ServiceAccount or Role with the
controller's.
*/}}

{{/*
"true" when kuberture runs: kuberture.enabled when it is a boolean, otherwise (null, the default)
exactly when config.outputs lists an output, so the cozystack package's values turn it on alone.
*/}}
{{- define "ouroboros.kubertureOn" -}}
{{- $k := .Values.kuberture -}}
{{- if kindIs "bool" $k.enabled -}}
{{- if $k.enabled }}true{{ end -}}
{{- else if $k.config.outputs -}}
true
{{- end -}}
{{- end -}}

{{/* The object name: kuberture.fullnameOverride, or "<fullname>-kuberture". */}}
{{- define "ouroboros.kubertureName" -}}
{{- if .Values.kuberture.fullnameOverride -}}
{{- .Values.kuberture.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- include "ouroboros.suffixed" (list . "kuberture") -}}
{{- end -}}
{{- end -}}

{{/* "<kuberture name>-<suffix>" within 63 characters. Call with (list $ "suffix"). */}}
{{- define "ouroboros.kubertureSuffixed" -}}
{{- $root := index . 0 -}}
{{- $suffix := index . 1 -}}
{{- $base := include "ouroboros.kubertureName" $root | trunc (int (sub 62 (len $suffix))) | trimSuffix "-" -}}
{{- printf "%s-%s" $base $suffix -}}
{{- end -}}

{{/*
A kuberture RBAC object in namespace `ns`: "<kuberture name>-<suffix>" in the release namespace,
"<release namespace>:<kuberture name>-<suffix>" anywhere else (and cluster-wide, ns ""), so two
releases never claim one object. Call with (list $ "suffix" ns).
*/}}
{{- define "ouroboros.kubertureRbacName" -}}
{{- $root := index . 0 -}}
{{- $name := include "ouroboros.kubertureSuffixed" (list $root (index . 1)) -}}
{{- if eq (index . 2) $root.Release.Namespace -}}
{{- $name -}}
{{- else -}}
{{- printf "%s:%s" $root.Release.Namespace $name -}}
{{- end -}}
{{- end -}}

{{/*
The instance (KUBERTURE_INSTANCE, the kuberture/instance label on the Services it writes), named as
kuberture's chart names its release: fullnameOverride; else the release name when it contains
"kuberture" (or nameOverride); else "<release>-kuberture". A release that replaces a kuberture
release of the same name therefore owns the Services kuberture wrote.
*/}}
{{- define "ouroboros.kubertureInstance" -}}
{{- $k := .Values.kuberture -}}
{{- if $k.fullnameOverride -}}
{{- $k.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default "kuberture" $k.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ouroboros.kubertureServiceAccountName" -}}
{{- $sa := .Values.kuberture.serviceAccount -}}
{{- if $sa.create -}}
{{- default (include "ouroboros.kubertureName" .) $sa.name -}}
{{- else -}}
{{- default "default" $sa.name -}}
{{- end -}}
{{- end -}}

{{/*
The image: kuberture.image.*, each empty field taken from image.* (and the appVersion); the chart's own
image, digest included, when kuberture.image names neither a repository nor a tag.
*/}}
{{- define "ouroboros.kubertureImage" -}}
{{- $i := .Values.kuberture.image -}}
{{- if and (not $i.repository) (not $i.tag) -}}
{{- include "ouroboros.image" . -}}
{{- else -}}
{{- $repository := default .Values.image.repository $i.repository -}}
{{- $tag := toString (default (default .Chart.AppVersion .Values.image.tag) $i.tag) -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "ouroboros.kuberturePullPolicy" -}}
{{- default .Values.image.pullPolicy .Values.kuberture.image.pullPolicy -}}
{{- end -}}

{{/* The port of a bind address (":8080", "0.0.0.0:8080", "[::]:8080"), as text. */}}
{{- define "ouroboros.bindPort" -}}
{{- last (splitList ":" .) -}}
{{- end -}}

{{/* "true" when an output resolves addresses through Nodes (a node-* addressSource). */}}
{{- define "ouroboros.kubertureNeedsNodes" -}}
{{- range .Values.kuberture.config.outputs -}}
{{- if hasPrefix "node-" (toString .addressSource) }}true{{ end -}}
{{- end -}}
{{- end -}}

{{/* "true" when an output writes a DNSEndpoint (output: crd). */}}
{{- define "ouroboros.kubertureNeedsCrd" -}}
{{- range .Values.kuberture.config.outputs -}}
{{- if eq (toString .output) "crd" }}true{{ end -}}
{{- end -}}
{{- end -}}

{{/* The Lease's namespace: kuberture.leaderElection.namespace, or the release namespace. */}}
{{- define "ouroboros.kubertureLeaseNamespace" -}}
{{- default .Release.Namespace .Values.kuberture.leaderElection.namespace -}}
{{- end -}}

{{/*
What the binary (or the cluster) would refuse, refused at render time with a message naming the
values: no output while kuberture.enabled=true (the cozystack package's fail-fast rule), more
replicas than one writer without leader election, election durations the elector refuses, one
port for metrics and health, a PodDisruptionBudget that blocks every drain, outputs that share a
name, Service or hostname, and an output Service named like a Service this chart renders. Renders
nothing.
*/}}
{{- define "ouroboros.checkKuberture" -}}
{{- $k := .Values.kuberture -}}
{{- $le := $k.leaderElection -}}
{{- $replicas := int $k.replicaCount -}}
{{- if not $k.config.outputs -}}
{{- fail "kuberture.config.outputs must contain at least one output entry: kuberture.enabled=true, but no output names the DNS records to publish, and a placeholder would publish wrong ones. Add an output ({name, hostname: [...], serviceName}), or set kuberture.enabled=false." -}}
{{- end -}}
{{- if and (gt $replicas 1) (not $le.enabled) -}}
{{- fail (printf "kuberture.replicaCount=%d needs kuberture.leaderElection.enabled=true: without leader election every replica writes the same Services. Set kuberture.leaderElection.enabled=true, or kuberture.replicaCount=1." $replicas) -}}
{{- end -}}
{{- if $le.enabled -}}
{{- $lease := float64 (include "ouroboros.durationMs" $le.leaseDuration) -}}
{{- $renew := float64 (include "ouroboros.durationMs" $le.renewDeadline) -}}
{{- $retry := float64 (include "ouroboros.durationMs" $le.retryPeriod) -}}
{{- if or (le $retry 0.0) (le $renew (mulf $retry 1.2)) (le $lease $renew) -}}
{{- fail (printf "kuberture.leaderElection durations must satisfy leaseDuration > renewDeadline > 1.2 × retryPeriod > 0 (kuberture refuses to start otherwise); got leaseDuration=%s, renewDeadline=%s, retryPeriod=%s. The defaults are 15s, 10s and 2s." $le.leaseDuration $le.renewDeadline $le.retryPeriod) -}}
{{- end -}}
{{- end -}}
{{- $metrics := int (include "ouroboros.bindPort" $k.config.metricsBindAddress) -}}
{{- $health := int (include "ouroboros.bindPort" $k.config.healthProbeBindAddress) -}}
{{- range $key, $port := dict "metricsBindAddress" $metrics "healthProbeBindAddress" $health -}}
{{- if or (lt $port 1) (gt $port 65535) -}}
{{- fail (printf "kuberture.config.%s needs a port from 1 to 65535, got %d." $key $port) -}}
{{- end -}}
{{- end -}}
{{- if eq $metrics $health -}}
{{- fail (printf "kuberture.config.metricsBindAddress and kuberture.config.healthProbeBindAddress both use port %d: kuberture serves /metrics and the probes on two listeners, so give them two ports (the defaults are :8080 and :8081)." $metrics) -}}
{{- end -}}
{{- if and (gt $replicas 1) (not (kindIs "string" $k.pdb.minAvailable)) -}}
{{- if ge (int $k.pdb.minAvailable) $replicas -}}
{{- fail (printf "kuberture.pdb.minAvailable=%d with kuberture.replicaCount=%d would block every node drain: set it below the replica count." (int $k.pdb.minAvailable) $replicas) -}}
{{- end -}}
{{- end -}}
{{- $reserved := dict (include "ouroboros.kubertureSuffixed" (list . "metrics")) "kuberture's metrics Service" -}}
{{- if .Values.proxy.enabled -}}
{{- $_ := set $reserved (include "ouroboros.proxyFullname" .) "the proxy Service" -}}
{{- end -}}
{{- $names := dict -}}
{{- $services := dict -}}
{{- $hosts := dict -}}
{{- range $index, $output := $k.config.outputs -}}
{{- $label := printf "kuberture.config.outputs[%d] (%s)" $index $output.name -}}
{{- with index $names $output.name -}}
{{- fail (printf "%s has the name of %s: output names must be unique." $label .) -}}
{{- end -}}
{{- $_ := set $names $output.name $label -}}
{{- with index $services $output.serviceName -}}
{{- fail (printf "%s writes Service %s, as %s does: service names must be unique." $label $output.serviceName .) -}}
{{- end -}}
{{- $_ := set $services $output.serviceName $label -}}
{{- with index $reserved $output.serviceName -}}
{{- fail (printf "%s writes Service %s, which is %s this chart renders: choose another serviceName." $label $output.serviceName .) -}}
{{- end -}}
{{- range $output.hostname -}}
{{- $host := lower (trimSuffix "." .) -}}
{{- $owner := index $hosts $host -}}
{{- if and $owner (ne $owner $label) -}}
{{- fail (printf "%s publishes hostname %s, as %s does: a hostname belongs to one output." $label $host $owner) -}}
{{- end -}}
{{- $_ := set $hosts $host $label -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The container's arguments: the subcommand, its config file, the log format and leader election
(on unless kuberture.leaderElection.enabled=false, which passes --leader-elect=false because the
binary elects by default, as kuberture does).
*/}}
{{- define "ouroboros.kubertureArgs" -}}
{{- $k := .Values.kuberture -}}
{{- $le := $k.leaderElection }}
- kuberture
- --config=/etc/kuberture/config.yaml
- --log-format={{ $k.logFormat }}
{{- if $le.enabled }}
- --leader-elect
- --leader-election-namespace={{ include "ouroboros.kubertureLeaseNamespace" . }}
- --leader-election-id={{ $le.id }}
- --leader-election-lease-duration={{ $le.leaseDuration }}
- --leader-election-renew-deadline={{ $le.renewDeadline }}
- --leader-election-retry-period={{ $le.retryPeriod }}
{{- else }}
- --leader-elect=false
{{- end }}
{{- end -}}

{{/* The rules of kuberture's Role in the release namespace (see kuberture-rbac.yaml). */}}
{{- define "ouroboros.kubertureMainRules" -}}
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "create", "patch", "delete"]
- apiGroups: ["externaldns.k8s.io"]
  resources: ["dnsendpoints"]
{{- if include "ouroboros.kubertureNeedsCrd" . }}
  verbs: ["get", "list", "create", "patch", "delete"]
{{- else }}
  verbs: ["list", "delete"]
{{- end }}
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get"]
- apiGroups: ["apps"]
  resources: ["replicasets"]
  verbs: ["get"]
{{- end -}}

{{/* The rules of kuberture's Role in the source namespace. */}}
{{- define "ouroboros.kubertureSourceRules" -}}
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["list", "watch"]
{{- end -}}

{{/*
The rules of kuberture's Role in the Lease's namespace: create cannot be narrowed by name (the
object does not exist yet); get, update (renew, take over, release) and watch are narrowed to the
one Lease.
*/}}
{{- define "ouroboros.kubertureLeaseRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  resourceNames: [{{ .Values.kuberture.leaderElection.id | quote }}]
  verbs: ["get", "update", "watch"]
{{- end -}}
