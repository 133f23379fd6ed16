{{/* The service's configuration, as YAML: .Values.config, plus each key the chart sets
     (frontDoor.config) that it does not set itself. A key the operator sets wins even when it
     is empty (merge would overwrite an empty list). Refuses trusted_headers with nobody
     trusted: every request would get 401. */}}
{{- define "svc.config" -}}
{{- $config := deepCopy (.Values.config | default dict) -}}
{{- range $section, $defaults := (include "frontDoor.config" . | fromYaml) -}}
{{- $own := get $config $section | default dict -}}
{{- range $key, $value := $defaults -}}
{{- if not (hasKey $own $key) -}}{{- $_ := set $own $key $value -}}{{- end -}}
{{- end -}}
{{- $_ := set $config $section $own -}}
{{- end -}}
{{- if and (eq (dig "access" "mode" "" $config | toString) "trusted_headers") (empty (dig "server" "trusted_proxies" list $config)) -}}
{{- fail (printf "%s: access.mode trusted_headers with an empty server.trusted_proxies would answer every request with 401: leave %s.config.server.trusted_proxies unset (global.frontDoor.trustedProxies, else loopback for kubectl port-forward), list the addresses that set the identity headers, or set %s.config.access.mode: open explicitly" .Chart.Name .Chart.Name .Chart.Name) -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}

{{- define "svc.configmap" -}}
{{- $config := include "svc.config" . | fromYaml -}}
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
