| ferrite_relocate(void *image, const uint8_t *table)   -- C ABI, 68000 and later
|
| Adds the image's load address to every 32-bit word the relocation table names
| (format: ferrite-shared/src/flat.rs). Written by hand, not by LLVM, because it runs
| before the image it fixes up is usable. Scratch: D0, D1, A0, A1 (the C ABI's);
| D2 is saved. Uses only 68000 instructions and never reads a word at an odd address
| (table bytes are read one at a time).
|
| On a 68020 or later the caller must flush the instruction cache after this returns
| and before running the relocated code.

        .section .text.ferrite_relocate,"ax"
        .globl  ferrite_relocate
ferrite_relocate:
        move.l  4(%sp),%d1              | d1 = load address, the value to add
        movea.l %d1,%a0                 | a0 = cursor (image + 0)
        movea.l 8(%sp),%a1              | a1 = table
        move.l  %d2,-(%sp)
.Lnext:
        moveq   #0,%d0
        move.b  (%a1)+,%d0              | d0 = first byte of the entry
        beq.s   .Ldone                  | 00: end of table
        bmi.s   .Llong                  | 80..FF: longer forms
        subq.w  #1,%d0                  | 01..7F: k = b - 1
.Lhalf:
        add.l   %d0,%d0                 | distance = 2k
.Lapply:
        adda.l  %d0,%a0                 | a0 = the relocated word
        add.l   %d1,(%a0)+              | relocate it; cursor = word + 4
        bra.s   .Lnext
.Llong:
        cmpi.b  #0xFF,%d0
        beq.s   .Lword
        andi.w  #0x7F,%d0               | 80..FE nn: k = (b & 7F) << 8 | nn
        lsl.w   #8,%d0
        move.b  (%a1)+,%d0
        bra.s   .Lhalf
.Lword:
        moveq   #3,%d2                  | FF nn nn nn nn: distance, big-endian
.Lbyte:
        lsl.l   #8,%d0                  | the FF is shifted out after four bytes
        move.b  (%a1)+,%d0
        dbra    %d2,.Lbyte
        bra.s   .Lapply
.Ldone:
        move.l  (%sp)+,%d2
        rts
