| FERRITE_RELOC_WALK done -- the walk of a compact relocation table (format:
| ferrite-shared/src/flat.rs), shared by relocate.S (ferrite_relocate, C ABI) and app_start.S
| (an application's start-up). A macro, so that each keeps its own entry and exit code and the
| walk is written once. It emits no bytes until it is used.
|
| In:  D1 = the value to add (the image's load address), A0 = the image, A1 = the table.
| Out: every 32-bit word the table names has D1 added; then control goes to `done`.
| Clobbers D0, D2, A0, A1. 68000 instructions only; table bytes are read one at a time, so
| no word is read at an odd address.

        .macro  FERRITE_RELOC_WALK done
.Lnext\@:
        moveq   #0,%d0
        move.b  (%a1)+,%d0              | d0 = first byte of the entry
        beq.s   \done                   | 00: end of table
        bmi.s   .Llong\@                | 80..FF: longer forms
        subq.w  #1,%d0                  | 01..7F: k = b - 1
.Lhalf\@:
        add.l   %d0,%d0                 | distance = 2k
.Lapply\@:
        adda.l  %d0,%a0                 | a0 = the relocated word
        add.l   %d1,(%a0)+              | relocate it; cursor = word + 4
        bra.s   .Lnext\@
.Llong\@:
        cmpi.b  #0xFF,%d0
        beq.s   .Lword\@
        andi.w  #0x7F,%d0               | 80..FE nn: k = (b & 7F) << 8 | nn
        lsl.w   #8,%d0
        move.b  (%a1)+,%d0
        bra.s   .Lhalf\@
.Lword\@:
        moveq   #3,%d2                  | FF nn nn nn nn: distance, big-endian
.Lbyte\@:
        lsl.l   #8,%d0                  | the FF is shifted out after four bytes
        move.b  (%a1)+,%d0
        dbra    %d2,.Lbyte\@
        bra.s   .Lapply\@
        .endm
