//! Checks that a TypeScript file generated from the Rust wire types (ts-rs) is up to date.
//!
//! A crate's test lists its wire types' declarations and calls [`check_generated`]; the test
//! fails when the committed file differs from what the Rust types produce today, and
//! `UPDATE_WIRE_TYPES=1 cargo test ...` (or `make wire-types`) writes the file instead.

use std::path::Path;

use ts_rs::{Config, TS};

/// One wire type's TypeScript declaration: `<T as ts_rs::TS>::decl`.
pub type Declaration = fn(&Config) -> String;

/// The check of a service's web app: `<manifest_dir>/web/src/api/wire.ts` holds the common
/// error body followed by `types` (in that order), with 64-bit integers as `number` (counts,
/// Unix seconds and milliseconds stay far below 2^53).
///
/// # Panics
/// As [`check_generated`].
pub fn check_web_app(manifest_dir: &str, service: &str, types: &[Declaration]) {
    let config = Config::new().with_large_int("number");
    let common: [Declaration; 2] = [
        shared_types::ErrorBody::decl,
        shared_types::ErrorDetail::decl,
    ];
    let declarations: Vec<String> = common
        .iter()
        .chain(types)
        .map(|declaration| declaration(&config))
        .collect();
    let path = Path::new(manifest_dir).join("web/src/api/wire.ts");
    check_generated(&path, service, &declarations);
}

/// The generated file's text: a header saying where it comes from, then one `export` per
/// declaration (ts-rs `decl()` output such as `type ErrorBody = { ... };`), in the order given.
pub fn render(generator: &str, declarations: &[String]) -> String {
    let mut text = format!(
        "// Generated from the Rust wire types by {generator}; do not edit.\n\
         // Regenerate with `make wire-types`.\n"
    );
    for declaration in declarations {
        text.push('\n');
        text.push_str("export ");
        text.push_str(declaration.trim());
        text.push('\n');
    }
    text
}

/// Compares `path` with [`render`]'s text; with `UPDATE_WIRE_TYPES=1` writes it instead.
///
/// # Panics
/// When the file is missing or stale (that is the test failing), or cannot be written.
pub fn check_generated(path: &Path, generator: &str, declarations: &[String]) {
    let expected = render(generator, declarations);
    if std::env::var_os("UPDATE_WIRE_TYPES").is_some_and(|value| value == "1") {
        std::fs::write(path, &expected)
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == expected,
        "{} is stale: the Rust wire types changed. Run `make wire-types` and commit the result.\n\
         --- expected ---\n{expected}",
        path.display()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_file_fails_and_a_fresh_one_passes() {
        let dir = crate::TempDir::new("wire-types");
        let path = dir.path().join("wire.ts");
        let declarations = vec!["type A = { a: string, };".to_owned()];
        std::fs::write(&path, "// old\n").unwrap();
        let stale = std::panic::catch_unwind(|| check_generated(&path, "test", &declarations));
        assert!(stale.is_err(), "a stale file must fail the check");
        std::fs::write(&path, render("test", &declarations)).unwrap();
        check_generated(&path, "test", &declarations);
        assert!(render("test", &declarations).contains("export type A = { a: string, };"));
    }
}
