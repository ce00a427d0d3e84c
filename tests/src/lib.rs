//! The end-to-end harness: hermetic temporary Git repositories, a fake System One server on
//! loopback, and helpers that run the real `stanley`, `stanleyctl` and `stanleyd` binaries.

pub mod fake_jev;
pub mod model_server;
pub mod repo;
pub mod testenv;

pub use fake_jev::{FakeJev, Fault};
pub use repo::TempRepo;
pub use testenv::{Output, TestEnv};
