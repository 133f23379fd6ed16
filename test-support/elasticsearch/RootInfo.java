// `GET /` (and `HEAD /`) for the Elasticsearch 8 integ-test zip, which does not carry the
// `rest-root` module that answers it in a full distribution: without this the node answers 405
// there, and a client that reads the version and the distribution from `GET /` (as the admin
// console does) cannot tell what it talks to. The body has the fields Elasticsearch documents
// for that request (name, cluster_name, cluster_uuid, the version object, the tagline), every
// value read from the running node: Build.current() and the node's own cluster state. Unlike
// the real module it calls no transport action, so any authenticated user may read it (the real
// one asks for the `monitor` cluster privilege). scripts/install-servers.sh compiles this
// against the distribution's lib/ and installs it as a plugin; see docs/testing.md.
package authproxy.test.root;

import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.elasticsearch.Build;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.index.IndexVersion;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.XContentBuilder;

public class RootInfo extends Plugin implements ActionPlugin {
    /** Set when the node makes its components, before it serves any request. */
    private volatile ClusterService clusterService;

    @Override
    public Collection<?> createComponents(PluginServices services) {
        clusterService = services.clusterService();
        return List.of();
    }

    @Override
    public Collection<RestHandler> getRestHandlers(
        Settings settings,
        NamedWriteableRegistry namedWriteableRegistry,
        RestController restController,
        ClusterSettings clusterSettings,
        IndexScopedSettings indexScopedSettings,
        SettingsFilter settingsFilter,
        IndexNameExpressionResolver indexNameExpressionResolver,
        Supplier<DiscoveryNodes> nodesInCluster,
        Predicate<NodeFeature> clusterSupportsFeature
    ) {
        return List.of(new Handler());
    }

    private final class Handler extends BaseRestHandler {
        @Override
        public String getName() {
            return "test_root_info";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
        }

        @Override
        public boolean canTripCircuitBreaker() {
            return false;
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
            return channel -> {
                ClusterService cluster = clusterService;
                Build build = Build.current();
                XContentBuilder body = channel.newBuilder();
                if (request.hasParam("pretty") == false) {
                    body.prettyPrint().lfAtEnd();
                }
                body.startObject();
                body.field("name", cluster.getNodeName());
                body.field("cluster_name", cluster.getClusterName().value());
                body.field("cluster_uuid", cluster.state().metadata().clusterUUID());
                body.startObject("version");
                body.field("number", build.qualifiedVersion());
                body.field("build_flavor", "default");
                body.field("build_type", build.type().displayName());
                body.field("build_hash", build.hash());
                body.field("build_date", build.date());
                body.field("build_snapshot", build.isSnapshot());
                body.field("lucene_version", IndexVersion.current().luceneVersion().toString());
                body.field("minimum_wire_compatibility_version", build.minWireCompatVersion());
                body.field("minimum_index_compatibility_version", build.minIndexCompatVersion());
                body.endObject();
                body.field("tagline", "You Know, for Search");
                body.endObject();
                channel.sendResponse(new RestResponse(RestStatus.OK, body));
            };
        }
    }
}
