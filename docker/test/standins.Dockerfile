# Local stand-ins for the compose stack's third-party images, for the container test
# (scripts/containers/test.py) on a machine without a registry. Each target plays the role of one
# image with the same entrypoint conventions, so docker/test/compose.test.yaml swaps only `image:`:
#   opensearch              opensearchproject/opensearch   -> osmem-server (in-memory OpenSearch)
#                           plus the security API it lacks
#   redis                   redis                          -> Debian's redis-server
#   dex                     ghcr.io/dexidp/dex             -> oidc-provider reading Dex's config
#   elasticsearch-exporter  prometheuscommunity/...        -> Debian's prometheus-elasticsearch-exporter
#   prometheus              prom/prometheus                -> Debian's prometheus
#   nginx                   nginx                          -> Debian's nginx
# The base is a Debian root file system made by mmdebstrap (scripts/containers/base_images.py);
# the build context is assembled by the test (bin/osmem-server, bin/node, oidc/).
ARG BASE=search-platform-test/debian:bookworm
FROM ${BASE} AS base
COPY bin/ /usr/local/bin/
COPY oidc/ /opt/oidc/

FROM base AS opensearch
EXPOSE 9200
# osmem-server behind a front that adds the security API osmem lacks (opensearch-standin).
ENTRYPOINT ["/usr/local/bin/opensearch-standin"]

FROM base AS redis
EXPOSE 6379
# The official image runs without protected mode (it is reached across the container network).
ENTRYPOINT ["/usr/local/bin/redis-entrypoint"]
CMD ["redis-server"]

FROM base AS dex
EXPOSE 5556
CMD ["dex", "serve", "/etc/dex/config.yaml"]

FROM base AS elasticsearch-exporter
EXPOSE 9114
ENTRYPOINT ["/usr/bin/prometheus-elasticsearch-exporter"]

FROM base AS prometheus
RUN mkdir -p /prometheus /etc/prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]

FROM base AS nginx
EXPOSE 80
# As the official image: the configuration at /etc/nginx/nginx.conf, in the foreground.
CMD ["nginx", "-g", "daemon off;"]
