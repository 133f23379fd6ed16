//! One search cluster's API as the console uses it: the HTTP client with the configured
//! credentials, the dialect it speaks, the views built from a few light calls, the index
//! list, and which roles make a data node (data tiers).

pub mod allocation;
pub mod client;
pub mod dialect;
pub mod indices;
pub mod tiers;
pub mod views;
