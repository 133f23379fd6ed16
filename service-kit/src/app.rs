//! The application shell every service runs (being moved here from the services).
