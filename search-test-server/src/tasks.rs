//! Simulated tasks (filled in later).

use crate::nodes::SimNode;

/// A simulated running task.
#[derive(Debug, Clone)]
pub struct TaskSpec {
    pub action: String,
    pub description: String,
    pub cancellable: bool,
    /// The node it runs on (position in [`crate::SearchTestServer::nodes`]).
    pub node_index: usize,
}

#[derive(Default)]
pub(crate) struct Tasks {
    next_id: u64,
}

impl Tasks {
    pub(crate) fn add(&mut self, _spec: TaskSpec, node: &SimNode) -> String {
        self.next_id += 1;
        format!("{}:{}", node.id, self.next_id)
    }
}
