#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ferrite_fuzz::boot::boot_disk(data));
