{{/*
Names, labels and the argument lists shared by the templates. Every object name fits 63 characters,
whatever the release name: Kubernetes refuses longer Service, Job and DaemonSet names.
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
"<fullname>-<suffix>" cut to 63 characters by shortening the full name, never the suffix.
Call with (list $ "suffix").
*/}}
{{- define "ouroboros.suffixed" -}}
{{- $root := index . 0 -}}
{{- $suffix := index . 1 -}}
{{- $base := include "ouroboros.fullname" $root | trunc (int (sub 62 (len $suffix))) | trimSuffix "-" -}}
{{- printf "%s-%s" $base $suffix -}}
{{- end -}}

{{/* The proxy Deployment and Service. */}}
{{- define "ouroboros.proxyFullname" -}}
{{- include "ouroboros.suffixed" (list . "proxy") -}}
{{- end -}}

{{/* The etc-hosts DaemonSet. */}}
{{- define "ouroboros.etcHostsFullname" -}}
{{- include "ouroboros.suffixed" (list . "etc-hosts") -}}
{{- end -}}

{{/*
Name of RBAC objects outside the release namespace (cluster-wide, or in the CoreDNS or records
namespace): "<release namespace>:<fullname>[-suffix]", so two releases of the same name in different
namespaces never claim the same object. Call with (list $ "suffix"); "" for no suffix.
*/}}
{{- define "ouroboros.foreignName" -}}
{{- $root := index . 0 -}}
{{- $suffix := index . 1 -}}
{{- $base := printf "%s:%s" $root.Release.Namespace (include "ouroboros.fullname" $root) -}}
{{- if $suffix -}}{{- printf "%s-%s" $base $suffix -}}{{- else -}}{{- $base -}}{{- end -}}
{{- end -}}

{{- define "ouroboros.serviceAccountName" -}}
{{- default (include "ouroboros.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "ouroboros.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object. No component here: selectors add it, so hook pods never match a Deployment. */}}
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

{{/* Labels of one component's objects. Call with (list $ "component"). */}}
{{- define "ouroboros.componentLabels" -}}
{{ include "ouroboros.labels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/* The ouroboros image. */}}
{{- define "ouroboros.image" -}}
{{- printf "%s:%s" .Values.image.repository (toString (default .Chart.AppVersion .Values.image.tag)) -}}
{{- end -}}

{{/* A hook image from {repository, tag}. */}}
{{- define "ouroboros.hookImage" -}}
{{- printf "%s:%s" .repository (toString .tag) -}}
{{- end -}}

{{/*
The controller's mode: etc-hosts when etcHosts.enabled, otherwise controller.mode. Refuses the
combinations the binary would refuse, with the value to change.
*/}}
{{- define "ouroboros.mode" -}}
{{- $mode := default "coredns" .Values.controller.mode -}}
{{- if .Values.etcHosts.enabled -}}
etc-hosts
{{- else if eq $mode "etc-hosts" -}}
{{- fail "controller.mode=etc-hosts runs as a DaemonSet: set etcHosts.enabled=true (and etcHosts.proxyIP) instead." -}}
{{- else -}}
{{- $mode -}}
{{- end -}}
{{- end -}}

{{/* Whether a controller (Deployment or DaemonSet) is rendered: "true" or "". */}}
{{- define "ouroboros.controllerRendered" -}}
{{- if or .Values.etcHosts.enabled .Values.controller.enabled -}}true{{- end -}}
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
Arguments every controller gets, Deployment and DaemonSet alike: mode, resync, logging, health,
and the source filters.
*/}}
{{- define "ouroboros.controllerCommonArgs" -}}
{{- $c := .Values.controller -}}
{{- if and $c.gatewayClass (not $c.gatewayApi.enabled) -}}
{{- fail (printf "controller.gatewayClass=%s filters Gateways, but controller.gatewayApi.enabled is false, so no Gateway is watched: set controller.gatewayApi.enabled=true or drop controller.gatewayClass." $c.gatewayClass) -}}
{{- end }}
- controller
- --mode={{ include "ouroboros.mode" . }}
- --resync={{ $c.resync }}
- --log-level={{ $c.logLevel }}
- --log-format={{ $c.logFormat }}
- --listen-health=:{{ $c.healthPort }}
- --ingress-hosts={{ $c.ingressHosts }}
{{- if $c.gatewayApi.enabled }}
- --gateway-api
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

{{/* The rewrite target: baked FQDN when the cluster domain is given, else runtime composition. */}}
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

{{/* prometheus.io scrape annotations for a pod serving /metrics on `port`. Call with (list $ port). */}}
{{- define "ouroboros.scrapeAnnotations" -}}
{{- if (index . 0).Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ index . 1 | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- end -}}

{{/* Liveness and readiness probes on the named health port. */}}
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

{{/* The pod's imagePullSecrets field, or nothing. Use with `with`, then nindent. */}}
{{- define "ouroboros.imagePullSecrets" -}}
{{- with .Values.imagePullSecrets -}}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/*
Hook object names: "<fullname>-<suffix>" within 63 characters. Call with (list $ "suffix").
*/}}
{{- define "ouroboros.hookName" -}}
{{- include "ouroboros.suffixed" . -}}
{{- end -}}

{{/* Annotations of a hook object. Call with (list "pre-delete" weight). */}}
{{- define "ouroboros.hookAnnotations" -}}
helm.sh/hook: {{ index . 0 }}
helm.sh/hook-weight: {{ index . 1 | quote }}
{{- if eq (len .) 3 }}
helm.sh/hook-delete-policy: {{ index . 2 }}
{{- else }}
helm.sh/hook-delete-policy: hook-succeeded,hook-failed,before-hook-creation
{{- end }}
{{- end -}}

{{/*
A hook Job running scripts from the hook's script ConfigMap with kubectl. Failed pods are kept
(no hook-failed delete policy on the Job) so `kubectl logs` shows why. Call with a dict:
root, name, hook, weight, serviceAccount, configMap, image ({repository, tag, pullPolicy}),
scripts (list of file names run in order), env (list of {name, value}).
*/}}
{{- define "ouroboros.hookJob" -}}
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
  activeDeadlineSeconds: {{ default 120 .deadline }}
  backoffLimit: 1
  ttlSecondsAfterFinished: 600
  template:
    metadata:
      labels:
        {{- include "ouroboros.selectorLabels" (list $root "cleanup-hook") | nindent 8 }}
    spec:
      serviceAccountName: {{ .serviceAccount }}
      restartPolicy: Never
      {{- with include "ouroboros.imagePullSecrets" $root }}
      {{- . | nindent 6 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      containers:
        - name: cleanup
          image: {{ include "ouroboros.hookImage" .image }}
          imagePullPolicy: {{ .image.pullPolicy }}
          command:
            - /bin/sh
            - -c
            - |
              set -eu
              {{- range .scripts }}
              sh /scripts/{{ . }}
              {{- end }}
          env:
            - name: HOME
              value: /tmp
            {{- range .env }}
            - name: {{ .name }}
              value: {{ .value | quote }}
            {{- end }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          resources:
            requests:
              cpu: 10m
              memory: 32Mi
            limits:
              cpu: 200m
              memory: 128Mi
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            - name: scripts
              mountPath: /scripts
              readOnly: true
      volumes:
        - name: tmp
          emptyDir: {}
        - name: scripts
          configMap:
            name: {{ .configMap }}
{{- end -}}

{{/* The hook's script ConfigMap. Call with a dict: root, name, hook, scripts (file names). */}}
{{- define "ouroboros.hookScripts" -}}
{{- $root := .root -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "ouroboros.componentLabels" (list $root "cleanup-hook") | nindent 4 }}
  annotations:
    {{- include "ouroboros.hookAnnotations" (list .hook "-10") | nindent 4 }}
data:
  {{- range .scripts }}
  {{ . }}: |
    {{- $root.Files.Get (printf "scripts/%s" .) | nindent 4 }}
  {{- end }}
{{- end -}}
