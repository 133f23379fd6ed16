{{- define "svc.secret" -}}
{{- if and .Values.secret.create .Values.secret.env (not .Values.secret.existingSecret) }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "svc.fullname" . }}
  labels:
    {{- include "svc.labels" . | nindent 4 }}
type: Opaque
stringData:
  {{- range $name, $value := .Values.secret.env }}
  {{ $name }}: {{ $value | quote }}
  {{- end }}
{{- end }}

{{- end -}}
