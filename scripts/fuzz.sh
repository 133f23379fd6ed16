#!/usr/bin/env bash
# Fuzzes every parser of untrusted input (the cargo-fuzz targets in fuzz/) for a fixed time each.
#
#   bash scripts/fuzz.sh [seconds-per-target] [target...]     (default: 60 s, every target)
#
# Installs cargo-fuzz when it is missing (built with the stable toolchain; fuzzing itself needs
# the nightly one). Each target starts from its committed seeds (fuzz/corpus/<target>) and kept
# regressions (fuzz/regressions/<target>) and grows a working corpus in fuzz/target/corpus
# (git-ignored; shared between runs, which only add to it). Each run logs to its own directory,
# fuzz/target/logs/<time>-<pid>/ (FUZZ_LOG_DIR overrides), so two runs at once (a `make soak` and a
# hand run) do not overwrite each other's logs; artifacts are counted per run the same way. A crash, an oracle failure, a time-out or an out-of-memory input is written to
# fuzz/artifacts/<target>/ and makes the script exit non-zero; keep such an input as a regression
# with `cp fuzz/artifacts/<target>/run-<pid>-crash-… fuzz/regressions/<target>/<name>` once it is fixed.
# One summary line per target: runs, coverage (edges and features), corpus size, crashes.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
    echo "fuzz: seconds per target must be a positive whole number, not '$seconds'" >&2
    exit 2
fi

if ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz: cargo-fuzz needs a nightly toolchain: rustup toolchain install nightly" >&2
    exit 2
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz (stable toolchain)"
    cargo +stable install cargo-fuzz --locked || exit 2
fi

# No sanitizer (safe Rust; twice the runs per second), debug assertions on (overflows panic).
flags=(--sanitizer none --debug-assertions)
if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

echo "fuzz: building ${#targets[@]} targets"
# FUZZ_NO_BUILD=1 reuses the last build (e.g. to fuzz longer while the sources change).
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    cargo +nightly fuzz build "${flags[@]}" || exit 2
fi
# The built binaries run directly: `cargo fuzz run` would rebuild before every target whenever a
# source file changed, and each target must fuzz the same build.
bin_dir="fuzz/target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"

log_dir="${FUZZ_LOG_DIR:-fuzz/target/logs/$(date -u +%Y%m%dT%H%M%SZ)-$$}"
mkdir -p "$log_dir"
echo "fuzz: logs in $log_dir"
failed=()
for target in "${targets[@]}"; do
    corpus="fuzz/target/corpus/$target"
    artifacts="fuzz/artifacts/$target"
    log="$log_dir/$target.log"
    mkdir -p "$corpus" "$artifacts"
    seeds=()
    for dir in "fuzz/corpus/$target" "fuzz/regressions/$target"; do
        [ -d "$dir" ] && seeds+=("$dir")
    done
    dict=()
    [ -f "fuzz/dicts/$target.dict" ] && dict=("-dict=fuzz/dicts/$target.dict")
    # New inputs of this run only: a concurrent run's finds land in the same folder, so this run
    # keeps its own prefix.
    prefix="$artifacts/run-$$-"
    started=$(date +%s)
    "$bin_dir/$target" -artifact_prefix="$prefix" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 "${dict[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1
    status=$?
    elapsed=$(($(date +%s) - started))
    crashes=$(find "$artifacts" -type f -name "run-$$-*" | wc -l)
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    units=$(find "$corpus" -type f | wc -l)
    printf 'fuzz: %-22s runs=%-10s cov=%-6s ft=%-6s corpus=%-6s crashes=%s time=%ss status=%s\n' \
        "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$units" "$crashes" "$elapsed" "$status"
    if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        failed+=("$target")
        grep -m1 -E 'panicked at|ERROR: libFuzzer' -A3 "$log" | sed 's/^/    /'
        echo "    log: $log; inputs: $artifacts/"
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: every target ran ${seconds}s without a crash"
