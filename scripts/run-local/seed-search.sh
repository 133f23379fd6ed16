#!/usr/bin/env bash
# Seeds `make run`'s search cluster (three OpenSearch nodes) with something to manage: indices
# whose copies spread over the nodes (one with more replicas than nodes, so there is an unassigned
# shard to explain), aliases (`logs` with a write index, `orders-current`), a composable template
# with a component template, a data stream (`events-checkout`, rolled over once, from the
# `events-template` index template with `data_stream`), and a snapshot in the fs repository
# `backups` at LOCATION (a folder under the nodes' path.repo). Usage: seed-search.sh URL LOCATION
set -euo pipefail
url=${1:?usage: seed-search.sh URL LOCATION}
location=${2:?usage: seed-search.sh URL LOCATION}

call() { # method path [json]
  local method=$1 path=$2 body=${3:-}
  if [ -n "$body" ]; then
    curl -fsS -o /dev/null -X "$method" "$url$path" -H 'Content-Type: application/json' -d "$body"
  else
    curl -fsS -o /dev/null -X "$method" "$url$path"
  fi
}

call PUT /_component_template/logs-mappings '{
  "template": {"mappings": {"properties": {
    "@timestamp": {"type": "date"}, "level": {"type": "keyword"}, "message": {"type": "text"},
    "service": {"type": "keyword"}}}},
  "_meta": {"description": "fields of the application logs"}}'
call PUT /_index_template/logs-template '{
  "index_patterns": ["logs-*"], "composed_of": ["logs-mappings"], "priority": 100,
  "template": {"settings": {"number_of_shards": 2, "number_of_replicas": 1}},
  "_meta": {"description": "daily application logs"}}'
call PUT /_index_template/events-template '{
  "index_patterns": ["events-*"], "data_stream": {}, "priority": 100,
  "template": {"settings": {"number_of_shards": 1, "number_of_replicas": 1},
    "mappings": {"properties": {"@timestamp": {"type": "date"}, "kind": {"type": "keyword"}}}},
  "_meta": {"description": "checkout events, a data stream"}}'
call PUT /_data_stream/events-checkout

call PUT /logs-2026.11.23 '{}'
call PUT /logs-2026.11.24 '{}'
call PUT /orders '{"settings": {"number_of_shards": 3, "number_of_replicas": 1},
  "mappings": {"properties": {"customer": {"type": "keyword"}, "total": {"type": "double"},
  "placed_at": {"type": "date"}}}}'
call PUT /orders-archive '{"settings": {"number_of_shards": 1, "number_of_replicas": 1}}'
# Three replicas on three nodes: one copy cannot be placed (see Shards, then explain it).
call PUT /audit-trail '{"settings": {"number_of_shards": 1, "number_of_replicas": 3}}'

call POST /_aliases '{"actions": [
  {"add": {"index": "logs-2026.11.23", "alias": "logs", "is_write_index": false}},
  {"add": {"index": "logs-2026.11.24", "alias": "logs", "is_write_index": true}},
  {"add": {"index": "orders", "alias": "orders-current"}}]}'

bulk=""
for i in $(seq 1 40); do
  day=$((23 + i % 2))
  level=$([ $((i % 7)) = 0 ] && echo error || echo info)
  bulk+="{\"index\":{\"_index\":\"logs-2026.11.$day\"}}"$'\n'
  bulk+="{\"@timestamp\":\"2026-11-${day}T0$((i % 10)):00:00Z\",\"level\":\"$level\",\"service\":\"checkout\",\"message\":\"request $i handled\"}"$'\n'
done
for i in $(seq 1 25); do
  bulk+="{\"index\":{\"_index\":\"orders\",\"_id\":\"o-$i\"}}"$'\n'
  bulk+="{\"customer\":\"c-$((i % 6))\",\"total\":$((i * 7)).5,\"placed_at\":\"2026-11-2$((i % 4))T12:00:00Z\"}"$'\n'
done
for i in $(seq 1 10); do
  bulk+="{\"index\":{\"_index\":\"orders-archive\",\"_id\":\"a-$i\"}}"$'\n'
  bulk+="{\"customer\":\"c-$i\",\"total\":$((i * 3)).0}"$'\n'
done
for i in $(seq 1 12); do
  bulk+="{\"create\":{\"_index\":\"events-checkout\"}}"$'\n'
  bulk+="{\"@timestamp\":\"2026-11-24T1$((i % 10)):00:00Z\",\"kind\":\"$([ $((i % 3)) = 0 ] && echo refund || echo payment)\"}"$'\n'
done
curl -fsS -o /dev/null -X POST "$url/_bulk?refresh=true" -H 'Content-Type: application/x-ndjson' --data-binary "$bulk"
# The second generation: the documents above stay in the first backing index.
call POST /events-checkout/_rollover

call PUT /_snapshot/backups "{\"type\": \"fs\", \"settings\": {\"location\": \"$location\"}}"
call PUT "/_snapshot/backups/orders-nightly?wait_for_completion=true" \
  '{"indices": "orders,orders-archive", "include_global_state": false, "metadata": {"taken_by": "make run"}}'
