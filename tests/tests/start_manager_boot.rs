//! Placeholder compile check of the boot test driver (the boot itself is tested once the
//! Device Manager and SCSI Manager models are in).

#[test]
#[ignore = "needs binutils-m68k-linux-gnu: run `cargo xtask test`"]
fn the_test_disk_driver_assembles_clean() {
    let src = include_str!("../asm/boot_test_driver.S");
    let img = retro68_build::asm::assemble_flat("boot_test_driver", src).unwrap();
    assert_eq!(img.export("entry_original"), Some(0));
    assert_eq!(img.export("entry_43"), Some(8));
    assert_eq!(img.export("drvr_header"), Some(16));
    assert!(img.image.len() < 2048, "{} bytes", img.image.len());
}
