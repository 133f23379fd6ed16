//! One byte store (memory or Redis) for every service (being written).
