//! Bounds checked before the YAML reaches the expanding parser: a few hundred bytes of nested
//! aliases (`b: &b [*a, *a, …]`) expand to billions of nodes. One pass over yaml-rust2's events
//! (the parser `config` itself uses; it never expands an alias, and refuses deep nesting itself)
//! measures the expansion without building anything.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, Parser};

use super::ConfigProblem;

/// The largest configuration file read, in bytes.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;
/// The most nodes (scalars, lists, maps) the file may stand for once every alias is expanded.
pub const MAX_EXPANDED_NODES: u64 = 100_000;

/// The one problem that keeps `yaml` from being parsed, if any. Syntax errors are left to the
/// parser that reports them with their position.
pub(crate) fn check(yaml: &str) -> Option<ConfigProblem> {
    let problem = |message: String| {
        Some(ConfigProblem {
            key: String::new(),
            message,
        })
    };
    if yaml.len() > MAX_FILE_BYTES {
        return problem(format!(
            "the file is larger than {} MiB",
            MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    let mut parser = Parser::new_from_str(yaml);
    // Nodes below each open list or map (itself included), with its anchor (0: none).
    let mut open: Vec<(usize, u64)> = Vec::new();
    // Expanded size of each anchored node.
    let mut anchored: HashMap<usize, u64> = HashMap::new();
    // Nodes that aliases stand for (the file's own nodes are bounded by its size).
    let mut expanded: u64 = 0;
    loop {
        let Ok((event, _)) = parser.next_token() else {
            return None;
        };
        let finished = match event {
            Event::StreamEnd => return None,
            Event::Scalar(_, _, anchor, _) => Some((anchor, 1)),
            Event::Alias(anchor) => {
                let nodes = anchored.get(&anchor).copied().unwrap_or(1);
                expanded = expanded.saturating_add(nodes);
                if expanded > MAX_EXPANDED_NODES {
                    return problem(format!(
                        "the file uses YAML aliases that expand to more than \
                         {MAX_EXPANDED_NODES} nodes; write the repeated values out or use \
                         fewer aliases"
                    ));
                }
                Some((0, nodes))
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                open.push((anchor, 1));
                None
            }
            Event::SequenceEnd | Event::MappingEnd => open.pop(),
            _ => None,
        };
        let Some((anchor, nodes)) = finished else {
            continue;
        };
        if anchor != 0 {
            anchored.insert(anchor, nodes);
        }
        if let Some((_, parent)) = open.last_mut() {
            *parent = parent.saturating_add(nodes);
        }
    }
}
