//! The fuzz targets' kept inputs, replayed by each crate's `tests/fuzz_regressions.rs`: every
//! seed (`fuzz/corpus/<target>`) and every input that once found a defect
//! (`fuzz/regressions/<target>`) goes through the same entry point and oracle the fuzzer uses
//! (`scripts/fuzz.sh` runs the fuzzer itself).

use crate::process::repo_root;

/// Runs `check` on every kept input of `target`, in file-name order; `check` panics on a
/// failure and the input's path is printed before it runs.
///
/// # Panics
/// When `check` does, or when `target` has no kept input at all (a renamed directory must not
/// turn the test into one that checks nothing).
pub fn replay(target: &str, check: impl Fn(&[u8])) {
    let root = repo_root().join("fuzz");
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
