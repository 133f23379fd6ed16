//! search-test-server's recording and fault proxy.

mod proxy;
