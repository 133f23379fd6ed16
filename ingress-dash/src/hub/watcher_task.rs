//! One watcher's task: runs its [`WatchLoop`] and turns what it reports into the hub's
//! [`Input`]s (records redacted once, here); the hub's [`super::machine`] decides the rest.

use std::sync::{Arc, Weak};

use k8s_openapi::api::networking::v1::Ingress;

use super::machine::Input;
use super::watch_loop::{Report, WatchLoop};
use super::{Hub, Scope};
use crate::records::{IngressRecord, StoredRecord};
use crate::redaction::Redaction;

pub(super) async fn run(hub: Weak<Hub>, scope: Scope, watch: WatchLoop, redaction: Arc<Redaction>) {
    let stored =
        |ingress: &Ingress| StoredRecord::new(&IngressRecord::from_ingress(ingress, &redaction));
    watch
        .run(|report| {
            let Some(hub) = hub.upgrade() else {
                return false;
            };
            let input = match report {
                Report::Listed(ingresses) => Input::Listed(ingresses.iter().map(stored).collect()),
                Report::Applied(ingress) => Input::Apply(stored(&ingress)),
                Report::Deleted(ingress) => Input::Delete(stored(&ingress)),
                Report::Failed(error) => Input::Failed(error),
            };
            hub.handle(&scope, input);
            true
        })
        .await;
}
