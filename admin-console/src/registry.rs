//! The configured clusters, each with its client, metrics source and caches.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use service_kit::single_flight::SingleFlight;

use crate::cluster::client::{ClusterApi, ClusterClient};
use crate::cluster::dialect::Dialect;
use crate::cluster::indices::{self, IndexRow};
use crate::cluster::views::{self, Health, Version};
use crate::config::{ClusterSettings, InternalHistorySettings};
use crate::error::Error;
use crate::metrics::Metrics;

/// How long an index list is reused between pages and sorts.
const INDEX_CACHE_TTL: Duration = Duration::from_secs(3);

/// How long the dialect read from `GET /` is kept (an upgrade changes it; a minute is soon
/// enough to notice).
const DIALECT_TTL: Duration = Duration::from_secs(60);

pub struct Cluster {
    pub settings: ClusterSettings,
    pub client: ClusterClient,
    pub metrics: Metrics,
    /// The index list, reused for [`INDEX_CACHE_TTL`].
    indices: SingleFlight<(), Arc<Vec<IndexRow>>, Error>,
    /// The dialect, reused for [`DIALECT_TTL`].
    dialect: SingleFlight<(), Dialect, Error>,
}

impl Cluster {
    fn new(settings: ClusterSettings, history: &InternalHistorySettings) -> anyhow::Result<Self> {
        let client = ClusterClient::new(&settings)?;
        let metrics = Metrics::new(&settings, history)?;
        Ok(Self {
            settings,
            client,
            metrics,
            indices: SingleFlight::keeping_for(INDEX_CACHE_TTL),
            dialect: SingleFlight::keeping_for(DIALECT_TTL),
        })
    }

    pub fn id(&self) -> &str {
        &self.settings.id
    }

    /// The index list, from the cache when fresh; concurrent misses share one cluster call.
    pub async fn indices(&self) -> Result<Arc<Vec<IndexRow>>, Error> {
        self.indices
            .run((), || indices::fetch_indices(&self.client))
            .await
    }

    /// The dialect the cluster speaks (Elasticsearch or OpenSearch, major version), from
    /// `GET /`, kept for a minute; concurrent misses share one call.
    pub async fn dialect(&self) -> Result<Dialect, Error> {
        self.dialect
            .run((), || async {
                let root = self.client.get_json("/").await?;
                Ok(Dialect::from_root(&root))
            })
            .await
    }

    /// Forgets the cached index list, after a call that changed it (create, delete, close…).
    pub fn indices_changed(&self) {
        self.indices.forget(&());
    }

    /// Name, health, version and reachability; never fails, an unreachable cluster says why.
    pub async fn summary(&self) -> ClusterSummary {
        let probe = self.client.timeouts().probe;
        let (root, health) = futures_util::join!(
            self.client.get_json_within("/", probe),
            self.client.get_json_within("_cluster/health", probe),
        );
        let version = root.as_ref().ok().map(Version::from_root);
        let mut summary = ClusterSummary {
            id: self.settings.id.clone(),
            name: self.settings.name.clone(),
            metrics_source: self.settings.metrics_source.as_str(),
            environment: self
                .settings
                .environment
                .map(|environment| environment.as_str()),
            reachable: false,
            health: None,
            version: version.as_ref().and_then(|version| version.number.clone()),
            distribution: version.as_ref().map(|version| version.distribution),
            error: None,
        };
        match health.and_then(|health| views::health_of(&health)) {
            Ok(health) => {
                summary.reachable = true;
                summary.health = Some(health);
            }
            Err(error) => summary.error = Some(error.to_string()),
        }
        summary
    }

    pub fn api(&self) -> &impl ClusterApi {
        &self.client
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ClusterSummary {
    pub id: String,
    pub name: String,
    #[cfg_attr(test, ts(type = "\"internal\" | \"external_metrics\""))]
    pub metrics_source: &'static str,
    /// The configured `environment`; `production` asks for a reason before every change.
    #[cfg_attr(
        test,
        ts(type = "\"production\" | \"staging\" | \"test\" | \"development\" | null")
    )]
    pub environment: Option<&'static str>,
    pub reachable: bool,
    pub health: Option<Health>,
    pub version: Option<String>,
    #[cfg_attr(test, ts(type = "\"elasticsearch\" | \"opensearch\" | null"))]
    pub distribution: Option<&'static str>,
    pub error: Option<String>,
}

/// Every configured cluster, in configuration order.
pub struct Clusters {
    list: Vec<Arc<Cluster>>,
    by_id: HashMap<String, usize>,
}

impl Clusters {
    pub fn new(
        settings: &[ClusterSettings],
        history: &InternalHistorySettings,
    ) -> anyhow::Result<Self> {
        let list = settings
            .iter()
            .map(|cluster| Cluster::new(cluster.clone(), history).map(Arc::new))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let by_id = list
            .iter()
            .enumerate()
            .map(|(index, cluster)| (cluster.settings.id.clone(), index))
            .collect();
        Ok(Self { list, by_id })
    }

    pub fn get(&self, id: &str) -> Result<&Arc<Cluster>, Error> {
        self.by_id
            .get(id)
            .map(|index| &self.list[*index])
            .ok_or_else(|| Error::UnknownCluster(id.to_owned()))
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<Cluster>> {
        self.list.iter()
    }

    /// Every cluster's summary, probed concurrently.
    pub async fn summaries(&self) -> Vec<ClusterSummary> {
        futures_util::future::join_all(self.list.iter().map(|cluster| cluster.summary())).await
    }
}
