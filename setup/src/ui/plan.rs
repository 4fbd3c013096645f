//! The Initialize dialog's fields read as a plan: one or two volumes, each a name and a size
//! in megabytes (empty: the rest of the disk), with every mistake in words.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// Blocks of 512 bytes in a megabyte (binary, as the Finder counts).
pub const BLOCKS_PER_MB: u64 = 2048;
/// HFS volume names are at most 27 characters (IM Files).
pub const MAX_NAME: usize = 27;

/// What the user typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields {
    pub name1: String,
    pub size1: String,
    pub name2: String,
    pub size2: String,
}

/// One volume to make: its name and size in blocks (`None`: the rest of the disk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    pub name: String,
    pub blocks: Option<u64>,
}

fn check_name(n: &str, which: &str) -> Result<(), String> {
    let mut e = String::new();
    if n.is_empty() {
        let _ = write!(e, "Volume {which} has no name. Type a name for it.");
    } else if n.chars().count() > MAX_NAME {
        let _ = write!(
            e,
            "The name of volume {which} is longer than {MAX_NAME} characters. Shorten it."
        );
    } else if n.contains(':') {
        let _ = write!(
            e,
            "The name of volume {which} contains a colon, which Mac file names cannot. Remove it."
        );
    } else {
        return Ok(());
    }
    Err(e)
}

fn parse_mb(s: &str, which: &str) -> Result<Option<u64>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    match s.parse::<u64>() {
        Ok(mb) if mb > 0 && mb < (1 << 32) => Ok(Some(mb * BLOCKS_PER_MB)),
        _ => {
            let mut e = String::new();
            let _ = write!(
                e,
                "The size of volume {which} (\"{s}\") is not a whole number of megabytes. Type a number such as 40, or leave it empty for the rest of the disk."
            );
            Err(e)
        }
    }
}

/// The volumes the fields ask for on a disk of `disk_blocks` (the sizes are checked against
/// the whole disk here; the formatter core refuses what does not fit after the map and
/// driver).
pub fn read(f: &Fields, disk_blocks: u64) -> Result<Vec<Volume>, String> {
    let name1 = String::from(f.name1.trim());
    let name2 = String::from(f.name2.trim());
    check_name(&name1, "1")?;
    let size1 = parse_mb(&f.size1, "1")?;
    let size2 = parse_mb(&f.size2, "2")?;
    let mut v = Vec::new();
    v.push(Volume {
        name: name1,
        blocks: size1,
    });
    if name2.is_empty() {
        if size2.is_some() {
            return Err(String::from(
                "Volume 2 has a size but no name. Type a name for it, or clear its size for one volume.",
            ));
        }
    } else {
        check_name(&name2, "2")?;
        if size1.is_none() {
            return Err(String::from(
                "Volume 1 has no size, so it would fill the disk and leave no room for volume 2. Type a size for volume 1.",
            ));
        }
        if v[0].name == name2 {
            return Err(String::from(
                "The two volumes have the same name, which the Finder cannot tell apart. Rename one.",
            ));
        }
        v.push(Volume {
            name: name2,
            blocks: size2,
        });
    }
    let asked: u64 = v.iter().filter_map(|x| x.blocks).sum();
    if asked > disk_blocks {
        let mut e = String::new();
        let _ = write!(
            e,
            "The volumes ask for {} MB, more than the disk's {} MB. Make them smaller.",
            asked / BLOCKS_PER_MB,
            disk_blocks / BLOCKS_PER_MB
        );
        return Err(e);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(n1: &str, s1: &str, n2: &str, s2: &str) -> Fields {
        Fields {
            name1: n1.into(),
            size1: s1.into(),
            name2: n2.into(),
            size2: s2.into(),
        }
    }

    #[test]
    fn one_or_two_volumes() {
        assert_eq!(
            read(&f("Mac HD", "", "", ""), 100_000),
            Ok(alloc::vec![Volume {
                name: "Mac HD".into(),
                blocks: None
            }])
        );
        assert_eq!(
            read(&f(" System ", "20", "Data", ""), 100_000),
            Ok(alloc::vec![
                Volume {
                    name: "System".into(),
                    blocks: Some(20 * 2048)
                },
                Volume {
                    name: "Data".into(),
                    blocks: None
                }
            ])
        );
    }

    #[test]
    fn mistakes_in_words() {
        for (fields, starts) in [
            (f("", "", "", ""), "Volume 1 has no name"),
            (
                f("A:B", "", "", ""),
                "The name of volume 1 contains a colon",
            ),
            (
                f("ABCDEFGHIJKLMNOPQRSTUVWXYZ01", "", "", ""),
                "The name of volume 1 is longer than 27",
            ),
            (f("A", "ten", "", ""), "The size of volume 1 (\"ten\")"),
            (f("A", "0", "", ""), "The size of volume 1 (\"0\")"),
            (f("A", "", "B", ""), "Volume 1 has no size"),
            (f("A", "10", "", "5"), "Volume 2 has a size but no name"),
            (f("A", "10", "A", ""), "The two volumes have the same name"),
            (
                f("A", "40", "B", "20"),
                "The volumes ask for 60 MB, more than the disk's 48 MB",
            ),
        ] {
            let e = read(&fields, 48 * 2048).unwrap_err();
            assert!(e.starts_with(starts), "{e}");
        }
    }
}
