//! `alloc`: Vec, String, BTreeMap, BTreeSet, VecDeque, BinaryHeap, Box, Rc (global allocator:
//! `_NewPtr` on the Mac build, a bump arena on the Linux build).

use super::case;
use super::util::*;
use crate::{Case, Out};
use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

fn emit_vec_u32(o: &mut Out, v: &[u32]) {
    o.u32(v.len() as u32);
    for &x in v {
        o.u32(x);
    }
}

fn vec_push_extend(o: &mut Out) {
    let mut v: Vec<u32> = Vec::new();
    for i in 0..bb(40u32) {
        v.push(i * i);
    }
    v.extend_from_slice(&[1, 2, 3]);
    v.extend((0..5).map(|x| x + 100));
    emit_vec_u32(o, &v);
    o.u32(v.iter().sum());
    v.truncate(bb(10));
    emit_vec_u32(o, &v);
    o.u32(v.pop().unwrap_or(0));
}

fn vec_insert_remove(o: &mut Out) {
    let mut v: Vec<u32> = (0..bb(20u32)).collect();
    v.insert(bb(0), 1000);
    v.insert(bb(5), 1005);
    v.insert(v.len(), 1021);
    o.u32(v.remove(bb(10)));
    o.u32(v.swap_remove(bb(2)));
    emit_vec_u32(o, &v);
    v.drain(3..8);
    emit_vec_u32(o, &v);
    v.splice(1..3, [7u32, 7, 7, 7]);
    emit_vec_u32(o, &v);
}

fn vec_retain_dedup(o: &mut Out) {
    let mut v: Vec<u32> = Vec::new();
    let mut r = Rng(bb(5));
    for _ in 0..60 {
        v.push(r.next() % 8);
    }
    v.retain(|&x| x != 3);
    emit_vec_u32(o, &v);
    v.dedup();
    emit_vec_u32(o, &v);
    v.sort();
    v.dedup();
    emit_vec_u32(o, &v);
}

fn vec_sort_collect(o: &mut Out) {
    let mut r = Rng(bb(77));
    let mut v: Vec<i64> = (0..50)
        .map(|_| ((r.next() as u64) << 32 | r.next() as u64) as i64)
        .collect();
    v.sort();
    let mut h = 0u32;
    for &x in &v {
        h = fnv_u32(fnv_u32(h, (x >> 32) as u32), x as u32);
    }
    o.u32(h);
    o.bool(v.windows(2).all(|w| w[0] <= w[1]));
    o.i64(v[0]);
    o.i64(v[49]);
    let evens: Vec<u8> = (0..bb(30u8))
        .filter(|x| x % 2 == 0)
        .map(|x| x * 3)
        .collect();
    o.bytes(&evens);
    let v2 = vec![bb(0xABu8); 17];
    o.bytes(&v2);
}

fn vec_grow_big(o: &mut Out) {
    let mut v: Vec<u8> = Vec::with_capacity(bb(4));
    for i in 0..bb(5000u32) {
        v.push((i ^ (i >> 8)) as u8);
    }
    o.u32(v.len() as u32);
    o.u32(fnv1a(&v));
    v.shrink_to_fit();
    o.u32(fnv1a(&v[4000..]));
    let v2 = v.clone();
    o.bool(v == v2);
}

fn string_ops(o: &mut Out) {
    let mut s = String::new();
    s.push_str("Ferrite");
    s.push(' ');
    s.push('é');
    s += "-68k";
    s.insert(bb(0), '[');
    s.push(']');
    o.u32(s.len() as u32);
    o.bytes(s.as_bytes());
    let up = s.to_uppercase();
    o.bytes(up.as_bytes());
    o.u32(s.chars().count() as u32);
    let r: String = s.chars().rev().collect();
    o.bytes(r.as_bytes());
    o.bool(s.contains("68k"));
    o.u32(s.find('-').map_or(0xFFFF, |p| p as u32));
    let f = alloc::format!("{}:{:04x}", bb(12u8), bb(0xBEEFu32));
    o.bytes(f.as_bytes());
    let parts: Vec<&str> = "a,bb,,ccc".split(',').collect();
    for p in parts {
        o.u8(p.len() as u8);
    }
}

fn btreemap_ops(o: &mut Out) {
    let mut m: BTreeMap<u32, u16> = BTreeMap::new();
    let mut r = Rng(bb(31));
    for i in 0..bb(100u16) {
        m.insert(r.next() % 64, i);
    }
    o.u32(m.len() as u32);
    for (k, v) in m.iter().take(10) {
        o.u32(*k);
        o.u16(*v);
    }
    for k in [0u32, 5, 63, 64] {
        emit_opt(o, m.get(&bb(k)).copied());
    }
    for k in 10..30 {
        m.remove(&k);
    }
    o.u32(m.len() as u32);
    let s: u32 = m.range(5..40).map(|(k, _)| *k).sum();
    o.u32(s);
    emit_opt(o, m.first_key_value().map(|(k, _)| *k));
    emit_opt(o, m.last_key_value().map(|(k, _)| *k));
    *m.entry(1000).or_insert(0) += 5;
    *m.entry(1000).or_insert(0) += 5;
    emit_opt(o, m.get(&1000).copied());
}

fn btreeset_ops(o: &mut Out) {
    let a: BTreeSet<u16> = (0..bb(50u16)).map(|x| x * 3 % 41).collect();
    let b: BTreeSet<u16> = (0..bb(50u16)).map(|x| x * 7 % 37).collect();
    let i: Vec<u16> = a.intersection(&b).copied().collect();
    let d: Vec<u16> = a.difference(&b).copied().collect();
    o.u32(a.len() as u32);
    o.u32(b.len() as u32);
    for x in i.iter().chain(d.iter()) {
        o.u16(*x);
    }
}

fn vecdeque_ops(o: &mut Out) {
    let mut d: VecDeque<u32> = VecDeque::with_capacity(4);
    for i in 0..bb(10u32) {
        if i % 2 == 0 {
            d.push_back(i);
        } else {
            d.push_front(i);
        }
    }
    d.rotate_left(bb(3));
    for x in d.iter() {
        o.u32(*x);
    }
    emit_opt(o, d.pop_front());
    emit_opt(o, d.pop_back());
    d.make_contiguous().sort();
    for x in d.iter() {
        o.u32(*x);
    }
    // ring-buffer style: push/pop many times (wrap-around)
    let mut q: VecDeque<u8> = VecDeque::new();
    let mut h = 0u32;
    for i in 0..bb(300u32) {
        q.push_back(i as u8);
        if q.len() > 7 {
            h = h
                .wrapping_mul(31)
                .wrapping_add(q.pop_front().unwrap_or(0) as u32);
        }
    }
    o.u32(h);
    o.u32(q.len() as u32);
}

fn heap_ops(o: &mut Out) {
    let mut h = BinaryHeap::new();
    let mut r = Rng(bb(2024));
    for _ in 0..30 {
        h.push(r.next() % 1000);
    }
    for _ in 0..10 {
        o.u32(h.pop().unwrap_or(0));
    }
    o.u32(h.len() as u32);
    o.u32(h.into_sorted_vec()[0]);
}

fn box_ops(o: &mut Out) {
    let b = Box::new(bb(0x1234_5678u32));
    o.u32(*b);
    let big: Box<[u16]> = (0..bb(300u16)).map(|x| x.wrapping_mul(257)).collect();
    o.u32(big.len() as u32);
    o.u16(big[299]);
    o.u32(big.iter().map(|&x| x as u32).sum());
    #[derive(Debug)]
    enum List {
        Cons(u32, Box<List>),
        Nil,
    }
    let mut l = List::Nil;
    for i in 0..bb(20u32) {
        l = List::Cons(i * 3, Box::new(l));
    }
    let mut s = 0u32;
    let mut n = 0u32;
    let mut cur = &l;
    while let List::Cons(v, next) = cur {
        s = s.wrapping_mul(5).wrapping_add(*v);
        n += 1;
        cur = next;
    }
    o.u32(s);
    o.u32(n);
    let rc = Rc::new(bb(77u8));
    let rc2 = Rc::clone(&rc);
    o.u32(Rc::strong_count(&rc) as u32);
    drop(rc2);
    o.u32(Rc::strong_count(&rc) as u32);
    o.u8(*rc);
    // over-aligned allocation (the Mac allocator must align it itself)
    #[repr(align(16))]
    struct A16([u8; 20]);
    let a = Box::new(A16([bb(9u8); 20]));
    o.bool((&*a as *const A16 as usize) % 16 == 0);
    o.u8(a.0[19]);
}

pub const CASES: &[Case] = &[
    case!(vec_push_extend),
    case!(vec_insert_remove),
    case!(vec_retain_dedup),
    case!(vec_sort_collect),
    case!(vec_grow_big),
    case!(string_ops),
    case!(btreemap_ops),
    case!(btreeset_ops),
    case!(vecdeque_ops),
    case!(heap_ops),
    case!(box_ops),
];
