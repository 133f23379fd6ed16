{{/* An optional NetworkPolicy for the service's pods (networkPolicy.enabled, off by default).
     Ingress: the ingress controller (every route, and authproxy's forward-auth check) and
     Prometheus (/_metrics), both on the http port, plus networkPolicy.extraIngress. Egress: DNS
     (networkPolicy.dns), each named group of networkPolicy.egress (its ports, to its `to` peers,
     or to any address when `to` is empty; a group without ports is left out) and
     networkPolicy.extraEgress. Nothing else goes in or out. */}}
{{- define "svc.networkpolicy" -}}
{{- $policy := .Values.networkPolicy | default dict -}}
{{- if $policy.enabled }}
{{- $sources := list -}}
{{- range $name := list "ingressController" "prometheus" -}}
{{- with get $policy $name }}{{ $sources = append $sources . }}{{ end -}}
{{- end }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "svc.fullname" . }}
  labels:
    {{- include "svc.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "svc.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    {{- if $sources }}
    - from:
        {{- toYaml $sources | nindent 8 }}
      ports:
        - port: http
          protocol: TCP
    {{- end }}
    {{- with $policy.extraIngress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  egress:
    {{- if $policy.dns }}
    - ports:
        - {port: 53, protocol: UDP}
        - {port: 53, protocol: TCP}
    {{- end }}
    {{- range $name, $group := ($policy.egress | default dict) }}
    {{- if and $group $group.ports }}
    # {{ $name }}
    - ports:
        {{- toYaml $group.ports | nindent 8 }}
      {{- with $group.to }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- end }}
    {{- with $policy.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{- end -}}
