# The two commands of the README are `make run` and `make test`; the rest are their parts.
.PHONY: run test deps build fmt lint

run:     ## build and start all three services with their local dependencies
	scripts/run-local.sh

test:    ## install what is missing, then fmt check, clippy, every Rust and front-end test
	scripts/test.sh

deps:    ## install Debian packages, the Python venv and npm packages, skipping what is there
	scripts/install-deps.sh

build:
	cargo build --workspace --release

fmt:
	cargo fmt --all

lint:
	cargo clippy --workspace --all-targets -- -D warnings
