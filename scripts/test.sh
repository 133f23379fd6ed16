#!/usr/bin/env bash
# The whole test run, as CI does it: dependencies, formatting, lints, every test.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
# A cold run writes about 8 GiB under CI (target/ 3.3, Go's module cache 1.3, .cache/ 1.5, images
# and /tmp the rest) and more locally (incremental caches, Go's build cache); a full disk shows up late and
# far from its cause (a failed link, a tar that cannot be written), so say it first.
free_gib() { df -P -BG "$1" | awk 'NR == 2 {sub("G", "", $4); print $4}'; }
# Each step names the free space left, so a run that dies of a full disk shows where it went.
step() {
  printf '\n==> %s (%ss, %s GiB free)\n' "$*" "$(( $(date +%s) - started ))" "$(free_gib .)"
}
for folder in . "${TMPDIR:-/tmp}"; do
  free=$(free_gib "$folder")
  if [ "$free" -lt 10 ]; then
    echo "warning: only ${free} GiB free on the disk of $(cd "$folder" && pwd); a cold make test writes about 8 GiB (more without CI set)" >&2
  fi
done

# CI builds a clean clone once: incremental compilation's caches (3 GiB in target/debug alone)
# would never be read again, so CI goes without them. Local runs keep them.
if [ -n "${CI:-}" ]; then
  export CARGO_INCREMENTAL=0
fi

step "dependencies"
scripts/install-deps.sh

# The real servers the tests start: search servers from Maven, kube-apiserver, etcd, kubectl and
# helm built from the Go module proxy (about 15 minutes on 2 cores the first time, then cached).
step "test servers"
scripts/install-servers.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
# --no-fail-fast: one run shows every failing test binary, not only the first.
cargo test --workspace --locked --no-fail-fast 2>&1 | tee "$results"
rust_passed=$(awk '/^test result:/ {sum += $4} END {print sum + 0}' "$results")

# The browser tests and the packaging checks start the debug binaries; cargo test does not
# always build every binary (kube-test-server), so build them all.
step "cargo build (binaries for the browser tests and packaging checks)"
cargo build --workspace --bins --locked

step "packaging: Dockerfiles, compose, Helm chart"
.venv/bin/python scripts/check-packaging.py

step "front ends: one toolchain version set"; python3 scripts/check_web_toolchain.py
# Front ends: type check, unit tests (Vitest), a production build, then the browser tests.
for dir in */web; do
  [ -f "$dir/package.json" ] || continue
  step "front end in $dir"
  (cd "$dir" && npm run --if-present typecheck && npm test && npm run build && npm run --if-present e2e)
done

# The front door end to end in headless Chromium: nginx + authproxy + the real OpenID provider in
# front of admin-console (viewer refused, operator audited) and ingress-dash (one namespace).
step "front door: sign-in through nginx and authproxy, roles and namespaces (Chromium)"
node scripts/front-door-e2e.mjs

# The images built from docker/*.Dockerfile with the `fast` binaries, run and checked with a
# Docker engine the test starts and stops itself, then the compose stack (scripts/containers/).
step "containers: cargo build --profile fast (the images' binaries)"
cargo build --profile fast --locked --bins -p admin-console -p authproxy -p ingress-dash -p kube-test-server
step "containers: images, single containers, compose stack"
.venv/bin/python scripts/containers/test.py

# make run on a terminal of its own, Ctrl+C typed twice: every process it started must be gone
# when it returns (it uses make run's fixed ports: 8080, 9000, 3000, 9200-9202, 9300-9302, 9090,
# 9114, 6379, 6443, 5556, 8880, 8881).
step "make run: up, then Ctrl+C"
.venv/bin/python scripts/check_run_local.py

step "all tests passed"
echo "tests: ${rust_passed} passed, 0 failed"
