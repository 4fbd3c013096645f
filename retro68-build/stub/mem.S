| memcpy, memmove, memset, memcmp and bcmp for every m68k artifact built from Rust, by hand.
|
| Why not compiler_builtins' versions: built by LLVM for the 68000 they read and write
| words at odd addresses (an address error on a 68000) and fail the codegen suite's
| alignment cases on every CPU (docs/codegen-conformance.md). These use only 68000
| instructions and never access a word or long at an odd address: when the two pointers
| differ in parity they copy bytes; otherwise they align to even, move longs, then the tail.
|
| C ABI: arguments on the stack; the result in D0 (and A0, for pointer results). D0-D1/A0-A1
| are scratch; D2 is saved where used.

        .text

| void *memcpy(void *dst, const void *src, size_t n)
        .globl  memcpy
        .type   memcpy,@function
memcpy:
        move.l  %d2,-(%sp)
        movea.l 8(%sp),%a0
        movea.l 12(%sp),%a1
        move.l  16(%sp),%d1
        bsr.s   copy_forward
        move.l  8(%sp),%d0
        movea.l %d0,%a0
        move.l  (%sp)+,%d2
        rts
        .size   memcpy, . - memcpy

| void *memmove(void *dst, const void *src, size_t n)
        .globl  memmove
        .type   memmove,@function
memmove:
        move.l  %d2,-(%sp)
        movea.l 8(%sp),%a0
        movea.l 12(%sp),%a1
        move.l  16(%sp),%d1
        cmpa.l  %a1,%a0
        bls.s   1f                      | dst <= src: forward is safe
        move.l  %a1,%d0
        add.l   %d1,%d0
        cmpa.l  %d0,%a0
        bcc.s   1f                      | dst >= src + n: no overlap
        adda.l  %d1,%a0
        adda.l  %d1,%a1
        bsr.s   copy_backward
        bra.s   2f
1:      bsr.s   copy_forward
2:      move.l  8(%sp),%d0
        movea.l %d0,%a0
        move.l  (%sp)+,%d2
        rts
        .size   memmove, . - memmove

| a0 = dst, a1 = src, d1 = n. Clobbers d0-d2, a0-a1.
copy_forward:
        cmpi.l  #16,%d1
        bcs.s   3f
        move.l  %a0,%d0
        move.l  %a1,%d2
        eor.l   %d2,%d0
        btst    #0,%d0
        bne.s   3f                      | parities differ: bytes only
        move.l  %a0,%d0
        btst    #0,%d0
        beq.s   1f
        move.b  (%a1)+,(%a0)+
        subq.l  #1,%d1
1:      move.l  %d1,%d0
        lsr.l   #2,%d0                  | longs (at least 3)
        andi.l  #3,%d1                  | tail bytes
2:      move.l  (%a1)+,(%a0)+
        subq.l  #1,%d0
        bne.s   2b
3:      tst.l   %d1
        beq.s   5f
4:      move.b  (%a1)+,(%a0)+
        subq.l  #1,%d1
        bne.s   4b
5:      rts

| a0 = dst end, a1 = src end, d1 = n. Clobbers d0-d2, a0-a1.
copy_backward:
        cmpi.l  #16,%d1
        bcs.s   3f
        move.l  %a0,%d0
        move.l  %a1,%d2
        eor.l   %d2,%d0
        btst    #0,%d0
        bne.s   3f
        move.l  %a0,%d0
        btst    #0,%d0
        beq.s   1f
        move.b  -(%a1),-(%a0)
        subq.l  #1,%d1
1:      move.l  %d1,%d0
        lsr.l   #2,%d0
        andi.l  #3,%d1
2:      move.l  -(%a1),-(%a0)
        subq.l  #1,%d0
        bne.s   2b
3:      tst.l   %d1
        beq.s   5f
4:      move.b  -(%a1),-(%a0)
        subq.l  #1,%d1
        bne.s   4b
5:      rts

| void *memset(void *dst, int c, size_t n)
        .globl  memset
        .type   memset,@function
memset:
        move.l  %d2,-(%sp)
        movea.l 8(%sp),%a0
        moveq   #0,%d0
        move.b  15(%sp),%d0             | the low byte of c
        move.l  16(%sp),%d1
        cmpi.l  #16,%d1
        bcs.s   3f
        move.l  %d0,%d2                 | replicate the byte into a long
        lsl.l   #8,%d2
        or.l    %d2,%d0
        move.l  %d0,%d2
        swap    %d2
        or.l    %d2,%d0
        move.l  %a0,%d2
        btst    #0,%d2
        beq.s   1f
        move.b  %d0,(%a0)+
        subq.l  #1,%d1
1:      move.l  %d1,%d2
        lsr.l   #2,%d2
        andi.l  #3,%d1
2:      move.l  %d0,(%a0)+
        subq.l  #1,%d2
        bne.s   2b
3:      tst.l   %d1
        beq.s   5f
4:      move.b  %d0,(%a0)+
        subq.l  #1,%d1
        bne.s   4b
5:      move.l  8(%sp),%d0
        movea.l %d0,%a0
        move.l  (%sp)+,%d2
        rts
        .size   memset, . - memset

| int memcmp(const void *a, const void *b, size_t n); bcmp: the same (0 iff equal).
        .globl  memcmp
        .type   memcmp,@function
        .globl  bcmp
        .type   bcmp,@function
memcmp:
bcmp:
        movea.l 4(%sp),%a0
        movea.l 8(%sp),%a1
        move.l  12(%sp),%d1
        beq.s   2f
1:      cmpm.b  (%a1)+,(%a0)+
        bne.s   3f
        subq.l  #1,%d1
        bne.s   1b
2:      moveq   #0,%d0
        rts
3:      moveq   #0,%d0
        move.b  -1(%a0),%d0
        moveq   #0,%d1
        move.b  -1(%a1),%d1
        sub.l   %d1,%d0
        rts
        .size   memcmp, . - memcmp
