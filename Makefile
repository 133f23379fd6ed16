# The two commands of the README are `make run` and `make test`; the rest are their parts.
.PHONY: run test deps build fmt lint images containers soak wire-types bench-ingress-dash

# Binaries packaged by `make images`: release is the shipped build (fat LTO, about 10 minutes
# cold on 2 cores); `make images PROFILE=fast` packages the quick build instead.
PROFILE ?= release
IMAGE_TAG ?= latest
# The second scale of `make bench-ingress-dash` (the first is always 10,000 ingresses).
SCALE ?= 50000

run:     ## build (dev profile) and start all three services with their local dependencies; Ctrl+C stops all
	scripts/run-local.sh

test:    ## install what is missing, then fmt check, clippy, every Rust, front-end and container test
	scripts/test.sh

deps:    ## install Debian packages, the Python venv and npm packages, skipping what is there
	scripts/install-deps.sh

build:   ## the shipped binaries: release profile, fat LTO
	cargo build --workspace --release

images:  ## the four images from binaries built here (no Rust or Node image needed): docker build --build-arg BINARIES=prebuilt
	cargo build --profile $(PROFILE) --locked --bins -p admin-console -p authproxy -p ingress-dash -p kube-test-server
	for web in admin-console/web ingress-dash/web; do (cd $$web && npm run build --silent) || exit 1; done
	scripts/containers/stage-prebuilt.sh $(PROFILE)
	for image in admin-console authproxy ingress-dash kube-test-server; do \
	  docker build -f docker/$$image.Dockerfile --build-arg BINARIES=prebuilt -t $$image:$(IMAGE_TAG) . || exit 1; \
	done

containers: ## the container test alone (its own engine; needs the `fast` binaries and the web builds)
	cargo build --profile fast --locked --bins -p admin-console -p authproxy -p ingress-dash -p kube-test-server
	.venv/bin/python scripts/containers/test.py

wire-types: ## regenerate the web apps' TypeScript wire types (src/api/wire.ts) from the Rust types
	UPDATE_WIRE_TYPES=1 cargo test -p admin-console -p ingress-dash wire_types

soak:    ## not in `make test`: every service under load with its real dependencies, the long faults, fuzzing; SOAK_MINUTES=1 for a quick run; writes bench/soak/results.md
	.venv/bin/python scripts/soak/run.py

bench-ingress-dash: ## not in `make test`: ingress-dash at 10,000 and SCALE (50,000) ingresses + as many EndpointSlices side by side: memory, snapshot, SSE latency, first render in Chromium (the `fast` profile)
	cd ingress-dash/web && npm run build --silent
	BENCH_SCALES=10000,$(SCALE) cargo bench --profile fast -p ingress-dash --bench dashboard

fmt:
	cargo fmt --all

lint:
	cargo clippy --workspace --all-targets -- -D warnings
