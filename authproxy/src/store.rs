//! The key-value store behind the credential cache and the sessions: service-kit's byte store,
//! memory (one replica) or Redis (several), each key with its own time to live. A store failure
//! is an error here: callers fail closed.

pub use service_kit::byte_store::{
    ByteStore as KeyValueStore, ByteStoreError as StoreError, MemoryStore, RedisStore,
};
