//! The parsers of untrusted input, exposed for the fuzz targets in `fuzz/` (being written).
