//! search-test-server: a front for osmem-server adding the APIs it lacks (work in progress).
