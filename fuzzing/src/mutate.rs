//! A small deterministic mutator for the short run: the kinds of change libFuzzer makes
//! (bit flips, interesting values in 8/16/32-bit big-endian fields, byte runs copied,
//! inserted, deleted, splices of two inputs), driven by a fixed-seed xorshift generator so a
//! failure reproduces from its iteration number.

/// xorshift64* — deterministic, no dependencies.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Values that sit on the edges parsers check.
const INTERESTING: [u32; 16] = [
    0,
    1,
    2,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x1FF,
    0x200,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
];

/// Apply 1..=4 random changes to `input` (`other` is a second corpus input to splice from).
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        if v.is_empty() {
            v.push(rng.next_u64() as u8);
            continue;
        }
        let at = rng.below(v.len());
        match rng.below(9) {
            0 => v[at] ^= 1 << rng.below(8),
            1 => v[at] = rng.next_u64() as u8,
            2 => v[at] = INTERESTING[rng.below(INTERESTING.len())] as u8,
            3 if at + 2 <= v.len() => {
                let x = INTERESTING[rng.below(INTERESTING.len())] as u16;
                v[at..at + 2].copy_from_slice(&x.to_be_bytes());
            }
            4 if at + 4 <= v.len() => {
                let x = INTERESTING[rng.below(INTERESTING.len())];
                v[at..at + 4].copy_from_slice(&x.to_be_bytes());
            }
            5 => {
                // Small arithmetic on a big-endian word.
                if at + 2 <= v.len() {
                    let x = u16::from_be_bytes([v[at], v[at + 1]]);
                    let d = rng.below(33) as u16;
                    let y = if rng.below(2) == 0 {
                        x.wrapping_add(d)
                    } else {
                        x.wrapping_sub(d)
                    };
                    v[at..at + 2].copy_from_slice(&y.to_be_bytes());
                }
            }
            6 => {
                let n = 1 + rng.below(v.len().min(64));
                let end = (at + n).min(v.len());
                v.drain(at..end);
            }
            7 => {
                let n = 1 + rng.below(64);
                let from = rng.below(v.len());
                let chunk: Vec<u8> = v[from..(from + n).min(v.len())].to_vec();
                v.splice(at..at, chunk);
            }
            _ if !other.is_empty() => {
                // Overwrite a run with bytes from the other input.
                let from = rng.below(other.len());
                let n = (1 + rng.below(512))
                    .min(other.len() - from)
                    .min(v.len() - at);
                v[at..at + n].copy_from_slice(&other[from..from + n]);
            }
            _ => v[at] = !v[at],
        }
    }
    v
}
