//! `docs/RELIABILITY.md`'s long-run tables are what the records in `docs/records/` make: a
//! figure there without a record, or a record missing from it, fails.

use std::path::Path;

#[test]
fn long_run_tables_come_from_the_records() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let (doc, wanted) = retro68_build::records::wanted_doc(root).unwrap();
    if doc != wanted && std::env::var_os("FERRITE_WRITE_DOCS").is_some_and(|v| v == "1") {
        retro68_build::records::update_doc(root).unwrap();
        return;
    }
    assert!(
        doc == wanted,
        "{}'s long-run tables differ from what docs/records/ holds; they are generated: \
         run `cargo xtask soak` or `cargo xtask fuzz` (which write a record and regenerate \
         them) or this test with FERRITE_WRITE_DOCS=1; never edit them by hand",
        retro68_build::records::DOC
    );
}
