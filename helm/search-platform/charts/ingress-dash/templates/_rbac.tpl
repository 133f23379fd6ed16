{{- /* The rules for what ingress-dash reads beside ingresses, from its config: Services and
       EndpointSlices (backends.enabled), TLS Secrets (certificates.read_secrets, opt-in),
       cert-manager Certificates (certificates.cert_manager) and Gateway API HTTPRoutes
       (gateway_api.enabled). A rule for a CRD that is not installed grants nothing and harms
       nothing; discovery needs no rule. */}}
{{- define "ingressDash.featureRules" -}}
{{- $config := .Values.config | default dict -}}
{{- if dig "backends" "enabled" true $config }}
  # Backend Services and their ready endpoints (backends.enabled).
  - apiGroups: [""]
    resources: ["services"]
    verbs: ["get", "list", "watch"]
  - apiGroups: ["discovery.k8s.io"]
    resources: ["endpointslices"]
    verbs: ["get", "list", "watch"]
{{- end }}
{{- if dig "certificates" "read_secrets" false $config }}
  # TLS Secrets (certificates.read_secrets: true): only kubernetes.io/tls ones are asked for
  # and only tls.crt is read, but RBAC cannot narrow a rule to a Secret type.
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["get", "list", "watch"]
{{- end }}
{{- if dig "certificates" "cert_manager" true $config }}
  # cert-manager Certificates (certificates.cert_manager), where cert-manager is installed.
  - apiGroups: ["cert-manager.io"]
    resources: ["certificates"]
    verbs: ["get", "list", "watch"]
{{- end }}
{{- if dig "gateway_api" "enabled" true $config }}
  # Gateway API HTTPRoutes, GRPCRoutes and TLSRoutes (gateway_api.enabled), where the Gateway
  # API serves them; the details panel reads their events and YAML too.
  - apiGroups: ["gateway.networking.k8s.io"]
    resources: ["httproutes", "grpcroutes", "tlsroutes"]
    verbs: ["get", "list", "watch"]
  # ReferenceGrants, listed on demand by an HTTPRoute's diagnosis (its cross-namespace
  # backendRefs), and Gateways, listed on demand by the Hosts view (the listeners each route
  # attaches to); never watched.
  - apiGroups: ["gateway.networking.k8s.io"]
    resources: ["referencegrants", "gateways"]
    verbs: ["list"]
{{- end }}
{{- end -}}
