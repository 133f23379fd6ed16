{{- /*
Saved queries (values savedQueries; docs/admin-console.md, "Saved queries").
- console.savedQueries.config: the configuration's saved_queries section as YAML: from
  savedQueries, with the keys of config.saved_queries over it. Refuses (fail) what cannot work:
  the embedded store with more than one replica, Redis without a URL.
- console.savedQueries.values: .Values for the Deployment with the data volume (an emptyDir, or
  the PersistentVolumeClaim) mounted at the data directory, the Redis URL from an existing Secret
  as an environment variable, and strategy Recreate with a claim (one pod opens the file at a time).
*/ -}}
{{- define "console.savedQueries.dataDir" -}}/var/lib/admin-console{{- end -}}

{{- define "console.savedQueries.claimName" -}}
{{- .Values.savedQueries.persistence.existingClaim | default (printf "%s-saved-queries" (include "svc.fullname" .)) -}}
{{- end -}}

{{- define "console.savedQueries.config" -}}
{{- $sq := .Values.savedQueries -}}
{{- $section := dict "store" $sq.store -}}
{{- if eq $sq.store "embedded" -}}
{{- $_ := set $section "path" (printf "%s/saved-queries.redb" (include "console.savedQueries.dataDir" .)) -}}
{{- else if eq $sq.store "redis" -}}
{{- if $sq.redis.existingSecret -}}
{{- $_ := set $section "redis" (dict "url" "${CONSOLE_SAVED_QUERIES_REDIS_URL}") -}}
{{- else if $sq.redis.url -}}
{{- $_ := set $section "redis" (dict "url" $sq.redis.url) -}}
{{- end -}}
{{- else -}}
{{- fail (printf "admin-console: savedQueries.store %v: embedded or redis" $sq.store) -}}
{{- end -}}
{{- $section = mergeOverwrite $section (deepCopy (dig "saved_queries" dict (.Values.config | default dict))) -}}
{{- if and (eq (toString $section.store) "embedded") (gt (int .Values.replicaCount) 1) -}}
{{- fail (printf "admin-console: replicaCount %v with savedQueries.store embedded: the saved queries' file belongs to one pod, so each replica would show different ones. Set savedQueries.store: redis with savedQueries.redis.url (or redis.existingSecret), or replicaCount: 1" .Values.replicaCount) -}}
{{- end -}}
{{- if and (eq (toString $section.store) "redis") (not (dig "redis" "url" "" $section)) -}}
{{- fail "admin-console: savedQueries.store redis needs savedQueries.redis.url or savedQueries.redis.existingSecret" -}}
{{- end -}}
{{- toYaml $section -}}
{{- end -}}

{{- define "console.savedQueries.values" -}}
{{- $values := deepCopy .Values -}}
{{- $sq := .Values.savedQueries -}}
{{- $section := include "console.savedQueries.config" . | fromYaml -}}
{{- if eq (toString $section.store) "embedded" -}}
{{- $volume := dict "name" "saved-queries" "emptyDir" dict -}}
{{- if $sq.persistence.enabled -}}
{{- $volume = dict "name" "saved-queries" "persistentVolumeClaim" (dict "claimName" (include "console.savedQueries.claimName" .)) -}}
{{- $_ := set $values "strategy" (dict "type" "Recreate") -}}
{{- end -}}
{{- $_ := set $values "extraVolumes" (append ($values.extraVolumes | default list) $volume) -}}
{{- $mount := dict "name" "saved-queries" "mountPath" (include "console.savedQueries.dataDir" .) -}}
{{- $_ := set $values "extraVolumeMounts" (append ($values.extraVolumeMounts | default list) $mount) -}}
{{- end -}}
{{- if and (eq (toString $section.store) "redis") $sq.redis.existingSecret -}}
{{- $env := dict "name" "CONSOLE_SAVED_QUERIES_REDIS_URL" "valueFrom" (dict "secretKeyRef" (dict "name" $sq.redis.existingSecret "key" $sq.redis.existingSecretKey)) -}}
{{- $_ := set $values "extraEnv" (append ($values.extraEnv | default list) $env) -}}
{{- end -}}
{{- toYaml $values -}}
{{- end -}}
