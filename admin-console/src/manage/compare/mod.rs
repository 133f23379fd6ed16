//! Management: compare two clusters' configuration side by side, differences first: the
//! persistent and transient cluster settings, the composable index templates, the component
//! templates, the legacy templates and the lifecycle policies (Elasticsearch ILM, OpenSearch
//! ISM). `GET /api/clusters/{cluster_id}/compare/{right}`: viewer on both clusters (the scope's
//! guard checks the first; a second cluster the caller may not see is 404 `unknown_cluster`, as
//! the guard answers for the first). Read only: nothing is audited.
//!
//! Cluster calls, on each cluster at once: `GET _cluster/settings?flat_settings=true`,
//! `GET _index_template`, `GET _component_template`, `GET _template`, and `GET _ilm/policy`
//! (Elasticsearch) or `GET _plugins/_ism/policies` (OpenSearch). A call a cluster refuses (no
//! lifecycle module, no privilege) is that side's error in its section; the other sections and
//! the other side still answer.

mod model;

use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::Deserialize;
use serde_json::Value;
use service_kit::identity::Identity;

use model::{Comparison, SectionKind};
#[cfg(test)]
use model::{Entry, EntryState, Section};
use model::{Side, compare, ilm_policies, ism_policies, legacy_templates, named_list, settings};

use crate::cluster::client::ClusterApi;
use crate::config::Role;
use crate::error::Error;
use crate::handlers::{AppState, RequestedCluster, fresh};
use crate::registry::Cluster;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config.route("/compare/{right}", web::get().to(get));
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        Comparison::decl,
        Section::decl,
        SectionKind::decl,
        Entry::decl,
        EntryState::decl,
    ]
};

#[derive(Deserialize)]
struct RightPath {
    right: String,
}

async fn get(
    left: RequestedCluster,
    path: web::Path<RightPath>,
    state: web::Data<AppState>,
    identity: web::ReqData<Identity>,
) -> Result<HttpResponse, Error> {
    let right_id = &path.right;
    let right = state.clusters.get(right_id)?;
    if state.access.policy.role(right_id, &identity) < Role::Viewer {
        // As the guard answers for a cluster the caller may not see: it does not exist.
        return Err(Error::UnknownCluster(right_id.clone()));
    }
    let (left_sides, right_sides) = futures_util::join!(read(&left), read(right));
    let sections = SectionKind::ALL
        .into_iter()
        .zip(left_sides.into_iter().zip(right_sides))
        .map(|(kind, (l, r))| compare(kind, l, r))
        .collect();
    Ok(fresh(&Comparison {
        left: left.id().to_owned(),
        right: right_id.clone(),
        sections,
    }))
}

/// One cluster's side of every section, in [`SectionKind::ALL`]'s order.
async fn read(cluster: &Cluster) -> [Side; 6] {
    let api = cluster.api();
    let lifecycle = async {
        match cluster.dialect().await {
            Ok(dialect) if dialect.is_opensearch() => {
                lifecycle_side(api, "_plugins/_ism/policies", "ISM", ism_policies).await
            }
            Ok(_) => lifecycle_side(api, "_ilm/policy", "ILM", ilm_policies).await,
            Err(error) => Err(error.to_string()),
        }
    };
    let (settings_answer, index, component, legacy, lifecycle) = futures_util::join!(
        read_json(api, "_cluster/settings?flat_settings=true"),
        read_json(api, "_index_template"),
        read_json(api, "_component_template"),
        read_json(api, "_template"),
        lifecycle,
    );
    let (persistent, transient) = match settings_answer {
        Ok(answer) => {
            let (persistent, transient) = settings(&answer);
            (Ok(persistent), Ok(transient))
        }
        Err(error) => (Err(error.clone()), Err(error)),
    };
    [
        persistent,
        transient,
        index.map(|answer| named_list(&answer, "index_templates", "index_template")),
        component.map(|answer| named_list(&answer, "component_templates", "component_template")),
        legacy.map(|answer| legacy_templates(&answer)),
        lifecycle,
    ]
}

async fn read_json(api: &impl ClusterApi, path: &str) -> Result<Value, String> {
    api.call(Method::GET, path, None)
        .await
        .map_err(|error| error.to_string())
}

/// The lifecycle policies, or in words why the cluster has none to show.
async fn lifecycle_side(
    api: &impl ClusterApi,
    path: &str,
    name: &str,
    read: fn(&Value) -> std::collections::BTreeMap<String, Value>,
) -> Side {
    match api.call(Method::GET, path, None).await {
        Ok(answer) => Ok(read(&answer)),
        Err(Error::RejectedByCluster { message, .. }) => Err(format!(
            "This cluster has no {name} API (GET /{path}): its lifecycle module or plugin is not \
             installed, or the console's credential may not read it ({message})"
        )),
        Err(error) => Err(error.to_string()),
    }
}
