# syntax=docker/dockerfile:1.7
# authproxy: Authentication proxy (OIDC, HTTP Basic) in front of a search cluster.
# Build from the repository root: docker build -f docker/authproxy.Dockerfile -t authproxy .
ARG RUST_IMAGE=rust:1.95-slim-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${RUST_IMAGE} AS build
WORKDIR /src
COPY . .
# Caches keep crates and the target directory between builds; the binary is copied out of the
# cache mount so the next stage can see it.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p authproxy \
    && cp target/release/authproxy /usr/local/bin/authproxy

FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="authproxy" \
      org.opencontainers.image.description="Authentication proxy (OIDC, HTTP Basic) in front of a search cluster" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/search-platform"
COPY --from=build /usr/local/bin/authproxy /usr/local/bin/authproxy
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
