//! One single-flight helper for every service (being written).
