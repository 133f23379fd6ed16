//! Management: templates: composable index templates, component templates and legacy
//! templates — list, view, create or replace, delete, and simulate which settings, mappings and
//! aliases an index name would get. Routes under `/api/clusters/{cluster_id}`; the scope's guard
//! authorises and audits every call (`access::action::view_needs`: reading and simulating are
//! viewer, writing and deleting admin).

mod model;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::Deserialize;
use serde_json::Value;

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::names::{IndexName, TemplateName};
pub(crate) use model::*;

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/templates", web::get().to(list))
        .route("/templates/simulate", web::post().to(simulate))
        .route("/templates/{kind}/{name}", web::get().to(get))
        .route("/templates/{kind}/{name}", web::put().to(put))
        .route("/templates/{kind}/{name}", web::delete().to(delete));
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        Kind::decl,
        IndexTemplateRow::decl,
        ComponentTemplateRow::decl,
        LegacyTemplateRow::decl,
        ListError::decl,
        TemplateList::decl,
        TemplateDetail::decl,
        PutTemplateBody::decl,
        SimulateBody::decl,
        OverlappingTemplate::decl,
        Simulation::decl,
        TemplateDeleted::decl,
    ]
};

/// The three lists, read concurrently. A list the cluster refuses (4xx: an old version without
/// composable templates, a missing privilege) is reported in `errors` and the others are shown;
/// a cluster that does not answer fails the call.
pub(crate) async fn list_templates(cluster: &impl ClusterApi) -> Result<TemplateList, Error> {
    let (index, component, legacy) = futures_util::join!(
        cluster.call(Method::GET, "_index_template", None),
        cluster.call(Method::GET, "_component_template", None),
        cluster.call(Method::GET, "_template", None),
    );
    let mut errors = Vec::new();
    let mut read = |kind: Kind, answer: Result<Value, Error>| match answer {
        Ok(answer) => Ok(answer),
        Err(Error::RejectedByCluster { message, .. }) => {
            errors.push(ListError { kind, message });
            Ok(Value::Null)
        }
        Err(other) => Err(other),
    };
    let index = index_rows(&read(Kind::Index, index)?);
    let component = component_rows(&read(Kind::Component, component)?, &index);
    let legacy = legacy_rows(&read(Kind::Legacy, legacy)?);
    Ok(TemplateList {
        index,
        component,
        legacy,
        errors,
    })
}

fn not_found(kind: Kind, name: &str) -> Error {
    Error::RejectedByCluster {
        status: StatusCode::NOT_FOUND,
        message: format!(
            "The cluster has no {} named \"{name}\".",
            match kind {
                Kind::Index => "index template",
                Kind::Component => "component template",
                Kind::Legacy => "legacy template",
            }
        ),
    }
}

pub(crate) async fn get_template(
    cluster: &impl ClusterApi,
    kind: Kind,
    name: &TemplateName,
) -> Result<TemplateDetail, Error> {
    let path = format!("{}/{}", kind.api(), name.segment());
    let name = name.as_str();
    let answer = match cluster.call(Method::GET, &path, None).await {
        Err(Error::RejectedByCluster { status, .. }) if status == StatusCode::NOT_FOUND => {
            return Err(not_found(kind, name));
        }
        other => other?,
    };
    let definition = definition_of(kind, name, &answer).ok_or_else(|| not_found(kind, name))?;
    Ok(TemplateDetail {
        kind,
        name: name.to_owned(),
        definition,
    })
}

/// Creates (`create`: refused by the cluster when the name is taken) or replaces a template,
/// after checking the name and the definition; answers the template as the cluster now keeps it.
pub(crate) async fn put_template(
    cluster: &impl ClusterApi,
    kind: Kind,
    name: &TemplateName,
    body: &PutTemplateBody,
) -> Result<TemplateDetail, Error> {
    check_definition(kind, &body.definition)?;
    let mut path = format!("{}/{}", kind.api(), name.segment());
    if body.create {
        path.push_str("?create=true");
    }
    cluster
        .call(Method::PUT, &path, Some(&body.definition))
        .await?;
    get_template(cluster, kind, name).await
}

/// Deletes one template; `confirm` must repeat its name (the web app has the user type it).
pub(crate) async fn delete_template(
    cluster: &impl ClusterApi,
    kind: Kind,
    name: &TemplateName,
    confirm: Option<&str>,
) -> Result<(), Error> {
    let path = format!("{}/{}", kind.api(), name.segment());
    let name = name.as_str();
    if confirm != Some(name) {
        return Err(Error::BadRequest(format!(
            "Deleting the template \"{name}\" needs confirm={name} (the name typed again)."
        )));
    }
    match cluster.call(Method::DELETE, &path, None).await {
        Err(Error::RejectedByCluster { status, .. }) if status == StatusCode::NOT_FOUND => {
            Err(not_found(kind, name))
        }
        other => other.map(drop),
    }
}

/// `POST _index_template/_simulate_index/<index>`, with the two lists that name the winning
/// template and the legacy templates that match (read concurrently).
pub(crate) async fn simulate_index(
    cluster: &impl ClusterApi,
    index: &IndexName,
) -> Result<Simulation, Error> {
    let path = format!("_index_template/_simulate_index/{}", index.segment());
    let (answer, list) = futures_util::join!(
        cluster.call(Method::POST, &path, None),
        list_templates(cluster),
    );
    let (answer, list) = (answer?, list?);
    Ok(simulation(
        index.as_str(),
        &answer,
        &list.index,
        &list.legacy,
    ))
}

async fn list(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    Ok(fresh(&list_templates(cluster.api()).await?))
}

async fn get(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, Error> {
    let (_, kind, name) = path.into_inner();
    Ok(fresh(
        &get_template(
            cluster.api(),
            Kind::parse(&kind)?,
            &TemplateName::parse(&name)?,
        )
        .await?,
    ))
}

async fn put(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
    body: web::Json<PutTemplateBody>,
) -> Result<HttpResponse, Error> {
    let (_, kind, name) = path.into_inner();
    Ok(fresh(
        &put_template(
            cluster.api(),
            Kind::parse(&kind)?,
            &TemplateName::parse(&name)?,
            &body,
        )
        .await?,
    ))
}

#[derive(Deserialize)]
struct DeleteParams {
    confirm: Option<String>,
}

async fn delete(
    cluster: RequestedCluster,
    path: web::Path<(String, String, String)>,
    params: web::Query<DeleteParams>,
) -> Result<HttpResponse, Error> {
    let (_, kind, name) = path.into_inner();
    delete_template(
        cluster.api(),
        Kind::parse(&kind)?,
        &TemplateName::parse(&name)?,
        params.confirm.as_deref(),
    )
    .await?;
    Ok(fresh(&TemplateDeleted {
        kind: Kind::parse(&kind)?,
        name,
    }))
}

async fn simulate(
    cluster: RequestedCluster,
    body: web::Json<SimulateBody>,
) -> Result<HttpResponse, Error> {
    // The name of an index that may not exist yet: the index name rules.
    let index = IndexName::parse(&body.index)?;
    Ok(fresh(&simulate_index(cluster.api(), &index).await?))
}

#[cfg(test)]
mod tests {
    use actix_web::http::StatusCode;
    use serde_json::{Value, json};

    use super::*;

    /// A cluster that answers the three lists, or refuses or fails one of them.
    struct Fake {
        legacy: Result<Value, Error>,
    }

    impl ClusterApi for Fake {
        async fn get_json(&self, path: &str) -> Result<Value, Error> {
            self.call(Method::GET, path, None).await
        }
        async fn put_json(&self, path: &str, _body: &Value) -> Result<Value, Error> {
            self.call(Method::PUT, path, None).await
        }
        async fn call(&self, _: Method, path: &str, _: Option<&Value>) -> Result<Value, Error> {
            match path {
                "_index_template" => Ok(json!({"index_templates": [
                    {"name": "logs", "index_template": {"index_patterns": ["logs-*"]}}
                ]})),
                "_component_template" => Ok(json!({"component_templates": []})),
                "_template" => self.legacy.clone(),
                other => panic!("unexpected call {other}"),
            }
        }
    }

    #[actix_web::test]
    async fn a_refused_list_is_reported_and_the_others_are_listed() {
        let refused = Fake {
            legacy: Err(Error::RejectedByCluster {
                status: StatusCode::FORBIDDEN,
                message: "no manage_index_templates privilege".to_owned(),
            }),
        };
        let list = list_templates(&refused).await.unwrap();
        assert_eq!(list.index[0].name, "logs");
        assert!(list.legacy.is_empty());
        assert_eq!(
            list.errors,
            vec![ListError {
                kind: Kind::Legacy,
                message: "no manage_index_templates privilege".to_owned()
            }]
        );
        let ok = Fake {
            legacy: Ok(json!({"old": {"index_patterns": ["old-*"]}})),
        };
        assert_eq!(list_templates(&ok).await.unwrap().legacy[0].name, "old");
    }

    #[actix_web::test]
    async fn a_cluster_that_does_not_answer_fails_the_list() {
        let silent = Fake {
            legacy: Err(Error::upstream("cluster \"c\" answered 500".to_owned())),
        };
        assert!(matches!(
            list_templates(&silent).await,
            Err(Error::Upstream { .. })
        ));
    }
}
