//! The fuzz targets' kept inputs as tests: every seed (fuzz/corpus/<target>) and every input
//! that once found a defect (fuzz/regressions/<target>) is replayed through the same entry point
//! and oracle the fuzzer uses (`scripts/fuzz.sh` runs the fuzzer itself).

use std::path::Path;

#[allow(dead_code)]
#[path = "../../fuzz/src/config_oracle.rs"]
mod config_oracle;

#[test]
fn config_expand() {
    replay("config_expand", config_oracle::expand);
}

/// Runs `check` on every kept input of `target`; it panics, naming the input, on a failure.
fn replay(target: &str, check: impl Fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut replayed = 0;
    for kind in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(kind).join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .map(|entry| entry.expect("a directory entry").path())
            .collect();
        paths.sort();
        for path in paths {
            let data = std::fs::read(&path).expect("a kept input");
            eprintln!("replaying {}", path.display());
            check(&data);
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no kept inputs for {target}");
}
