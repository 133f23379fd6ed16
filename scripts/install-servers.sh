#!/usr/bin/env bash
# Fetches the search servers pinned in versions.env (Maven Central, through mvn) into
# .cache/servers/, unpacked, skipping what is there, and makes the secured OpenSearch (the
# security plugin installed offline, its demo configuration applied); as root, also makes the
# unprivileged user they run as (OpenSearch and Elasticsearch refuse to run as root).
# `install-servers.sh --make-run` fetches only what `make run` starts (OpenSearch 2) and the user.
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
  log "$name $version from Maven ($artifact)"
  local scratch
  scratch=$(mktemp -d "$cache/.fetch.XXXXXX")
  download "$artifact" "$version" "$scratch"
  (cd "$scratch" && unzip -q ./*.zip && rm ./*.zip)
  local top
  top=$(find "$scratch" -mindepth 1 -maxdepth 1 -type d | head -1)
  mv "$top" "$target"
  rm -rf "$scratch"
}

# download GROUP:ARTIFACT VERSION DIR: the zip of GROUP:ARTIFACT:VERSION into DIR.
download() {
  command -v mvn >/dev/null || { echo "mvn is needed to fetch $1 (apt-get install maven)" >&2; exit 1; }
  mvn --batch-mode --quiet -Dstyle.color=never dependency:copy -Dartifact="$1:$2:zip" \
    -DoutputDirectory="$3" -Dmdep.stripVersion=false >/dev/null
}

# secure_opensearch: $cache/opensearch-<version>-security, once: a copy of the fetched
# distribution with the security plugin installed offline and its demo configuration applied
# (TLS on both layers with the demo CA in config/root-ca.pem, the security index initialised on
# first start, the admin's password generated into admin-password). Made in a scratch folder and
# renamed at the end, so a half-made one never counts as present.
secure_opensearch() {
  local version=$OPENSEARCH_2_SECURED_VERSION plugin=$OPENSEARCH_SECURITY_PLUGIN_VERSION
  local target="$cache/opensearch-$version-security"
  if [ -d "$target" ]; then
    log "opensearch $version with security $plugin present"
    return
  fi
  case $plugin in
    "$version".*) ;;
    *) echo "the security plugin $plugin does not match OpenSearch $version" >&2; exit 1 ;;
  esac
  log "opensearch $version with the security plugin $plugin ($OPENSEARCH_SECURITY_PLUGIN_ARTIFACT)"
  local scratch home output password
  scratch=$(mktemp -d "$cache/.secure.XXXXXX")
  download "$OPENSEARCH_SECURITY_PLUGIN_ARTIFACT" "$plugin" "$scratch"
  home="$scratch/opensearch"
  cp -a "$cache/opensearch-$version" "$home"
  local -x OPENSEARCH_JAVA_HOME=$OPENSEARCH_2_SECURED_JAVA_HOME
  output=$("$home/bin/opensearch-plugin" install --batch "file:$(realpath "$scratch"/*.zip)" 2>&1) ||
    { echo "$output" >&2; exit 1; }
  # The installer wants a strong password (upper and lower case, digits, a symbol, zxcvbn).
  password="$(openssl rand -base64 18 | tr -d '/+=')-Aa1"
  output=$(OPENSEARCH_INITIAL_ADMIN_PASSWORD=$password \
    bash "$home/plugins/opensearch-security/tools/install_demo_configuration.sh" -y -i -s 2>&1) ||
    { echo "$output" >&2; exit 1; }
  printf '%s\n' "$password" >"$home/admin-password"
  # The plugin warns about configuration readable by others.
  chmod 700 "$home/config"
  chmod 600 "$home"/config/*.pem "$home/admin-password"
  mv "$home" "$target"
  rm -rf "$scratch"
}

# es_plugin HOME SOURCE NAME CLASS DESCRIPTION DEST: the one-class plugin in SOURCE (a file of
# test-support/elasticsearch/) compiled against the Elasticsearch in HOME (its own lib/) and
# written as plugin NAME (jar and descriptor) into the folder DEST.
es_plugin() {
  local home=$1 source=$2 name=$3 class=$4 description=$5 dest=$6
  local version=$ELASTICSEARCH_8_SECURED_VERSION java=$ELASTICSEARCH_8_SECURED_JAVA_HOME/bin
  [ -x "$java/javac" ] || {
    echo "$java/javac is needed to build the $name plugin (apt-get install openjdk-17-jdk-headless)" >&2
    exit 1
  }
  local classes
  classes=$(mktemp -d "$cache/.classes.XXXXXX")
  mkdir -p "$dest"
  "$java/javac" -nowarn --release 17 -cp "$home/lib/*" -d "$classes" "$source"
  "$java/jar" --create --file "$dest/$name.jar" -C "$classes" .
  rm -rf "$classes"
  cat >"$dest/plugin-descriptor.properties" <<EOF
description=$description
version=$version
name=$name
classname=$class
java.version=17
elasticsearch.version=$version
EOF
}

# secure_elasticsearch: $cache/elasticsearch-<version>-security, once: a copy of the fetched
# Elasticsearch 8 with x-pack security switched on in config/elasticsearch.yml (the native realm,
# HTTPS with the certificates the harness puts into config/certs/ at each start) and the plugin
# test-support/elasticsearch/SecurityIndexAnalysis.java compiled against the distribution's own
# lib/ and installed: the integ-test zip lacks analysis-common, whose `pattern_capture`, `unique`
# and `uax_url_email` the `.security` index's mapping asks for (without them every user or role
# write answers 400). The harness bootstraps the `elastic` password into the keystore.
secure_elasticsearch() {
  local version=$ELASTICSEARCH_8_SECURED_VERSION
  local target="$cache/elasticsearch-$version-security"
  if [ -d "$target" ]; then
    log "elasticsearch $version with security present"
    return
  fi
  log "elasticsearch $version with security (and the security index's analysis components)"
  local scratch home
  scratch=$(mktemp -d "$cache/.secure.XXXXXX")
  home="$scratch/elasticsearch"
  cp -a "$cache/elasticsearch-$version" "$home"
  es_plugin "$home" test-support/elasticsearch/SecurityIndexAnalysis.java security-index-analysis \
    authproxy.test.analysis.SecurityIndexAnalysis \
    "pattern_capture, unique and uax_url_email for the security index (tests only)" \
    "$home/plugins/security-index-analysis"
  cat >>"$home/config/elasticsearch.yml" <<'EOF'

# Made by scripts/install-servers.sh: x-pack security with the native realm, HTTPS only. The
# harness writes config/certs/ (a CA of its own) and bootstrap.password into the keystore.
xpack.security.enabled: true
xpack.security.http.ssl.enabled: true
xpack.security.http.ssl.certificate: certs/server.pem
xpack.security.http.ssl.key: certs/server-key.pem
xpack.security.http.ssl.certificate_authorities: certs/ca.pem
EOF
  mv "$home" "$target"
  rm -rf "$scratch"
}

# elasticsearch_root_info: the plugin test-support/elasticsearch/RootInfo.java, compiled against
# the secured Elasticsearch 8's own lib/ and installed into it as plugins/root-info, once: the
# integ-test zip lacks the rest-root module, so without it `GET /` answers 405. Made in a scratch
# folder and moved in at the end, so a half-made one never counts as present.
elasticsearch_root_info() {
  local version=$ELASTICSEARCH_8_SECURED_VERSION
  local home="$cache/elasticsearch-$version-security"
  if [ -d "$home/plugins/root-info" ]; then
    log "elasticsearch $version GET / plugin present"
    return
  fi
  log "elasticsearch $version GET / plugin (the zip has no rest-root module)"
  local scratch
  scratch=$(mktemp -d "$cache/.root-info.XXXXXX")
  es_plugin "$home" test-support/elasticsearch/RootInfo.java root-info authproxy.test.root.RootInfo \
    "GET / with the node's name, cluster and version (tests only; no rest-root module)" \
    "$scratch/root-info"
  mv "$scratch/root-info" "$home/plugins/root-info"
  rm -rf "$scratch"
}

# make_user: as root, the unprivileged user the search servers run as, once.
make_user() {
  if [ "$(id -u)" -eq 0 ] && ! id "$SEARCH_SERVER_USER" >/dev/null 2>&1; then
    log "user $SEARCH_SERVER_USER (the search servers refuse to run as root)"
    useradd --system --no-create-home --shell /usr/sbin/nologin "$SEARCH_SERVER_USER"
  fi
}

fetch opensearch "$OPENSEARCH_2_ARTIFACT" "$OPENSEARCH_2_VERSION"
if [ "${1:-}" = --make-run ]; then
  make_user
  exit 0
fi
fetch elasticsearch "$ELASTICSEARCH_7_ARTIFACT" "$ELASTICSEARCH_7_VERSION"
fetch opensearch "$OPENSEARCH_2_SECURED_ARTIFACT" "$OPENSEARCH_2_SECURED_VERSION"
fetch opensearch "$OPENSEARCH_3_ARTIFACT" "$OPENSEARCH_3_VERSION"
secure_opensearch
fetch elasticsearch "$ELASTICSEARCH_8_SECURED_ARTIFACT" "$ELASTICSEARCH_8_SECURED_VERSION"
secure_elasticsearch
elasticsearch_root_info

make_user
scripts/install-kube.sh
