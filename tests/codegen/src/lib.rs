//! Codegen conformance cases.
#![no_std]
