//! Stores to `static mut` booleans, bytes, u16 and u32 (LLVM once emitted `move.b #1,(sym,%pc)`,
//! an illegal PC-relative destination), through `&raw mut` / `addr_of_mut!` and plain
//! assignment, read back with `read_volatile`.

use super::case;
use super::util::*;
use crate::{Case, Out};
use core::ptr::{addr_of_mut, read_volatile, write_volatile};

static mut FLAG: bool = false;
static mut BYTE: u8 = 0;
static mut HALF: u16 = 0;
static mut WORD: u32 = 0;
static mut DWORD: u64 = 0;
static mut TABLE: [u16; 16] = [0; 16];
static mut PAIR: (u8, u32) = (0, 0);

fn static_bool(o: &mut Out) {
    unsafe {
        FLAG = true;
        o.bool(read_volatile(&raw const FLAG));
        *(&raw mut FLAG) = bb(false);
        o.bool(read_volatile(&raw const FLAG));
        write_volatile(addr_of_mut!(FLAG), true);
        o.bool(read_volatile(&raw const FLAG));
        FLAG = !read_volatile(&raw const FLAG);
        o.bool(read_volatile(&raw const FLAG));
    }
}

fn static_byte(o: &mut Out) {
    unsafe {
        BYTE = 1;
        o.u8(read_volatile(&raw const BYTE));
        BYTE = bb(0xA5);
        o.u8(read_volatile(&raw const BYTE));
        *addr_of_mut!(BYTE) += 1;
        o.u8(read_volatile(&raw const BYTE));
        let p = &raw mut BYTE;
        *p = (*p).rotate_left(4);
        o.u8(read_volatile(p));
        BYTE = 0;
        o.u8(read_volatile(&raw const BYTE));
    }
}

fn static_half_word(o: &mut Out) {
    unsafe {
        HALF = 0x1234;
        WORD = 0xDEAD_BEEF;
        DWORD = 0x0102_0304_0506_0708;
        o.u16(read_volatile(&raw const HALF));
        o.u32(read_volatile(&raw const WORD));
        o.u64(read_volatile(&raw const DWORD));
        HALF = bb(0xFFFF);
        WORD = bb(7);
        DWORD = bb(u64::MAX);
        o.u16(read_volatile(&raw const HALF));
        o.u32(read_volatile(&raw const WORD));
        o.u64(read_volatile(&raw const DWORD));
        *addr_of_mut!(HALF) = HALF.wrapping_add(2);
        *addr_of_mut!(WORD) <<= 4;
        *addr_of_mut!(DWORD) >>= 8;
        o.u16(read_volatile(&raw const HALF));
        o.u32(read_volatile(&raw const WORD));
        o.u64(read_volatile(&raw const DWORD));
    }
}

fn static_table(o: &mut Out) {
    unsafe {
        let t = &raw mut TABLE;
        for i in 0..bb(16usize) {
            (*t)[i] = (i as u16) * 0x1001;
        }
        TABLE[3] = 0xFFFF;
        TABLE[bb(7)] ^= 0x8000;
        for i in 0..16 {
            o.u16(read_volatile(&raw const TABLE[i]));
        }
    }
}

fn static_tuple(o: &mut Out) {
    unsafe {
        PAIR = (bb(9), bb(0x1111_2222));
        PAIR.0 += 1;
        PAIR.1 = PAIR.1.rotate_right(8);
        let p = read_volatile(&raw const PAIR);
        o.u8(p.0);
        o.u32(p.1);
    }
}

/// A static counter bumped in a loop (read-modify-write on a global each iteration).
fn static_counter(o: &mut Out) {
    static mut COUNT: u32 = 0;
    static mut SEEN: bool = false;
    unsafe {
        COUNT = 0;
        SEEN = false;
        for i in 0..bb(50u32) {
            if i % 7 == 3 {
                COUNT += i;
                SEEN = true;
            }
        }
        o.u32(read_volatile(&raw const COUNT));
        o.bool(read_volatile(&raw const SEEN));
    }
}

pub const CASES: &[Case] = &[
    case!(static_bool),
    case!(static_byte),
    case!(static_half_word),
    case!(static_table),
    case!(static_tuple),
    case!(static_counter),
];
