| _start for the differential tests under qemu-m68k (a freestanding m68k Linux executable).
|
| Hand-written, like the codegen suite's, so that the harness does not depend on the
| compiler it is testing: it only calls the C entry points dt_run, dt_trace and
| dt_function_count.
|
| Usage: ferrite-difftest-linux.elf FUNCTION SEED FIRST COUNT     digests of inputs
|                                                                  FIRST .. FIRST+COUNT-1
|        ferrite-difftest-linux.elf FUNCTION SEED INDEX 1 t       the trace of input INDEX
| (decimal arguments). Output on stdout, binary, big-endian: `length:u32` (0xFFFFFFFF =
| bad function or too much output) and `length` bytes, then `END!` and the function count.
| Linux system calls: trap #0 with D0 = number (1 exit, 4 write), D1-D3 = arguments.

        .equ    CAP, 65536

        .text
        .globl  _start
_start:
        cmpi.l  #5,(%sp)                | argc >= 5?
        blt.w   .Lusage
        lea     8(%sp),%a3              | &argv[1]
        lea     args,%a4
        moveq   #3,%d6                  | four numbers
.Lnum:
        movea.l (%a3)+,%a0
        bsr.w   .Lparse
        move.l  %d0,(%a4)+
        dbra    %d6,.Lnum
        cmpi.l  #6,(%sp)                | a fifth argument: trace mode
        bge.s   .Ltrace
        move.l  #CAP,-(%sp)
        pea     out_buf
        move.l  args+12,-(%sp)          | count
        move.l  args+8,-(%sp)           | first
        move.l  args+4,-(%sp)           | seed
        move.l  args,-(%sp)             | function
        jsr     dt_run
        lea     24(%sp),%sp
        bra.s   .Lwrite
.Ltrace:
        move.l  #CAP,-(%sp)
        pea     out_buf
        move.l  args+8,-(%sp)           | index
        move.l  args+4,-(%sp)           | seed
        move.l  args,-(%sp)             | function
        jsr     dt_trace
        lea     20(%sp),%sp
.Lwrite:
        move.l  %d0,%d5                 | d5 = length or 0xFFFFFFFF
        lea     header,%a0
        move.l  %d5,(%a0)
        moveq   #4,%d3
        bsr.s   .Lwrite_header
        cmpi.l  #-1,%d5
        beq.s   .Lend
        move.l  %d5,%d3
        move.l  #out_buf,%d2
        moveq   #1,%d1
        moveq   #4,%d0
        trap    #0
.Lend:
        jsr     dt_function_count
        lea     header,%a0
        move.l  #0x454E4421,(%a0)       | "END!"
        move.l  %d0,4(%a0)
        moveq   #8,%d3
        bsr.s   .Lwrite_header
        moveq   #0,%d1
        moveq   #1,%d0
        trap    #0                      | exit(0)
.Lusage:
        moveq   #2,%d1
        moveq   #1,%d0
        trap    #0                      | exit(2)

| D3 bytes of header to stdout.
.Lwrite_header:
        move.l  #header,%d2
        moveq   #1,%d1
        moveq   #4,%d0
        trap    #0
        rts

| The decimal number at A0 into D0 (D1, D2 used).
.Lparse:
        moveq   #0,%d0
.Ldigit:
        moveq   #0,%d1
        move.b  (%a0)+,%d1
        beq.s   .Lparsed
        subi.b  #'0',%d1
        move.l  %d0,%d2
        lsl.l   #3,%d0                  | d0 * 8
        add.l   %d2,%d2                 | + d0 * 2
        add.l   %d2,%d0
        add.l   %d1,%d0
        bra.s   .Ldigit
.Lparsed:
        rts
        | Objects linked after this one may want 4-byte alignment: pad with NOPs, not
        | zeros, so the text stays decodable from end to end.
        .balignw 4,0x4e71

        .bss
        .align  4
args:   .space  16
header: .space  8
out_buf:
        .space  CAP
