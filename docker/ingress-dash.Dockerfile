# ingress-dash: Live dashboard of Kubernetes Ingresses.
# Build from the repository root: docker build -f docker/ingress-dash.Dockerfile -t ingress-dash .
# That builds the binary and the web app in the image (release profile, fat LTO). To package
# a binary built outside instead (CI, `make images`), stage it with
# `scripts/containers/stage-prebuilt.sh <profile>` and add `--build-arg BINARIES=prebuilt`: the
# Rust and Node build stages are then skipped (BuildKit builds only the stages the image needs).
# No `# syntax=` line: the engine's built-in Dockerfile front end suffices, so nothing is pulled.
ARG RUST_IMAGE=rust:1.95-slim-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim
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
    cargo build --release --locked -p ingress-dash \
    && mkdir -p /out/bin && cp target/release/ingress-dash /out/bin/ingress-dash

FROM ${NODE_IMAGE} AS web
WORKDIR /web
COPY ingress-dash/web/package.json ingress-dash/web/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY ingress-dash/web/ ./
RUN npm run build && mkdir -p /out && cp -r dist /out/web

# The two sources of the artifacts, both laid out as /out/bin/<binary> and /out/web/.
FROM scratch AS source
COPY --from=build /out/ /out/
COPY --from=web /out/ /out/

FROM scratch AS prebuilt
COPY prebuilt/ingress-dash/ /out/

FROM ${BINARIES} AS artifacts

FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="ingress-dash" \
      org.opencontainers.image.description="Live dashboard of Kubernetes Ingresses" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/search-platform"
COPY --from=artifacts /out/bin/ingress-dash /usr/local/bin/ingress-dash
COPY --from=artifacts /out/web /usr/share/ingress-dash/web
COPY examples/ingress-dash.yaml /etc/ingress-dash/config.yaml
# The example configuration listens on ${HOST:-127.0.0.1}; in a container it must be reachable.
ENV HOST=0.0.0.0 \
    INGRESS_WEB_DIR=/usr/share/ingress-dash/web
# distroless "nonroot" is uid 65532; stated numerically so Kubernetes can verify runAsNonRoot.
USER 65532:65532
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/ingress-dash", "--healthcheck", "http://127.0.0.1:3000/api/live"]
ENTRYPOINT ["/usr/local/bin/ingress-dash"]
CMD ["--config", "/etc/ingress-dash/config.yaml"]
