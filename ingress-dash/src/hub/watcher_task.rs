//! One watcher's task: turns kube-runtime watcher events into the hub's [`Input`]s (records
//! redacted once, here) and hands them over; the hub's [`super::machine`] decides the rest.

use std::sync::{Arc, Weak};

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use k8s_openapi::api::networking::v1::Ingress;
use kube::runtime::watcher::Event;

use super::machine::Input;
use super::{Hub, Scope};
use crate::kube_api::KubeError;
use crate::records::{IngressRecord, StoredRecord};
use crate::redaction::Redaction;

pub(super) async fn run(
    hub: Weak<Hub>,
    scope: Scope,
    mut stream: BoxStream<'static, Result<Event<Ingress>, KubeError>>,
    redaction: Arc<Redaction>,
) {
    let stored =
        |ingress: &Ingress| StoredRecord::new(&IngressRecord::from_ingress(ingress, &redaction));
    while let Some(event) = stream.next().await {
        let Some(hub) = hub.upgrade() else { return };
        let input = match event {
            Ok(Event::Init) => Input::Init,
            Ok(Event::InitApply(ingress)) => Input::InitApply(stored(&ingress)),
            Ok(Event::InitDone) => Input::InitDone,
            Ok(Event::Apply(ingress)) => Input::Apply(stored(&ingress)),
            Ok(Event::Delete(ingress)) => Input::Delete(stored(&ingress)),
            Err(error) => Input::Failed(error),
        };
        hub.handle(&scope, input);
    }
}
