//! The shard routing the server owns (filled in with the topology).

use crate::Shared;
use crate::nodes::SimNode;

#[derive(Default)]
pub(crate) struct Routing {}

impl Routing {
    pub(crate) fn fail_allocation(
        &mut self,
        index: &str,
        shard: u32,
        _nodes: &[SimNode],
    ) -> anyhow::Result<()> {
        anyhow::bail!("no shard {shard} of index {index}")
    }
}

pub(crate) async fn sync(_shared: &Shared) -> anyhow::Result<()> {
    Ok(())
}
