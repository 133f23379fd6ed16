#!/usr/bin/env bash
# Builds the Kubernetes tools pinned in versions.env from source, out of the Go module proxy, with
# the wrapper modules in scripts/kube-tools/<tool>/ (go.mod + go.sum pin every dependency): each
# into .cache/kube/<tool>-<version>, one static executable, skipping what is there. Also copies
# the Gateway API CRDs of the sigs.k8s.io/gateway-api module (config/crd/) into
# .cache/kube/gateway-api-<version>/{standard,experimental}-install.yaml, Traefik's CRDs of the
# github.com/traefik/traefik/v3 module into .cache/kube/traefik-crds-<version>/crds.yaml and the
# prometheus-operator's ServiceMonitor CRD of its module into
# .cache/kube/prometheus-operator-crds-<version>/servicemonitors.yaml. Uses the default
# GOMODCACHE; a cold build of all four took 15 min on 2 cores (kube-apiserver 8.5 of them), adding
# about 1.6 GB to the module cache and a few GB to the Go build cache (emptied after a build when
# CI is set); .cache/kube is 245 MB.
set -euo pipefail
# shellcheck source=lib/go-build.sh
. "$(dirname "$0")/lib/go-build.sh" kube

built=no
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
  built=yes
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

# module_dir MODULE VERSION: the module's folder in the module cache, downloaded from the proxy.
module_dir() {
  go mod download -json "$1@v$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

# copy_crds NAME VERSION MODULE TARGET FILE...: the upstream CRD files FILE... (paths inside the
# module) concatenated into .cache/kube/NAME-VERSION/TARGET, once.
copy_crds() {
  local name=$1 version=$2 module=$3 target=$4 dir file
  shift 4
  local folder="$cache/$name-$version"
  if [ -f "$folder/$target" ]; then
    log "$name $version present"
    return
  fi
  dir=$(module_dir "$module" "$version")
  mkdir -p "$folder.tmp"
  for file in "$@"; do
    [ -f "$dir/$file" ] || { echo "no $file in $module@v$version ($dir)" >&2; exit 1; }
    printf -- '---\n# %s\n' "$file"
    cat "$dir/$file"
  done >"$folder.tmp/$target"
  rm -rf "$folder" && mv "$folder.tmp" "$folder"
  log "$name $version copied"
}

# The chart's Traefik front door renders a Middleware (traefik.io/v1alpha1): every Traefik CRD,
# as Traefik's documentation installs them.
copy_crds traefik-crds "$TRAEFIK_VERSION" github.com/traefik/traefik/v3 crds.yaml \
  docs/content/reference/dynamic-configuration/kubernetes-crd-definition-v1.yml
# The chart's serviceMonitor.enabled renders ServiceMonitors (monitoring.coreos.com/v1).
copy_crds prometheus-operator-crds "$PROMETHEUS_OPERATOR_VERSION" \
  github.com/prometheus-operator/prometheus-operator servicemonitors.yaml \
  example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml

# CI builds once on a clean machine and the tools are kept in .cache/kube: Go's build cache (3-4 GB
# after kube-apiserver) would only take the disk the Rust build needs next, so CI empties it.
if [ -n "${CI:-}" ] && [ "$built" = yes ]; then
  log "CI: emptying Go's build cache ($(du -sh "$(go env GOCACHE)" 2>/dev/null | cut -f1))"
  go clean -cache
fi
