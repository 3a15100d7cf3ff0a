{{/* Name of every object. */}}
{{- define "tfjob-operator.fullname" -}}
{{- default .Chart.Name .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels the Deployment selects on (as config/manager). */}}
{{- define "tfjob-operator.selectorLabels" -}}
app.kubernetes.io/name: tfjob-operator
app.kubernetes.io/component: controller
{{- end -}}

{{/* Labels of every object: config/default's, plus Helm's own. */}}
{{- define "tfjob-operator.labels" -}}
app.kubernetes.io/part-of: tfjob-operator
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
{{- end -}}

{{/* The rules of a ClusterRole shipped in config/ (files/ links to it, so the two never differ). */}}
{{- define "tfjob-operator.rulesOf" -}}
{{- $role := .Files.Get .file | fromYaml -}}
{{- toYaml $role.rules -}}
{{- end -}}
