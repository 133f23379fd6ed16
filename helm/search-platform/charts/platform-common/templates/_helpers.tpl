{{- define "svc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "svc.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "svc.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "svc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "svc.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "svc.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: search-platform
{{- end -}}

{{- define "svc.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "svc.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}


{{/* The Secret the pod reads its environment from, if any: an existing one, or the chart's own
     when secret.env has entries. */}}
{{- define "svc.secretName" -}}
{{- if .Values.secret.existingSecret -}}
{{- .Values.secret.existingSecret -}}
{{- else if and .Values.secret.create .Values.secret.env -}}
{{- include "svc.fullname" . -}}
{{- end -}}
{{- end -}}

{{/* The front door (global.frontDoor): admin-console and ingress-dash behind authproxy's
     forward_auth through the ingress controller (ingress-nginx annotations or a Traefik
     ForwardAuth Middleware). docs/access-control.md, "The front door". */}}
{{- define "frontDoor.values" -}}
{{- $global := .Values.global | default dict -}}
{{- toYaml ($global.frontDoor | default dict) -}}
{{- end -}}

{{/* "true" when the front door is on and this chart is one of the applications behind it. */}}
{{- define "frontDoor.protects" -}}
{{- $frontDoor := include "frontDoor.values" . | fromYaml -}}
{{- if and $frontDoor.enabled (has .Chart.Name (list "admin-console" "ingress-dash")) -}}true{{- end -}}
{{- end -}}

{{/* authproxy's full name in this release (its chart's default naming). */}}
{{- define "frontDoor.authproxyName" -}}
{{- $frontDoor := include "frontDoor.values" . | fromYaml -}}
{{- if $frontDoor.authproxyName -}}
{{- $frontDoor.authproxyName -}}
{{- else if contains "authproxy" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-authproxy" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The forward-auth address the ingress controller calls: authproxy's internal port (the
     check is served nowhere else). */}}
{{- define "frontDoor.checkUrl" -}}
{{- $frontDoor := include "frontDoor.values" . | fromYaml -}}
{{- $frontDoor.authproxyUrl | default (printf "http://%s.%s.svc.cluster.local:%v/auth/check" (include "frontDoor.authproxyName" .) .Release.Namespace ($frontDoor.authproxyPort | default 9001)) -}}
{{- end -}}

{{/* The Traefik Middleware's name (rendered by the authproxy chart). */}}
{{- define "frontDoor.middlewareName" -}}
{{- printf "%s-forward-auth" (include "frontDoor.authproxyName" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The Ingress annotations that put this application behind authproxy, as YAML (empty when
     the front door is off or this chart is not behind it). */}}
{{- define "frontDoor.ingressAnnotations" -}}
{{- if include "frontDoor.protects" . -}}
{{- $frontDoor := include "frontDoor.values" . | fromYaml -}}
{{- if eq ($frontDoor.controller | default "nginx") "traefik" -}}
traefik.ingress.kubernetes.io/router.middlewares: {{ printf "%s-%s@kubernetescrd" .Release.Namespace (include "frontDoor.middlewareName" .) | quote }}
{{- else -}}
nginx.ingress.kubernetes.io/auth-url: {{ include "frontDoor.checkUrl" . | quote }}
nginx.ingress.kubernetes.io/auth-signin: {{ printf "%s/auth/start?rd=$scheme://$host$escaped_request_uri" (required "global.frontDoor.signInUrl is required with global.frontDoor.enabled (authproxy's public URL, e.g. https://auth.example.com)" $frontDoor.signInUrl | trimSuffix "/") | quote }}
nginx.ingress.kubernetes.io/auth-response-headers: "X-Auth-Request-User,X-Auth-Request-Email,X-Auth-Request-Groups"
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Whom admin-console and ingress-dash believe the identity headers from, as a JSON list:
     global.frontDoor.trustedProxies, else loopback only (kubectl port-forward reaches the pod
     from 127.0.0.1 or ::1; nothing on the network does). */}}
{{- define "access.trustedProxies" -}}
{{- $frontDoor := include "frontDoor.values" . | fromYaml -}}
{{- toJson ($frontDoor.trustedProxies | default (list "127.0.0.1/32" "::1/128")) -}}
{{- end -}}

{{/* Configuration keys the chart sets (a key the chart's config gives wins), as YAML.
     admin-console and ingress-dash are secure by default, front door or not: access.mode
     trusted_headers, believing the identity headers only from access.trustedProxies (a request
     without them from there gets 401). With the front door on, authproxy answers forward_auth
     from the ingress controller and scopes its session cookie to cookieDomain. */}}
{{- define "frontDoor.config" -}}
{{- $frontDoor := include "frontDoor.values" . | fromYaml -}}
{{- if $frontDoor.enabled -}}
{{- $_ := required "global.frontDoor.trustedProxies is required with global.frontDoor.enabled: the ingress controller's pod CIDR, e.g. [10.42.0.0/16] (docs/access-control.md, \"The front door\")" $frontDoor.trustedProxies -}}
{{- end -}}
{{- if has .Chart.Name (list "admin-console" "ingress-dash") -}}
server:
  trusted_proxies: {{ include "access.trustedProxies" . }}
access:
  mode: trusted_headers
{{- else if and $frontDoor.enabled (eq .Chart.Name "authproxy") -}}
server:
  mode: forward_auth
  front_proxy: {{ $frontDoor.controller | default "nginx" }}
  trusted_proxies: {{ toJson $frontDoor.trustedProxies }}
{{- with $frontDoor.cookieDomain }}
session:
  cookie_domain: {{ . | quote }}
{{- end }}
{{- end -}}
{{- end -}}
