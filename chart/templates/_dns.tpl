{{/*
Names, checks, arguments and RBAC rules of `ouroboros dns` (the dns.* values). Its objects carry the
component label "dns" and share no name, ServiceAccount or Role with the controller's. The hostname
sources and their filters, the cluster domain and (when dns.logLevel/logFormat are empty) the log
settings come from controller.*, so one values file drives both.
*/}}

{{/* The Deployment, Service, PDB and NetworkPolicy: "<fullname>-dns". */}}
{{- define "ouroboros.dnsName" -}}
{{- include "ouroboros.suffixed" (list . "dns") -}}
{{- end -}}

{{/* "<fullname>-dns-<suffix>" within 63 characters. Call with (list $ "suffix"). */}}
{{- define "ouroboros.dnsSuffixed" -}}
{{- include "ouroboros.suffixed" (list (index . 0) (printf "dns-%s" (index . 1))) -}}
{{- end -}}

{{/*
A dns RBAC object in namespace `ns`: "<fullname>-dns[-suffix]" in the release namespace,
"<release namespace>:<fullname>-dns[-suffix]" anywhere else and cluster-wide (ns ""), so two
releases never claim one object. Call with (list $ "suffix" ns); "" for no suffix.
*/}}
{{- define "ouroboros.dnsRbacName" -}}
{{- $root := index . 0 -}}
{{- $name := include "ouroboros.dnsName" $root -}}
{{- if index . 1 -}}
{{- $name = include "ouroboros.dnsSuffixed" (list $root (index . 1)) -}}
{{- end -}}
{{- if eq (index . 2) $root.Release.Namespace -}}
{{- $name -}}
{{- else -}}
{{- printf "%s:%s" $root.Release.Namespace $name -}}
{{- end -}}
{{- end -}}

{{- define "ouroboros.dnsServiceAccountName" -}}
{{- $sa := .Values.dns.serviceAccount -}}
{{- if $sa.create -}}
{{- default (include "ouroboros.dnsName" .) $sa.name -}}
{{- else -}}
{{- default "default" $sa.name -}}
{{- end -}}
{{- end -}}

{{/* par's namespace: dns.parNamespace, or the release namespace. */}}
{{- define "ouroboros.dnsParNamespace" -}}
{{- default .Release.Namespace .Values.dns.parNamespace -}}
{{- end -}}

{{- define "ouroboros.dnsLogLevel" -}}
{{- default .Values.controller.logLevel .Values.dns.logLevel -}}
{{- end -}}

{{- define "ouroboros.dnsLogFormat" -}}
{{- default .Values.controller.logFormat .Values.dns.logFormat -}}
{{- end -}}

{{/*
What `ouroboros dns` would refuse or could not do, refused at render time with a message naming
the values: hairpin answers without this release's proxy Service, and a Gateway class filter
without Gateway API (the controller's own rule, checked here too for a release without a
controller). Renders nothing.
*/}}
{{- define "ouroboros.checkDns" -}}
{{- $d := .Values.dns -}}
{{- $c := .Values.controller -}}
{{- if and $d.hairpin (not .Values.proxy.enabled) -}}
{{- fail "dns.hairpin=true answers the hairpinned hostnames with this release's proxy Service, but proxy.enabled=false renders none: set proxy.enabled=true, or dns.hairpin=false to answer only par Records." -}}
{{- end -}}
{{- if and $d.hairpin $c.gatewayClass (not $c.gatewayApi.enabled) -}}
{{- fail (printf "controller.gatewayClass=%s filters Gateways, but controller.gatewayApi.enabled is false, so no Gateway is watched (the dns server would refuse to start): set controller.gatewayApi.enabled=true or drop controller.gatewayClass." $c.gatewayClass) -}}
{{- end -}}
{{- end -}}

{{/*
The container's arguments: listeners, answers, the hostname sources (controller.*, only with
hairpin), the Services it reads, the opt-ins, the cluster domain and logging.
*/}}
{{- define "ouroboros.dnsArgs" -}}
{{- $d := .Values.dns -}}
{{- $c := .Values.controller }}
- dns
- --listen-dns=:5353
- --listen-health=:8084
{{- with $d.upstream }}
- --upstream={{ . }}
{{- end }}
- --ttl={{ $d.ttl }}
- --max-udp-size={{ $d.maxUdpSize }}
- --upstream-timeout={{ $d.upstreamTimeout }}
- --cache-size={{ $d.cacheSize }}
- --tcp-idle-timeout={{ $d.tcpIdleTimeout }}
{{- with $d.clientSelector }}
- {{ printf "--client-selector=%s" . | quote }}
{{- end }}
- --hairpin={{ $d.hairpin }}
{{- if $d.hairpin }}
{{- if $c.gatewayApi.enabled }}
- --gateway-api
- --gateway-route-kinds={{ join "," $c.gatewayApi.routeKinds }}
{{- end }}
- --ingress-hosts={{ $c.ingressHosts }}
- --wildcards={{ $c.wildcards }}
{{- with $c.ingressClass }}
- --ingress-class={{ . }}
{{- end }}
{{- with $c.gatewayClass }}
- --gateway-class={{ . }}
{{- end }}
- --proxy-service-name={{ include "ouroboros.proxyFullname" . }}
- --proxy-service-namespace={{ .Release.Namespace }}
{{- end }}
- --dns-service-name={{ include "ouroboros.dnsName" . }}
- --dns-service-namespace={{ .Release.Namespace }}
- --par-namespace={{ include "ouroboros.dnsParNamespace" . }}
{{- if $d.manageWorkloads }}
- --manage-workloads
{{- end }}
{{- if $d.manageProxyConfig }}
- --manage-proxy-config
{{- end }}
{{- with (include "ouroboros.clusterDomain" .) }}
- --cluster-domain={{ . }}
{{- end }}
- --log-level={{ include "ouroboros.dnsLogLevel" . }}
- --log-format={{ include "ouroboros.dnsLogFormat" . }}
{{- end -}}

{{/*
Cluster-wide rules: the client pods (any namespace, and par's proxy pods), the Records (any
namespace), the hostname sources (only with hairpin; Gateways and the route kinds of
controller.gatewayApi.routeKinds only with controller.gatewayApi.enabled), and the Deployments it points at itself (only with
dns.manageWorkloads: a Records entry in any namespace may match them). Reads are list and watch
only, here and below: every object is kept by a watch, none is fetched with get.
*/}}
{{- define "ouroboros.dnsClusterRules" -}}
{{- $d := .Values.dns -}}
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
- apiGroups: ["dns.par.dev"]
  resources: ["records"]
  verbs: ["list", "watch"]
{{- if $d.hairpin }}
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["list", "watch"]
{{- if .Values.controller.gatewayApi.enabled }}
- apiGroups: ["gateway.networking.k8s.io"]
  resources: {{ include "ouroboros.gatewayApiResources" . }}
  verbs: ["list", "watch"]
{{- end }}
{{- end }}
{{- if $d.manageWorkloads }}
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["list", "watch", "patch"]
{{- end }}
{{- end -}}

{{/*
The release namespace: the two Services read by name (watched with a fieldSelector, which
resourceNames still narrows): the proxy Service (hairpin answers, only with hairpin) and this
server's own (its ClusterIPs are what patched workloads and par's proxy config point at).
*/}}
{{- define "ouroboros.dnsServiceRules" -}}
- apiGroups: [""]
  resources: ["services"]
  resourceNames:
    {{- if .Values.dns.hairpin }}
    - {{ include "ouroboros.proxyFullname" . | quote }}
    {{- end }}
    - {{ include "ouroboros.dnsName" . | quote }}
  verbs: ["list", "watch"]
{{- end -}}

{{/*
par's namespace: its proxy Service (found by its pods' label, so not by name), and with
dns.manageProxyConfig the proxy ConfigMap (found by label, re-rendered) and the proxy Deployment
(found by label, restarted through a pod-template annotation).
*/}}
{{- define "ouroboros.dnsParRules" -}}
- apiGroups: [""]
  resources: ["services"]
  verbs: ["list", "watch"]
{{- if .Values.dns.manageProxyConfig }}
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["list", "watch", "update", "patch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["list", "watch", "patch"]
{{- end }}
{{- end -}}

{{/* The selector labels of the dns pods. */}}
{{- define "ouroboros.dnsSelectorLabels" -}}
{{- include "ouroboros.selectorLabels" (list . "dns") -}}
{{- end -}}
