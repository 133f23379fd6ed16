//! Shared oracles of the fuzz targets (the per-service ones live in each service's
//! `src/fuzzing.rs`).

pub mod config_oracle;
