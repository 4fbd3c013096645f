//! The emulated Mac.
