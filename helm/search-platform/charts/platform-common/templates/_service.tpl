{{- define "svc.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "svc.fullname" . }}
  labels:
    {{- include "svc.labels" . | nindent 4 }}
spec:
  type: {{ .Values.service.type }}
  ports:
    - name: http
      port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
    # The internal listener (/_metrics; authproxy's forward_auth check): the ServiceMonitor and
    # the ingress controller's auth sub-request use it; never an Ingress backend.
    - name: internal
      port: {{ .Values.service.internalPort | default .Values.internalContainerPort }}
      targetPort: internal
      protocol: TCP
  selector:
    {{- include "svc.selectorLabels" . | nindent 4 }}

{{- end -}}
