#!/usr/bin/env bash
# Builds the Kubernetes tools pinned in versions.env from source, out of the Go module proxy, with
# the wrapper modules in scripts/kube-tools/<tool>/ (go.mod + go.sum pin every dependency): each
# into .cache/kube/<tool>-<version>, one static executable, skipping what is there. Also copies
# the Gateway API CRDs of the sigs.k8s.io/gateway-api module (config/crd/) into
# .cache/kube/gateway-api-<version>/{standard,experimental}-install.yaml. Uses the default
# GOMODCACHE; a cold build of all four took 15 min on 2 cores (kube-apiserver 8.5 of them), adding
# about 1.6 GB to the module cache and a few GB to the Go build cache; .cache/kube is 245 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../versions.env
. ./versions.env

log() { printf '==> %s\n' "$*"; }
cache=$PWD/.cache/kube
mkdir -p "$cache"
export GOFLAGS="-trimpath -buildvcs=false -mod=readonly"
export CGO_ENABLED=0

# build TOOL VERSION REQUIREMENT PACKAGE LDFLAGS: `go build PACKAGE` inside
# scripts/kube-tools/TOOL, whose go.mod must hold REQUIREMENT ("MODULE vX.Y.Z"), so that a version
# changed in versions.env alone fails here instead of building the old one under the new name.
build() {
  local tool=$1 version=$2 requirement=$3 package=$4 ldflags=$5
  local target="$cache/$tool-$version" dir=scripts/kube-tools/$tool
  if [ -x "$target" ]; then
    log "$tool $version present"
    return
  fi
  if ! grep -Eq "^(require)?[[:space:]]*$requirement( // indirect)?\$" "$dir/go.mod"; then
    echo "$dir/go.mod does not require $requirement (versions.env); update it" >&2
    exit 1
  fi
  local started=$SECONDS
  (cd "$dir" && go build -ldflags "-s -w $ldflags" -o "$target.tmp" "$package")
  mv "$target.tmp" "$target"
  log "$tool $version built in $((SECONDS - started)) s ($(du -h "$target" | cut -f1))"
}

# What hack/lib/version.sh stamps, so `kubectl version` and /version tell the pinned release.
kube_ldflags() {
  local version=$1 minor flags="" package
  minor=$(cut -d. -f2 <<<"$version")
  for package in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    flags+=" -X $package.gitVersion=v$version -X $package.gitMajor=1 -X $package.gitMinor=$minor"
    flags+=" -X $package.gitTreeState=clean"
  done
  printf '%s' "$flags"
}

kube_ldflags=$(kube_ldflags "$KUBERNETES_VERSION")
build kube-apiserver "$KUBERNETES_VERSION" "k8s.io/kubernetes v$KUBERNETES_VERSION" . "$kube_ldflags"
# kubectl is built from its published staging module, k8s.io/kubectl v0.<minor>.<patch>.
build kubectl "$KUBERNETES_VERSION" "k8s.io/kubectl v0.${KUBERNETES_VERSION#1.}" . "$kube_ldflags"
build etcd "$ETCD_VERSION" "go.etcd.io/etcd/server/v3 v$ETCD_VERSION" . ""
build helm "$HELM_VERSION" "helm.sh/helm/v3 v$HELM_VERSION" helm.sh/helm/v3/cmd/helm \
  "-X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"

crds="$cache/gateway-api-$GATEWAY_API_VERSION"
if [ -f "$crds/standard-install.yaml" ] && [ -f "$crds/experimental-install.yaml" ]; then
  log "gateway-api $GATEWAY_API_VERSION CRDs present"
else
  dir=$(go mod download -json "sigs.k8s.io/gateway-api@v$GATEWAY_API_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir/config/crd/standard" ] || { echo "no config/crd/standard in $dir" >&2; exit 1; }
  mkdir -p "$crds.tmp"
  for channel in standard experimental; do
    for file in "$dir/config/crd/$channel"/*.yaml; do
      [ "$(basename "$file")" = kustomization.yaml ] && continue
      printf -- '---\n# %s\n' "$(basename "$file")"
      cat "$file"
    done >"$crds.tmp/$channel-install.yaml"
  done
  rm -rf "$crds" && mv "$crds.tmp" "$crds"
  log "gateway-api $GATEWAY_API_VERSION CRDs copied"
fi
