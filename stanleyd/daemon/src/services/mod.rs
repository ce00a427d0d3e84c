//! The gRPC services, one file each: thin edges that decode a request, call the capability
//! that owns the work, and encode its answer (`server.rs` serves them on the socket).

pub(crate) mod cache;
pub(crate) mod flows;
pub(crate) mod queue;
pub(crate) mod runs;
pub(crate) mod stanley;
pub(crate) mod trust;
pub(crate) mod ui;
