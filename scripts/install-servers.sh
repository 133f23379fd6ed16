#!/usr/bin/env bash
# Fetches the search servers pinned in versions.env (Maven Central, through mvn) into
# .cache/servers/, unpacked, skipping what is there; as root, also makes the unprivileged user
# they run as (OpenSearch and Elasticsearch refuse to run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../versions.env
. ./versions.env

log() { printf '==> %s\n' "$*"; }
cache=.cache/servers
mkdir -p "$cache"

# fetch NAME GROUP:ARTIFACT VERSION: the zip of GROUP:ARTIFACT:VERSION unpacked to
# $cache/NAME-VERSION (the zip's single top folder renamed), once.
fetch() {
  local name=$1 artifact=$2 version=$3
  local target="$cache/$name-$version"
  if [ -d "$target" ]; then
    log "$name $version present"
    return
  fi
  command -v mvn >/dev/null || { echo "mvn is needed to fetch $name (apt-get install maven)" >&2; exit 1; }
  log "$name $version from Maven ($artifact)"
  local scratch
  scratch=$(mktemp -d "$cache/.fetch.XXXXXX")
  mvn --batch-mode --quiet -Dstyle.color=never dependency:copy -Dartifact="$artifact:$version:zip" \
    -DoutputDirectory="$scratch" -Dmdep.stripVersion=false >/dev/null
  (cd "$scratch" && unzip -q ./*.zip && rm ./*.zip)
  local top
  top=$(find "$scratch" -mindepth 1 -maxdepth 1 -type d | head -1)
  mv "$top" "$target"
  rm -rf "$scratch"
}

fetch opensearch "$OPENSEARCH_2_ARTIFACT" "$OPENSEARCH_2_VERSION"
fetch elasticsearch "$ELASTICSEARCH_7_ARTIFACT" "$ELASTICSEARCH_7_VERSION"

if [ "$(id -u)" -eq 0 ] && ! id "$SEARCH_SERVER_USER" >/dev/null 2>&1; then
  log "user $SEARCH_SERVER_USER (the search servers refuse to run as root)"
  useradd --system --no-create-home --shell /usr/sbin/nologin "$SEARCH_SERVER_USER"
fi
