//! The Ferrite formatter core (partition map, HFS, driver install). `no_std` + `alloc`
//! so that the classic Mac application can use it too.
//!
//! The formatter is the subject of a later issue; this crate exists so the workspace
//! layout is in place.
#![no_std]
