//! The flight record's format (`ferrite_shared::flight_record`) under random contents: every
//! sealed record reads back as itself; a write cut short at any byte over any older record
//! never reads as a third record, and the slot choice then keeps the previous one.

use ferrite_shared::flight_record::{
    FlightRecord, RECORD_LEN, RECORD_MAGIC, RECORD_VERSION, Slot, latest, next_write,
};
use proptest::prelude::*;
use zerocopy::{FromBytes, IntoBytes};

/// A record with random contents (the header fields made valid), sealed as `seq`.
fn record(bytes: &[u8], seq: u32) -> FlightRecord {
    let mut r = FlightRecord::read_from_bytes(bytes).unwrap();
    r.magic = RECORD_MAGIC;
    r.version.set(RECORD_VERSION);
    r.length.set(RECORD_LEN as u16);
    r.seal(seq);
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_sealed_record_round_trips(bytes in prop::collection::vec(any::<u8>(), RECORD_LEN), seq in any::<u32>()) {
        let r = record(&bytes, seq);
        let mut block = vec![0u8; 2048];
        block[..RECORD_LEN].copy_from_slice(r.as_bytes());
        prop_assert_eq!(FlightRecord::read_slot(&block), Slot::Valid(r));
        prop_assert_eq!(FlightRecord::read_slot(r.as_bytes()), Slot::Valid(r));
        // Alone in either slot, it is the latest; the next write goes to the other slot.
        let empty = [0u8; RECORD_LEN];
        prop_assert_eq!(latest([r.as_bytes(), &empty]), Some((0, r)));
        prop_assert_eq!(latest([&empty, r.as_bytes()]), Some((1, r)));
        let (slot, next) = next_write([r.as_bytes(), &empty]);
        prop_assert_eq!(next, seq.wrapping_add(1));
        prop_assert_eq!(slot, (next % 2) as usize);
    }

    #[test]
    fn a_write_cut_short_keeps_the_previous_record(
        a in prop::collection::vec(any::<u8>(), RECORD_LEN),
        b in prop::collection::vec(any::<u8>(), RECORD_LEN),
        c in prop::collection::vec(any::<u8>(), RECORD_LEN),
        seq in any::<u32>(),
        cut in 0usize..=RECORD_LEN,
    ) {
        // Records seq (slot seq % 2) and seq + 1 (the other slot) on the disk; record seq + 2
        // goes over record seq and stops after `cut` bytes.
        let prev = record(&a, seq);
        let last = record(&b, seq.wrapping_add(1));
        let new = record(&c, seq.wrapping_add(2));
        let s_prev = (seq % 2) as usize;
        let mut slots = [[0u8; RECORD_LEN]; 2];
        slots[s_prev].copy_from_slice(prev.as_bytes());
        slots[1 - s_prev].copy_from_slice(last.as_bytes());
        prop_assert_eq!(next_write([&slots[0], &slots[1]]), (s_prev, seq.wrapping_add(2)));
        slots[s_prev][..cut].copy_from_slice(&new.as_bytes()[..cut]);
        let seen = FlightRecord::read_slot(&slots[s_prev]);
        prop_assert!(
            seen == Slot::Torn || seen == Slot::Valid(prev) || seen == Slot::Valid(new),
            "a cut write read as another record"
        );
        let (slot, got) = latest([&slots[0], &slots[1]]).unwrap();
        if cut == RECORD_LEN {
            prop_assert_eq!((slot, got), (s_prev, new));
        } else {
            // The newest whole record is the last one written completely (or, when the cut
            // changed nothing that matters, the old record that is still whole is older).
            prop_assert_eq!((slot, got), (1 - s_prev, last));
        }
    }
}
