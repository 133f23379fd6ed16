# kube-test-server: an in-memory Kubernetes API with sample Ingresses, for the compose stack
# (ingress-dash has a cluster to show without one). Not for production.
ARG RUST_IMAGE=rust:1.95-slim-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot
# "source" (build here) or "prebuilt" (take prebuilt/kube-test-server/ from the build context,
# staged by scripts/containers/stage-prebuilt.sh); see docker/admin-console.Dockerfile.
ARG BINARIES=source

FROM ${RUST_IMAGE} AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p kube-test-server \
    && mkdir -p /out/bin && cp target/release/kube-test-server /out/bin/kube-test-server

FROM scratch AS source
COPY --from=build /out/ /out/

FROM scratch AS prebuilt
COPY prebuilt/kube-test-server/ /out/

FROM ${BINARIES} AS artifacts

FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="kube-test-server" \
      org.opencontainers.image.description="In-memory Kubernetes API with sample Ingresses (demo and tests only)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/search-platform"
COPY --from=artifacts /out/bin/kube-test-server /usr/local/bin/kube-test-server
USER 65532:65532
EXPOSE 6443
# It has no health endpoint of its own; the Kubernetes discovery path answers once it is up.
HEALTHCHECK NONE
ENTRYPOINT ["/usr/local/bin/kube-test-server"]
CMD ["--host", "0.0.0.0", "--port", "6443", "--sample", "300", "--namespaces", "12", "--churn", "5s"]
