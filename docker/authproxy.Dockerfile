# authproxy: Authentication proxy (OIDC, HTTP Basic) in front of a search cluster.
# Build from the repository root: docker build -f docker/authproxy.Dockerfile -t authproxy .
# That builds the binary in the image (release profile, fat LTO). To package
# a binary built outside instead (CI, `make images`), stage it with
# `scripts/containers/stage-prebuilt.sh <profile>` and add `--build-arg BINARIES=prebuilt`: the
# Rust build stages are then skipped (BuildKit builds only the stages the image needs).
# No `# syntax=` line: the engine's built-in Dockerfile front end suffices, so nothing is pulled.
ARG RUST_IMAGE=rust:1.95-slim-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot
# "source" (build here) or "prebuilt" (take prebuilt/<service>/ from the build context).
ARG BINARIES=source

FROM ${RUST_IMAGE} AS build
WORKDIR /src
COPY . .
# Caches keep crates and the target directory between builds; the binary is copied out of the
# cache mount so the next stage can see it.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p authproxy \
    && mkdir -p /out/bin && cp target/release/authproxy /out/bin/authproxy

# The two sources of the artifacts, both laid out as /out/bin/<binary> and /out/web/.
FROM scratch AS source
COPY --from=build /out/ /out/

FROM scratch AS prebuilt
COPY prebuilt/authproxy/ /out/

FROM ${BINARIES} AS artifacts

FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="authproxy" \
      org.opencontainers.image.description="Authentication proxy (OIDC, HTTP Basic) in front of a search cluster" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/search-platform"
COPY --from=artifacts /out/bin/authproxy /usr/local/bin/authproxy
COPY examples/authproxy.yaml /etc/authproxy/config.yaml
# The example configuration listens on ${HOST:-127.0.0.1}; in a container it must be reachable.
ENV HOST=0.0.0.0
# distroless "nonroot" is uid 65532; stated numerically so Kubernetes can verify runAsNonRoot.
USER 65532:65532
EXPOSE 9000
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/authproxy", "--healthcheck", "http://127.0.0.1:9000/healthz"]
ENTRYPOINT ["/usr/local/bin/authproxy"]
CMD ["--config", "/etc/authproxy/config.yaml"]
