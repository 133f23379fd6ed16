#!/usr/bin/env bash
# Stages binaries built outside the image for `docker build --build-arg BINARIES=prebuilt`:
#   prebuilt/<service>/bin/<service>   from target/<profile>/<service> ($CARGO_TARGET_DIR if set)
#   prebuilt/<service>/web/            from <service>/web/dist (the web apps' production build)
#   prebuilt/admin-console/data/       empty: the image's data directory (/var/lib/admin-console)
# Usage: scripts/containers/stage-prebuilt.sh [profile]   (default: release, the fat-LTO build)
# Build first: cargo build --profile <profile> --bins, and `npm run build` in each web/ folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:-release}
rm -rf prebuilt
for service in admin-console authproxy ingress-dash kube-test-server; do
  binary=${CARGO_TARGET_DIR:-target}/$profile/$service
  [ -x "$binary" ] || { echo "missing $binary: run cargo build --profile $profile --bins" >&2; exit 1; }
  mkdir -p "prebuilt/$service/bin"
  [ "$service" = admin-console ] && mkdir -p "prebuilt/$service/data"
  cp "$binary" "prebuilt/$service/bin/$service"
  if [ -d "$service/web" ]; then
    [ -f "$service/web/dist/index.html" ] || { echo "missing $service/web/dist: run npm run build in $service/web" >&2; exit 1; }
    cp -r "$service/web/dist" "prebuilt/$service/web"
  fi
done
echo "staged prebuilt/ from ${CARGO_TARGET_DIR:-target}/$profile"
