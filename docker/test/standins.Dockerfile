# Local stand-ins for the compose stack's third-party images, for the container test
# (scripts/containers/test.py) on a machine without a registry. Each target plays the role of one
# image with the same entrypoint conventions, so docker/test/compose.test.yaml swaps only `image:`:
#   opensearch              opensearchproject/opensearch   -> OpenSearch 2.19 itself (the integ-test
#                           distribution, the security plugin, Debian's OpenJDK 17 JRE)
#   redis                   redis                          -> Debian's redis-server
#   dex                     ghcr.io/dexidp/dex             -> oidc-provider reading Dex's config
#   elasticsearch-exporter  prometheuscommunity/...        -> Debian's prometheus-elasticsearch-exporter
#   prometheus              prom/prometheus                -> Debian's prometheus
#   nginx                   nginx                          -> Debian's nginx
# The base is a Debian root file system made by mmdebstrap (scripts/containers/base_images.py);
# the build context is assembled by the test (bin/node, oidc/, opensearch/ and
# opensearch-security.zip from scripts/install-servers.sh's downloads).
ARG BASE=search-platform-test/debian:bookworm
FROM ${BASE} AS base
COPY bin/ /usr/local/bin/
COPY oidc/ /opt/oidc/

FROM base AS opensearch
# As the official image: /usr/share/opensearch, owned by the non-root user 1000 (OpenSearch
# refuses root), listening on every address, the security plugin installed offline from its zip.
COPY opensearch/ /usr/share/opensearch/
COPY opensearch-security.zip /tmp/
RUN echo 'opensearch:x:1000:1000:opensearch:/usr/share/opensearch:/bin/bash' >>/etc/passwd \
    && echo 'opensearch:x:1000:' >>/etc/group \
    && printf 'cluster.name: docker-cluster\nnetwork.host: 0.0.0.0\n' >/usr/share/opensearch/config/opensearch.yml \
    && OPENSEARCH_JAVA_HOME=$(dirname "$(dirname "$(readlink -f /usr/bin/java)")") \
       /usr/share/opensearch/bin/opensearch-plugin install --batch file:///tmp/opensearch-security.zip \
    && rm /tmp/opensearch-security.zip \
    && mkdir -p /usr/share/opensearch/data /usr/share/opensearch/logs \
    && chown -R 1000:1000 /usr/share/opensearch
USER 1000:1000
WORKDIR /usr/share/opensearch
EXPOSE 9200 9300
# The official image's entrypoint conventions (environment to settings, the demo security
# configuration with OPENSEARCH_INITIAL_ADMIN_PASSWORD): docker/test/opensearch-entrypoint.
ENTRYPOINT ["/usr/local/bin/opensearch-entrypoint"]

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
