//! Which optional CRDs the API server serves: gateway.networking.k8s.io/v1 `httproutes`,
//! `grpcroutes`, `tlsroutes` and `gateways` (one ask, when `gateway_api.enabled`; TLSRoute is served at v1
//! by the standard channel since Gateway API 1.5, a cluster without it just shows none) and
//! cert-manager.io/v1 `certificates`. Asked at start-up through the
//! retry policy's breaker, and again every `kubernetes.permanent_error_retry` (sooner after a
//! failed ask), so a CRD installed or removed later is picked up. An absent Gateway API is
//! told once: one log line and a notice in every snapshot, never a namespace error.

use std::sync::Weak;

use super::{Hub, Notice};
use crate::kube::kind_calls;
use crate::kube::resilience::CallError;
use crate::kube::watched_kinds::{CERT_MANAGER_VERSION, GATEWAY_API_VERSION};

/// The notice's code while HTTPRoutes cannot be shown.
pub const GATEWAY_API_NOTICE: &str = "gateway_api_not_installed";

/// What discovery found; `None`: not known (not asked yet, the ask failed, or switched off).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovered {
    /// HTTPRoutes are served.
    pub gateway_api: Option<bool>,
    /// GRPCRoutes are served (v1).
    pub grpc_routes: Option<bool>,
    /// TLSRoutes are served (v1).
    pub tls_routes: Option<bool>,
    /// Gateways are served (v1): the Hosts view reads them on demand only then.
    pub gateways: Option<bool>,
    pub cert_manager: Option<bool>,
    /// Discovery has been asked once (whatever it answered): watchers start after it, so the
    /// first snapshot already knows which kinds exist.
    pub asked: bool,
}

fn gateway_notice() -> Notice {
    Notice {
        code: GATEWAY_API_NOTICE.to_owned(),
        message: "Gateway API is not installed: HTTPRoutes are not shown.".to_owned(),
    }
}

pub(super) async fn run(hub: Weak<Hub>) {
    loop {
        let Some(strong) = hub.upgrade() else {
            return;
        };
        let api = strong.api.clone();
        let resilience = strong.settings.resilience.clone();
        let recheck = strong.settings.watch.permanent_error_retry;
        let ask_gateway = strong.settings.features.gateway_api;
        let ask_cert_manager = strong.settings.features.cert_manager;
        let previous = strong.discovered.borrow().clone();
        drop(strong);
        // The resources served in a group/version; `None`: the ask failed.
        let ask = |group_version: &'static str| {
            let (api, resilience) = (api.clone(), resilience.clone());
            async move {
                let answer = resilience
                    .attempt(|| kind_calls::served(&*api, group_version))
                    .await;
                match answer {
                    Ok(served) => Some(served),
                    Err(error) => {
                        if !matches!(
                            &error,
                            CallError::Kube(crate::kube::client::KubeError::NotConfigured(_))
                        ) {
                            tracing::info!(%error, group_version, "discovery failed; asking again later");
                        }
                        None
                    }
                }
            }
        };
        let serves = |served: &Option<Vec<String>>, resource: &str| {
            served
                .as_ref()
                .map(|served| served.iter().any(|name| name == resource))
        };
        let gateway_kinds = if ask_gateway {
            ask(GATEWAY_API_VERSION).await
        } else {
            None
        };
        let gateway_api = serves(&gateway_kinds, "httproutes");
        let cert_manager = if ask_cert_manager {
            serves(&ask(CERT_MANAGER_VERSION).await, "certificates")
        } else {
            None
        };
        let failed =
            (ask_gateway && gateway_api.is_none()) || (ask_cert_manager && cert_manager.is_none());
        // A failed ask keeps what was known.
        let now = Discovered {
            gateway_api: gateway_api.or(previous.gateway_api),
            grpc_routes: serves(&gateway_kinds, "grpcroutes").or(previous.grpc_routes),
            tls_routes: serves(&gateway_kinds, "tlsroutes").or(previous.tls_routes),
            gateways: serves(&gateway_kinds, "gateways").or(previous.gateways),
            cert_manager: cert_manager.or(previous.cert_manager),
            asked: true,
        };
        let Some(strong) = hub.upgrade() else {
            return;
        };
        if now != previous {
            if now.gateway_api != previous.gateway_api {
                match now.gateway_api {
                    Some(false) => tracing::warn!(
                        "the Gateway API (gateway.networking.k8s.io/v1 httproutes) is not \
                         installed: HTTPRoutes are not shown"
                    ),
                    Some(true) => {
                        tracing::info!("the Gateway API is installed: HTTPRoutes are shown")
                    }
                    None => {}
                }
                let mut state = strong.lock();
                let mut notices = state.machine.info.notices.clone();
                notices.retain(|notice| notice.code != GATEWAY_API_NOTICE);
                if now.gateway_api == Some(false) {
                    notices.push(gateway_notice());
                }
                // Through the machine: a change of the notices moves the snapshots' position.
                state.machine.set_notices(notices);
            }
            if (now.grpc_routes, now.tls_routes) != (previous.grpc_routes, previous.tls_routes) {
                tracing::info!(grpc_routes = ?now.grpc_routes, tls_routes = ?now.tls_routes, "Gateway API GRPCRoutes and TLSRoutes");
            }
            if now.cert_manager != previous.cert_manager {
                tracing::info!(installed = ?now.cert_manager, "cert-manager Certificates");
            }
            strong.discovered.send_replace(now);
        }
        let wait = if failed {
            resilience.after_failed_attempts()
        } else {
            recheck
        };
        drop(strong);
        tokio::time::sleep(wait).await;
    }
}
