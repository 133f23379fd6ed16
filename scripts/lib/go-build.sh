# shellcheck shell=bash
# Sourced by the scripts that build Go tools pinned in versions.env from the Go module proxy
# (install-kube.sh, install-bench-tools.sh), with the name of their folder under .cache/ as its
# argument: moves to the repository root, loads versions.env, sets `cache` (that folder, made if
# missing), `log` and the Go settings of a reproducible static build.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=../../versions.env
. ./versions.env

log() { printf '==> %s\n' "$*"; }
cache=$PWD/.cache/$1
mkdir -p "$cache"
export GOFLAGS="-trimpath -buildvcs=false -mod=readonly"
export CGO_ENABLED=0
