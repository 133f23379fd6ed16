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
{{- $server := get $config "server" | default dict -}}
{{- if not (hasKey $server "internal_port") -}}{{- $_ := set $server "internal_port" .Values.internalContainerPort -}}{{- end -}}
{{- $_ := set $config "server" $server -}}
{{- /* ingress-dash's watchNamespaces: its RBAC is then a Role in each of them and nothing
       cluster-wide, so the service must watch exactly those (kubernetes.namespaces), or its
       cluster-wide lists and readiness check (a list of namespaces) are refused with 403. */ -}}
{{- with (get .Values "watchNamespaces") -}}
{{- $kubernetes := get $config "kubernetes" | default dict -}}
{{- if not (hasKey $kubernetes "namespaces") -}}{{- $_ := set $kubernetes "namespaces" . -}}{{- end -}}
{{- $_ := set $config "kubernetes" $kubernetes -}}
{{- end -}}
{{- if and (eq (dig "access" "mode" "" $config | toString) "trusted_headers") (empty (dig "server" "trusted_proxies" list $config)) -}}
{{- fail (printf "%s: access.mode trusted_headers with an empty server.trusted_proxies would answer every request with 401: leave %s.config.server.trusted_proxies unset (global.frontDoor.trustedProxies, else loopback for kubectl port-forward), list the addresses that set the identity headers, or set %s.config.access.mode: open explicitly" .Chart.Name .Chart.Name .Chart.Name) -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}

{{/* "true" when the service believes identity headers (trusted_headers), or answers authproxy's
     forward_auth check, from an address other than loopback: then whatever can reach its pods
     from those ranges may claim any identity, so its NetworkPolicy is rendered. */}}
{{- define "svc.trustsNetwork" -}}
{{- $config := include "svc.config" . | fromYaml -}}
{{- $server := $config.server | default dict -}}
{{- $believes := or (eq (dig "access" "mode" "" $config | toString) "trusted_headers") (and (eq .Chart.Name "authproxy") (eq ($server.mode | default "forward_auth" | toString) "forward_auth")) -}}
{{- if $believes -}}
{{- range ($server.trusted_proxies | default list) -}}
{{- if not (has (toString .) (list "127.0.0.1" "127.0.0.1/32" "::1" "::1/128")) -}}true{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "true" when the NetworkPolicy is rendered: networkPolicy.enabled true, or unset (null) while
     the service trusts the network (svc.trustsNetwork); false there is refused. */}}
{{- define "svc.networkPolicyOn" -}}
{{- $enabled := (.Values.networkPolicy | default dict).enabled -}}
{{- if eq (toString $enabled) "true" -}}true
{{- else if include "svc.trustsNetwork" . -}}
{{- if eq (toString $enabled) "false" -}}
{{- fail (printf "%s: networkPolicy.enabled: false while it believes identity headers (or answers the forward_auth check) from %v: any pod in those ranges could claim any identity. Leave %s.networkPolicy.enabled unset (the policy admits only the ingress controller and Prometheus) or true" .Chart.Name (dig "server" "trusted_proxies" list (include "svc.config" . | fromYaml)) .Chart.Name) -}}
{{- end -}}true
{{- end -}}
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
