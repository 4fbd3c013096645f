//! Ferrite's build tool for m68k artifacts.
pub mod m68k;
