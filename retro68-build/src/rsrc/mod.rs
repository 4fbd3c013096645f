//! Resources: the resource-fork container ([`fork`]), the compiled layouts of the resource
//! types an application carries ([`types`]), a small declarative resource compiler
//! ([`compiler`]) and application packaging ([`app`]: `CODE` 0/1 from a flat image, the
//! whole fork, MacBinary II).

pub mod app;
pub mod compiler;
pub mod fork;
pub mod types;

pub use compiler::{CompileError, compile};
pub use fork::{ForkError, ResType, Resource, ResourceFork};
