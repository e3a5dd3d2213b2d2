{{/*
Chart name, truncated to the 63 characters a DNS label allows.
*/}}
{{- define "sluice.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name `<release>-<chart>` (or just the release when it already contains the chart name).
Truncated to 52 characters: StatefulSet pods add `-<ordinal>` and the controller a revision hash.
*/}}
{{- define "sluice.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "sluice.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every resource.
*/}}
{{- define "sluice.labels" -}}
helm.sh/chart: {{ include "sluice.chart" . }}
{{ include "sluice.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: sluice
{{- end }}

{{/*
Labels that select the grid's pods. Never change them: a StatefulSet's selector is immutable.
*/}}
{{- define "sluice.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sluice.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Headless Service: member discovery (Kubernetes DNS) and stable pod names.
*/}}
{{- define "sluice.headlessServiceName" -}}
{{- printf "%s-members" (include "sluice.fullname" .) }}
{{- end }}

{{/*
Fully qualified DNS name of the headless Service.
*/}}
{{- define "sluice.headlessServiceDns" -}}
{{- printf "%s.%s.svc.%s" (include "sluice.headlessServiceName" .) .Release.Namespace .Values.cluster.clusterDomain }}
{{- end }}

{{- define "sluice.clusterName" -}}
{{- default (include "sluice.fullname" .) .Values.cluster.name }}
{{- end }}

{{/*
ServiceAccount the pods run as. kubernetes-api discovery always gets one of its own.
*/}}
{{- define "sluice.createServiceAccount" -}}
{{- if or .Values.serviceAccount.create (eq .Values.cluster.discovery "kubernetes-api") }}true{{ end }}
{{- end }}

{{- define "sluice.serviceAccountName" -}}
{{- if include "sluice.createServiceAccount" . }}
{{- default (include "sluice.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Secret holding the admin token, or nothing when running insecure without a token.
*/}}
{{- define "sluice.adminSecretName" -}}
{{- if .Values.auth.existingSecret }}
{{- .Values.auth.existingSecret }}
{{- else if or .Values.auth.adminToken (not .Values.auth.insecure) }}
{{- printf "%s-admin" (include "sluice.fullname" .) }}
{{- end }}
{{- end }}

{{- define "sluice.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/*
The rules file: rulesYaml verbatim, else the structured `rules` list.
*/}}
{{- define "sluice.rulesFile" -}}
{{- if .Values.rulesYaml }}
{{- .Values.rulesYaml }}
{{- else }}
{{- dict "rules" .Values.rules | toYaml }}
{{- end }}
{{- end }}

{{/*
tcp-ip member list: the explicit list, else every StatefulSet pod by its stable DNS name.
*/}}
{{- define "sluice.tcpIpMembers" -}}
{{- if .Values.cluster.members }}
{{- join "," .Values.cluster.members }}
{{- else }}
{{- $members := list }}
{{- range $i, $e := until (int .Values.replicaCount) }}
{{- $members = append $members (printf "%s-%d.%s:%d" (include "sluice.fullname" $) $i (include "sluice.headlessServiceDns" $) (int $.Values.member.port)) }}
{{- end }}
{{- join "," $members }}
{{- end }}
{{- end }}

{{/*
PromQL label matchers for this release's nodes as the ServiceMonitor scrapes them (the client
Service's endpoints), or metrics.prometheusRule.selector when set.
*/}}
{{- define "sluice.metricSelector" -}}
{{- if .Values.metrics.prometheusRule.selector }}
{{- .Values.metrics.prometheusRule.selector }}
{{- else }}
{{- printf "namespace=\"%s\", service=\"%s\"" .Release.Namespace (include "sluice.fullname" .) }}
{{- end }}
{{- end }}
