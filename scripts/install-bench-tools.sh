#!/usr/bin/env bash
# Builds the peers the benchmarks compare against, pinned in versions.env, from source out of the
# Go module proxy (`go install MODULE@VERSION`: the module's own go.mod and go.sum pin every
# dependency) into .cache/bench/<tool>-<version>, skipping what is there. Not part of `make test`
# (no test needs them): `cargo bench -p authproxy --bench peers` runs it first.
#   oauth2-proxy (MIT): authproxy's anchor in bench/authproxy/results.md.
set -euo pipefail
# shellcheck source=lib/go-build.sh
. "$(dirname "$0")/lib/go-build.sh" bench

# install TOOL VERSION PACKAGE LDFLAGS: `go install PACKAGE@vVERSION` into
# .cache/bench/TOOL-VERSION.
install() {
  local tool=$1 version=$2 package=$3 ldflags=$4
  local target="$cache/$tool-$version"
  if [ -x "$target" ]; then
    log "$tool $version present"
    return
  fi
  local started=$SECONDS bin
  bin=$(mktemp -d "$cache/.gobin.XXXXXX")
  GOBIN=$bin go install -ldflags "-s -w $ldflags" "$package@v$version"
  mv "$bin"/* "$target.tmp"
  rmdir "$bin"
  mv "$target.tmp" "$target"
  log "$tool $version built in $((SECONDS - started)) s ($(du -h "$target" | cut -f1))"
}

# The version its release builds stamp (`oauth2-proxy --version`).
install oauth2-proxy "$OAUTH2_PROXY_VERSION" github.com/oauth2-proxy/oauth2-proxy/v7 \
  "-X github.com/oauth2-proxy/oauth2-proxy/v7/pkg/version.VERSION=v$OAUTH2_PROXY_VERSION"
