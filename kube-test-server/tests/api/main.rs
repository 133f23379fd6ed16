//! The server against real clients: kubectl, and raw HTTP checks of the API conventions.

mod binary;
mod conventions;
mod kubectl;
mod writes;
