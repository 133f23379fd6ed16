//! Management: snapshot repositories and snapshots. Routes under
//! `/api/clusters/{cluster_id}`; the scope's guard authorises and audits every call
//! (`access::action::view_needs`): reading is a viewer's, verifying a repository and taking a
//! snapshot an operator's, registering or removing a repository and restoring or deleting a
//! snapshot an admin's. The handlers are thin: the names, bodies and answers are read by the
//! plain types of `manage::names`, `repositories`, `listing` and `requests`.

mod listing;
mod repositories;
mod requests;

use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::{RepositoryName, SnapshotName};
use listing::{SnapshotDetail, snapshots_of};
use repositories::{RepositoryRegisterBody, RepositoryVerification, repositories_of};
use requests::{CreateSnapshot, SnapshotAccepted, SnapshotCreateBody, SnapshotRestoreBody};

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/repositories", web::get().to(list_repositories))
        .route("/repositories/{repo}", web::put().to(register_repository))
        .route("/repositories/{repo}", web::delete().to(delete_repository))
        .route(
            "/repositories/{repo}/verify",
            web::post().to(verify_repository),
        )
        .route(
            "/repositories/{repo}/snapshots",
            web::get().to(list_snapshots),
        )
        .route(
            "/repositories/{repo}/snapshots",
            web::post().to(create_snapshot),
        )
        .route(
            "/repositories/{repo}/snapshots/{snapshot}",
            web::get().to(snapshot_detail),
        )
        .route(
            "/repositories/{repo}/snapshots/{snapshot}",
            web::delete().to(delete_snapshot),
        )
        .route(
            "/repositories/{repo}/snapshots/{snapshot}/restore",
            web::post().to(restore_snapshot),
        );
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        repositories::Repository::decl,
        repositories::RepositoryList::decl,
        repositories::RepositoryType::decl,
        repositories::RepositoryRegisterBody::decl,
        repositories::VerifiedNode::decl,
        repositories::RepositoryVerification::decl,
        listing::SnapshotState::decl,
        listing::SnapshotRow::decl,
        listing::SnapshotList::decl,
        listing::SnapshotShardFailure::decl,
        listing::SnapshotProgress::decl,
        listing::SnapshotDetail::decl,
        requests::SnapshotCreateBody::decl,
        requests::SnapshotRestoreBody::decl,
        requests::SnapshotAccepted::decl,
        SnapshotAcknowledged::decl,
    ]
};

/// What the cluster said to a registration or a deletion.
#[derive(serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnapshotAcknowledged {
    pub acknowledged: bool,
}

impl SnapshotAcknowledged {
    fn of(answer: &Value) -> Self {
        Self {
            acknowledged: answer["acknowledged"].as_bool().unwrap_or(false),
        }
    }
}

/// `?confirm=<name>` of a deletion.
#[derive(Deserialize)]
pub(crate) struct Confirm {
    confirm: Option<String>,
}

impl Confirm {
    /// The typed confirmation must be the exact name.
    fn check(&self, what: &str, name: &str) -> Result<(), Error> {
        match self.confirm.as_deref() {
            Some(typed) if typed == name => Ok(()),
            Some(typed) => Err(Error::BadRequest(format!(
                "The confirmation \"{typed}\" is not the {what}'s name \"{name}\"; nothing was deleted."
            ))),
            None => Err(Error::BadRequest(format!(
                "Deleting the {what} \"{name}\" needs ?confirm= with its exact name."
            ))),
        }
    }
}

/// A JSON body read here rather than by actix's extractor, so that a bad one gets the common
/// error body with the reader's precise message.
fn body_of<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(bytes)
        .map_err(|error| Error::BadRequest(format!("The request body is not valid: {error}.")))
}

async fn list_repositories(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    let answer = cluster.api().call(Method::GET, "/_snapshot", None).await?;
    Ok(fresh(&repositories_of(&answer)?))
}

async fn register_repository(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, Error> {
    let (_, repo) = path.into_inner();
    let repo = RepositoryName::parse(&repo)?;
    let body = body_of::<RepositoryRegisterBody>(&body)?.cluster_body()?;
    let answer = cluster
        .api()
        .call(
            Method::PUT,
            &format!("/_snapshot/{}", repo.segment()),
            Some(&body),
        )
        .await?;
    Ok(fresh(&SnapshotAcknowledged::of(&answer)))
}

async fn delete_repository(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    confirm: web::Query<Confirm>,
) -> Result<HttpResponse, Error> {
    let (_, repo) = path.into_inner();
    let repo = RepositoryName::parse(&repo)?;
    confirm.check("repository", repo.as_str())?;
    let answer = cluster
        .api()
        .call(
            Method::DELETE,
            &format!("/_snapshot/{}", repo.segment()),
            None,
        )
        .await?;
    Ok(fresh(&SnapshotAcknowledged::of(&answer)))
}

async fn verify_repository(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let (_, repo) = path.into_inner();
    let repo = RepositoryName::parse(&repo)?;
    let answer = cluster
        .api()
        .call(
            Method::POST,
            &format!("/_snapshot/{}/_verify", repo.segment()),
            None,
        )
        .await;
    let verification = match answer {
        Ok(answer) => RepositoryVerification::of(&answer),
        // The cluster answered that a node could not use the repository (a 5xx with its
        // reason): the verification's result, not a failure of this call.
        Err(Error::Upstream {
            message,
            cause: None,
        }) => RepositoryVerification::failed(message),
        Err(error) => return Err(error),
    };
    Ok(fresh(&verification))
}

async fn list_snapshots(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Error> {
    let (_, repo) = path.into_inner();
    let repo = RepositoryName::parse(&repo)?;
    let answer = cluster
        .api()
        .call(
            Method::GET,
            &format!("/_snapshot/{}/_all", repo.segment()),
            None,
        )
        .await?;
    Ok(fresh(&snapshots_of(&answer)?))
}

async fn create_snapshot(
    cluster: RequestedCluster,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, Error> {
    let (_, repo) = path.into_inner();
    let repo = RepositoryName::parse(&repo)?;
    let request = CreateSnapshot::parse(&body_of::<SnapshotCreateBody>(&body)?)?;
    let answer = cluster
        .api()
        .call(
            Method::PUT,
            &format!(
                "/_snapshot/{}/{}?wait_for_completion=false",
                repo.segment(),
                request.name.segment()
            ),
            Some(request.cluster_body()),
        )
        .await?;
    Ok(fresh(&SnapshotAccepted::of(&request.name, &answer)))
}

/// `?sizes=true` on a snapshot's detail.
#[derive(Deserialize)]
pub(crate) struct DetailParams {
    sizes: Option<String>,
}

impl DetailParams {
    fn sizes(&self) -> Result<bool, Error> {
        match self.sizes.as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(Error::BadRequest(format!(
                "sizes must be true or false, not \"{other}\"."
            ))),
        }
    }
}

/// A snapshot and, while it runs or when `?sizes=true` asks for it, its `_status`: the
/// documentation keeps that call for running snapshots, as on a finished one it reads every
/// shard's metadata from the repository.
async fn snapshot_detail(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
    params: web::Query<DetailParams>,
) -> Result<HttpResponse, Error> {
    let (_, repo, snapshot) = path.into_inner();
    let repo = RepositoryName::parse(&repo)?;
    let snapshot = SnapshotName::parse(&snapshot)?;
    let sizes = params.sizes()?;
    let base = format!("/_snapshot/{}/{}", repo.segment(), snapshot.segment());
    let answer = cluster.api().call(Method::GET, &base, None).await?;
    let info = SnapshotDetail::info_of(&answer)?;
    let status = if SnapshotDetail::running(info) || sizes {
        Some(
            cluster
                .api()
                .call(Method::GET, &format!("{base}/_status"), None)
                .await,
        )
    } else {
        None
    };
    Ok(fresh(&SnapshotDetail::of(info, status)?))
}

async fn restore_snapshot(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, Error> {
    let (_, repo, snapshot) = path.into_inner();
    let repo = RepositoryName::parse(&repo)?;
    let snapshot = SnapshotName::parse(&snapshot)?;
    let body = body_of::<SnapshotRestoreBody>(&body)?.cluster_body()?;
    let answer = cluster
        .api()
        .call(
            Method::POST,
            &format!(
                "/_snapshot/{}/{}/_restore",
                repo.segment(),
                snapshot.segment()
            ),
            Some(&body),
        )
        .await;
    // A restore creates indices as soon as it is accepted; even a refused one may have
    // changed the list.
    cluster.indices_changed();
    Ok(fresh(&SnapshotAccepted::of(&snapshot, &answer?)))
}

async fn delete_snapshot(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
    confirm: web::Query<Confirm>,
) -> Result<HttpResponse, Error> {
    let (_, repo, snapshot) = path.into_inner();
    let repo = RepositoryName::parse(&repo)?;
    let snapshot = SnapshotName::parse(&snapshot)?;
    confirm.check("snapshot", snapshot.as_str())?;
    let answer = cluster
        .api()
        .call(
            Method::DELETE,
            &format!("/_snapshot/{}/{}", repo.segment(), snapshot.segment()),
            None,
        )
        .await?;
    Ok(fresh(&SnapshotAcknowledged::of(&answer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deletion_needs_the_exact_name() {
        let name = SnapshotName::parse("nightly-1").unwrap();
        let name = name.as_str();
        let confirm = |text: Option<&str>| Confirm {
            confirm: text.map(str::to_owned),
        };
        assert!(confirm(Some("nightly-1")).check("snapshot", name).is_ok());
        for (typed, says) in [
            (None, "needs ?confirm= with its exact name"),
            (Some("nightly-*"), "is not the snapshot's name"),
            (Some("Nightly-1"), "is not the snapshot's name"),
        ] {
            let Err(Error::BadRequest(message)) = confirm(typed).check("snapshot", name) else {
                panic!("{typed:?} passed");
            };
            assert!(message.contains(says), "{message}");
        }
    }

    #[test]
    fn an_existing_snapshot_may_have_capitals_but_no_path_tricks() {
        assert!(SnapshotName::parse("Weekly-1").is_ok());
        for bad in ["a/b", "..", "_status", "a*", "a,b", ""] {
            let Err(Error::BadRequest(message)) = SnapshotName::parse(bad) else {
                panic!("{bad:?} passed");
            };
            assert!(message.contains("snapshot name"), "{message}");
        }
    }

    #[test]
    fn a_bad_body_is_a_precise_bad_request() {
        let Err(Error::BadRequest(message)) = body_of::<SnapshotCreateBody>(br#"{"nmae": "x"}"#)
        else {
            panic!("accepted");
        };
        assert!(message.contains("unknown field `nmae`"), "{message}");
    }
}
