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
| heap): it is relocated in place with the compact table (ferrite-shared/src/flat.rs; the
| walk is the FERRITE_RELOC_WALK macro of stub/reloc_walk.S, which the build puts in front
| of this file), so code, data and bss stay contiguous as the linker laid them out. Then the
| instruction cache is flushed with _HWPriv (selector 1) when that trap exists, and control
| jumps to the entry with the registers the Segment Loader gave us (A5 = the application's
| A5 world; the stack as the launch left it). 68000 instructions only.

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
        FERRITE_RELOC_WALK .Lflush
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
