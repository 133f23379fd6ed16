{{- define "svc.configmap" -}}
{{- $config := merge (deepCopy .Values.config) (include "frontDoor.config" . | fromYaml) -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "svc.fullname" . }}
  labels:
    {{- include "svc.labels" . | nindent 4 }}
data:
  # The service's configuration file, from .Values.config. Secrets stay out of it: reference
  # them as ${NAME}; they come from the Secret as environment variables.
  config.yaml: |
    {{- toYaml $config | nindent 4 }}

{{- end -}}
