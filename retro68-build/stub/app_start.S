| Ferrite application start-up stub: the first code of CODE 1 (right after the 4-byte
| segment header; jump-table entry 0 names offset 0). The build assembles this file and
| retro68-build/src/rsrc/app.rs places, right after this code, the parameter block and then
| the flat image:
|
|   params+0  long  entry offset within the image
|   params+4  long  offset from the image start to the relocation table
|   params+8  word  0 until the image is relocated (set here; a second entry skips the work)
|   params+10 word  reserved (0)
|   params+12 long  code length: the image starts with this many bytes of instructions (for
|                   `cargo xtask verify`; not read here)
|   params+16       the image: text, data, then bss stored as zeros, exactly as linked at 0
|
| The image runs where the Segment Loader put CODE 1 (a locked handle in the application
| heap): it is relocated in place with the compact table (the walk of stub/relocate.S:
| ferrite-shared/src/flat.rs), so code, data and bss stay contiguous as the linker laid them
| out. Then the instruction cache is flushed with _HWPriv (selector 1) when that trap exists,
| and control jumps to the entry with the registers the Segment Loader gave us (A5 = the
| application's A5 world; the stack as the launch left it). 68000 instructions only.

        .text
        .globl  ferrite_app_start
ferrite_app_start:
        lea     params(%pc),%a1
        lea     16(%a1),%a0             | a0 = the image (load address)
        tst.w   8(%a1)
        bne.s   .Lgo                    | already relocated
        move.w  #1,8(%a1)
        move.l  %a0,%d1                 | d1 = the value to add
        movea.l %a0,%a1
        adda.l  params+4(%pc),%a1       | a1 = the relocation table
.Lnext:
        moveq   #0,%d0
        move.b  (%a1)+,%d0              | first byte of the entry
        beq.s   .Lflush                 | 00: end of table
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
        lsl.l   #8,%d0
        move.b  (%a1)+,%d0
        dbra    %d2,.Lbyte
        bra.s   .Lapply
.Lflush:
        move.w  #0xA198,%d0             | _HWPriv
        .short  0xA346                  | _GetOSTrapAddress -> a0
        movea.l %a0,%a1
        move.w  #0xA89F,%d0             | _Unimplemented
        .short  0xA746                  | _GetToolTrapAddress -> a0
        cmpa.l  %a0,%a1
        beq.s   .Lgo                    | no _HWPriv: no cache to flush
        moveq   #1,%d0                  | FlushInstructionCache
        .short  0xA198                  | _HWPriv
.Lgo:
        lea     params(%pc),%a0
        move.l  (%a0),%d0
        lea     16(%a0,%d0.l),%a0       | the entry
        jmp     (%a0)
        .balign 4
params:
