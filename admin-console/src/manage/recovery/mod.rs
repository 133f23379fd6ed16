//! Management: shard recoveries in progress (a drained node's copies leaving, a moved copy
//! arriving, a restore). Read-only routes under `/api/clusters/{cluster_id}` (viewer, as every
//! `GET`): `GET /recoveries` for the whole cluster and `GET /indices/{index}/recoveries` for one
//! index, each one `_recovery?active_only=true` read. The reading lives in [`model`].

pub(crate) mod model;

use actix_web::{HttpResponse, web};
use reqwest::Method;

use self::model::{Recoveries, recovery_path};
use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::IndexName;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/recoveries", web::get().to(all_recoveries))
        .route(
            "/indices/{index}/recoveries",
            web::get().to(index_recoveries),
        );
}

/// `GET /recoveries`: every copy recovering now.
async fn all_recoveries(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    read(&cluster, None).await
}

/// `GET /indices/{index}/recoveries`: the copies of one index recovering now (404 from the
/// cluster when there is no such index).
async fn index_recoveries(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let (_, index) = path.into_inner();
    let index = IndexName::parse(&index)?;
    read(&cluster, Some(&index)).await
}

async fn read(
    cluster: &RequestedCluster,
    index: Option<&IndexName>,
) -> Result<HttpResponse, Error> {
    let answer = cluster
        .api()
        .call(Method::GET, &recovery_path(index), None)
        .await?;
    Ok(fresh(&Recoveries::from_answer(&answer)?))
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        model::Progress::decl,
        model::Recovery::decl,
        model::Recoveries::decl,
    ]
};
