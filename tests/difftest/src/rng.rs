//! The input generator: xorshift32 (shifts and xors only, the same on every target), values
//! biased towards the edges where parsers go wrong, and mutations of valid structures.

/// A deterministic generator; one per input.
pub struct Rng(u32);

/// Values at the edges of 8-, 16- and 32-bit fields and of 512-byte blocks.
const EDGES: [u32; 20] = [
    0,
    1,
    2,
    3,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x1FF,
    0x200,
    0x201,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FE00,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
];

impl Rng {
    /// The generator of input `index` of `function` under `seed`: different for every triple,
    /// and independent of every other input.
    pub fn for_input(seed: u32, function: u32, index: u32) -> Rng {
        let mut r = Rng(seed ^ 0xA5A5_1234);
        r.step();
        r.0 ^= function.rotate_left(16) ^ 0x3C6E_F372;
        r.step();
        r.0 ^= index;
        if r.0 == 0 {
            r.0 = 0x6D2B_79F5;
        }
        for _ in 0..3 {
            r.step();
        }
        r
    }

    fn step(&mut self) {
        let mut x = self.0;
        if x == 0 {
            x = 0x1F12_3BB5;
        }
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
    }

    pub fn u32(&mut self) -> u32 {
        self.step();
        self.0
    }
    pub fn u16(&mut self) -> u16 {
        (self.u32() >> 8) as u16
    }
    pub fn u8(&mut self) -> u8 {
        (self.u32() >> 12) as u8
    }
    pub fn bool(&mut self) -> bool {
        self.u32() & 0x100 != 0
    }
    /// True `k` times in 256.
    pub fn chance(&mut self, k: u32) -> bool {
        (self.u32() >> 5) & 0xFF < k
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u32) -> u32 {
        self.u32() % n
    }
    /// An edge value, or one next to it, or a random one.
    pub fn edgy_u32(&mut self) -> u32 {
        match self.below(8) {
            0..=3 => EDGES[self.below(EDGES.len() as u32) as usize],
            4 => EDGES[self.below(EDGES.len() as u32) as usize].wrapping_add(self.below(5)),
            5 => EDGES[self.below(EDGES.len() as u32) as usize].wrapping_sub(self.below(5)),
            6 => self.u32() >> self.below(32),
            _ => self.u32(),
        }
    }
    pub fn edgy_u16(&mut self) -> u16 {
        if self.bool() {
            self.edgy_u32() as u16
        } else {
            self.u16()
        }
    }
    pub fn edgy_u64(&mut self) -> u64 {
        match self.below(4) {
            0 => self.edgy_u32() as u64,
            1 => ((self.edgy_u32() as u64) << 32) | self.edgy_u32() as u64,
            2 => (self.below(1 << 24) as u64) << 9,
            _ => ((self.u32() as u64) << 32) | self.u32() as u64,
        }
    }
    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }
    /// Fill `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(4) {
            let v = self.u32().to_be_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
    /// Apply 1 to `max` random mutations to `buf`: bit flips, random bytes, edge values in
    /// 16- and 32-bit big-endian fields, runs copied within the buffer or zeroed.
    pub fn mutate(&mut self, buf: &mut [u8], max: u32) {
        if buf.is_empty() {
            return;
        }
        let len = buf.len() as u32;
        for _ in 0..1 + self.below(max.max(1)) {
            let at = self.below(len) as usize;
            match self.below(6) {
                0 => buf[at] ^= 1 << self.below(8),
                1 => buf[at] = self.u8(),
                2 if at + 2 <= buf.len() => {
                    buf[at..at + 2].copy_from_slice(&self.edgy_u16().to_be_bytes())
                }
                3 if at + 4 <= buf.len() => {
                    buf[at..at + 4].copy_from_slice(&self.edgy_u32().to_be_bytes())
                }
                4 => {
                    let from = self.below(len) as usize;
                    let n = (self.below(16) as usize)
                        .min(buf.len() - at)
                        .min(buf.len() - from);
                    buf.copy_within(from..from + n, at);
                }
                _ => {
                    let n = (self.below(8) as usize).min(buf.len() - at);
                    buf[at..at + n].fill(0);
                }
            }
        }
    }
}
