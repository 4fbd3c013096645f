//! Consistency check (stub).
use super::HfsError;
use crate::device::BlockDevice;
use alloc::vec::Vec;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    pub problems: Vec<Problem>,
}

pub fn check_volume<D: BlockDevice>(dev: D) -> Result<CheckReport, HfsError> {
    let _ = super::Volume::open(dev)?;
    Ok(CheckReport { problems: Vec::new() })
}
