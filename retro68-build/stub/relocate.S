| ferrite_relocate(void *image, const uint8_t *table)   -- C ABI, 68000 and later
|
| Adds the image's load address to every 32-bit word the relocation table names
| (format: ferrite-shared/src/flat.rs). Written by hand, not by LLVM, because it runs
| before the image it fixes up is usable. Scratch: D0, D1, A0, A1 (the C ABI's);
| D2 is saved. Uses only 68000 instructions and never reads a word at an odd address
| (table bytes are read one at a time). The walk itself is reloc_walk.S's.
|
| On a 68020 or later the caller must flush the instruction cache after this returns
| and before running the relocated code.

        .include "reloc_walk.S"

        .section .text.ferrite_relocate,"ax"
        .globl  ferrite_relocate
ferrite_relocate:
        move.l  4(%sp),%d1              | d1 = load address, the value to add
        movea.l %d1,%a0                 | a0 = cursor (image + 0)
        movea.l 8(%sp),%a1              | a1 = table
        move.l  %d2,-(%sp)
        FERRITE_RELOC_WALK .Ldone
.Ldone:
        move.l  (%sp)+,%d2
        rts
