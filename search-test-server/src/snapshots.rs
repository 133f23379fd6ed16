//! Snapshot repositories and snapshots (filled in later).

#[derive(Default)]
pub(crate) struct Snapshots {}
