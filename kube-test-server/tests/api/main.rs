//! The server against real clients: kubectl, and raw HTTP checks of the API conventions.

mod binary;
mod conformance;
mod conventions;
mod kinds;
mod kubectl;
mod samples;
mod writes;
