{{/* The NetworkPolicy for the service's pods: networkPolicy.enabled true, or unset while the
     service believes identity headers (or answers the check) from the network (svc.networkPolicyOn).
     Ingress: the ingress controller on the http port (and authproxy's internal port: the
     forward-auth check), Prometheus on the internal port (/_metrics), plus
     networkPolicy.extraIngress. Egress: DNS
     (networkPolicy.dns), each named group of networkPolicy.egress (its ports, to its `to` peers,
     or to any address when `to` is empty; a group without ports is left out) and
     networkPolicy.extraEgress. Nothing else goes in or out. */}}
{{- define "svc.networkpolicy" -}}
{{- $policy := .Values.networkPolicy | default dict -}}
{{- if include "svc.networkPolicyOn" . }}
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
    {{- with $policy.ingressController }}
    - from:
        {{- toYaml (list .) | nindent 8 }}
      ports:
        - port: http
          protocol: TCP
        {{- if eq $.Chart.Name "authproxy" }}
        - port: internal
          protocol: TCP
        {{- end }}
    {{- end }}
    {{- with $policy.prometheus }}
    - from:
        {{- toYaml (list .) | nindent 8 }}
      ports:
        - port: internal
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
