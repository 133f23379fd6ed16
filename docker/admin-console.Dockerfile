# admin-console: Web console for administering Elasticsearch/OpenSearch clusters.
# Build from the repository root: docker build -f docker/admin-console.Dockerfile -t admin-console .
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
    cargo build --release --locked -p admin-console \
    && mkdir -p /out/bin /out/data && cp target/release/admin-console /out/bin/admin-console

FROM ${NODE_IMAGE} AS web
WORKDIR /web
COPY admin-console/web/package.json admin-console/web/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY admin-console/web/ ./
RUN npm run build && mkdir -p /out && cp -r dist /out/web

# The two sources of the artifacts, both laid out as /out/bin/<binary>, /out/web/ and /out/data/
# (empty: the data directory, copied below owned by the runtime user; distroless has no mkdir).
FROM scratch AS source
COPY --from=build /out/ /out/
COPY --from=web /out/ /out/

FROM scratch AS prebuilt
COPY prebuilt/admin-console/ /out/

FROM ${BINARIES} AS artifacts

FROM ${RUNTIME_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="admin-console" \
      org.opencontainers.image.description="Web console for administering Elasticsearch/OpenSearch clusters" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/search-platform"
COPY --from=artifacts /out/bin/admin-console /usr/local/bin/admin-console
COPY --from=artifacts /out/web /usr/share/admin-console/web
COPY examples/admin-console.yaml /etc/admin-console/config.yaml
# The data directory: saved queries' embedded file (saved_queries.path). Owned by the runtime
# user, so a named volume mounted here starts writable (the engine copies the ownership in);
# in Kubernetes the chart mounts an emptyDir or a PersistentVolumeClaim here.
COPY --from=artifacts --chown=65532:65532 /out/data/ /var/lib/admin-console/
VOLUME ["/var/lib/admin-console"]
# The example configuration listens on ${HOST:-127.0.0.1}; in a container it must be reachable.
# It takes saved_queries.path from CONSOLE_SAVED_QUERIES_PATH: the file goes on the volume.
ENV HOST=0.0.0.0 \
    CONSOLE_STATIC_DIR=/usr/share/admin-console/web \
    CONSOLE_SAVED_QUERIES_PATH=/var/lib/admin-console/saved-queries.redb
# distroless "nonroot" is uid 65532; stated numerically so Kubernetes can verify runAsNonRoot.
USER 65532:65532
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/admin-console", "--healthcheck", "http://127.0.0.1:8080/api/live"]
ENTRYPOINT ["/usr/local/bin/admin-console"]
CMD ["--config", "/etc/admin-console/config.yaml"]
