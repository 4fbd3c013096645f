| _start for the codegen suite under qemu-m68k (a freestanding m68k Linux executable).
|
| Hand-written so that the harness does not depend on the compiler it is testing: it
| only calls the suite's C entry points, cg_case_count and cg_run_case.
|
| Usage: codegen-suite-linux.elf [FIRST]   runs cases FIRST .. count-1 (default 0).
| Output on stdout, binary, big-endian: for each case `index:u32 length:u32` (length
| 0xFFFFFFFF = overflow or bad index) followed by `length` output bytes; at the end
| `END!` and the case count. Linux system calls: trap #0 with D0 = number (1 exit,
| 4 write), D1-D3 = arguments.

        .text
        .globl  _start
_start:
        moveq   #0,%d7                  | d7 = index of the next case
        cmpi.l  #2,(%sp)                | argc >= 2?
        blt.s   .Lrun
        movea.l 8(%sp),%a0              | argv[1]: decimal first index
.Ldigit:
        moveq   #0,%d1
        move.b  (%a0)+,%d1
        beq.s   .Lrun
        subi.w  #'0',%d1
        mulu.w  #10,%d7
        add.l   %d1,%d7
        bra.s   .Ldigit
.Lrun:
        jsr     cg_case_count
        move.l  %d0,%d6                 | d6 = case count
.Lloop:
        cmp.l   %d6,%d7
        bcc.s   .Lend                   | index >= count: done
        move.l  #4096,-(%sp)            | cap
        pea     out_buf                 | out
        move.l  %d7,-(%sp)              | index
        jsr     cg_run_case
        lea     12(%sp),%sp
        move.l  %d0,%d5                 | d5 = length or 0xFFFFFFFF
        lea     header,%a0
        move.l  %d7,(%a0)
        move.l  %d5,4(%a0)
        bsr.s   .Lwrite_header
        cmpi.l  #-1,%d5
        beq.s   .Lnext
        move.l  %d5,%d3
        move.l  #out_buf,%d2
        moveq   #1,%d1
        moveq   #4,%d0
        trap    #0
.Lnext:
        addq.l  #1,%d7
        bra.s   .Lloop
.Lend:
        lea     header,%a0
        move.l  #0x454E4421,(%a0)       | "END!"
        move.l  %d6,4(%a0)
        bsr.s   .Lwrite_header
        moveq   #0,%d1
        moveq   #1,%d0
        trap    #0                      | exit(0)

.Lwrite_header:
        moveq   #8,%d3
        move.l  #header,%d2
        moveq   #1,%d1
        moveq   #4,%d0
        trap    #0
        rts
        | Objects linked after this one may want 4-byte alignment: pad with NOPs, not
        | zeros, so the text stays decodable from end to end.
        .balignw 4,0x4e71

        .bss
        .align  4
header: .space  8
out_buf:
        .space  4096
