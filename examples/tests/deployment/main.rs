//! The example servers as deployed: several `provisioner http` instances sharing (or not
//! sharing) sealing keys, as behind a load balancer, and graceful shutdown on SIGTERM.

#[path = "../support/mod.rs"]
mod support;

mod multi_instance;
mod shutdown;
