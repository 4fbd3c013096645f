/* 32x32->32 multiply helpers for 68000 code: the replacement for the
 * 68020-only mulu.l / muls.l <src>,%dl that `repair_68000` puts in.
 *
 * The caller does
 *     move.l  <src>,-(%sp)
 *     move.l  %dl,-(%sp)
 *     jsr     __ferrite_mulu32        | or __ferrite_muls32
 *     move.l  (%sp)+,%dl
 *     move.w  (%sp)+,%ccr
 *     lea     2(%sp),%sp
 * so on entry 4(%sp) = dl (multiplicand), 8(%sp) = src.  The helper writes
 * the low 32 bits of the product to 4(%sp) and, to the first word of the src
 * slot at 8(%sp), the CCR that MULU.L/MULS.L would leave: N and Z from the
 * 32-bit result, V = the true product does not fit 32 bits (unsigned for
 * mulu, signed for muls), C = 0 and X as on entry.  Every register is
 * preserved.  Plain 68000 instructions only.
 */
	.text
	.even

	.globl	__ferrite_mulu32
	.type	__ferrite_mulu32,@function
__ferrite_mulu32:
	movem.l	%d0-%d6,-(%sp)		| 28 bytes: ret 28(sp), dl 32(sp), src 36(sp)
	moveq	#0,%d5			| moveq leaves X alone
	addx.l	%d5,%d5			| d5 = X
	lsl.w	#4,%d5			| X in bit 4
	move.l	32(%sp),%d0
	move.l	36(%sp),%d1
	bsr.s	.Lumul
	bra.s	.Lfinish
	.size	__ferrite_mulu32,.-__ferrite_mulu32

	.globl	__ferrite_muls32
	.type	__ferrite_muls32,@function
__ferrite_muls32:
	movem.l	%d0-%d6,-(%sp)
	moveq	#0,%d5
	addx.l	%d5,%d5
	lsl.w	#4,%d5
	move.l	32(%sp),%d0
	move.l	36(%sp),%d1
	move.l	%d0,%d6
	eor.l	%d1,%d6			| bit 31 = sign of the product
	tst.l	%d0
	bpl.s	1f
	neg.l	%d0			| |a| (0x80000000 stays, as unsigned)
1:	tst.l	%d1
	bpl.s	2f
	neg.l	%d1
2:	bsr.s	.Lumul			| d0 = |a|*|b| mod 2^32, d2 = unsigned overflow
	tst.l	%d6
	bmi.s	3f
	tst.l	%d0			| positive: fits iff m <= 0x7fffffff
	bpl.s	.Lfinish
	moveq	#1,%d2
	bra.s	.Lfinish
3:	cmp.l	#0x80000000,%d0		| negative: fits iff m <= 0x80000000
	bls.s	4f
	moveq	#1,%d2
4:	neg.l	%d0
	/* fall through */

/* d0 = low 32 bits of the product, d2 = overflow (non-zero), d5 = X << 4. */
.Lfinish:
	tst.l	%d0
	bpl.s	1f
	or.w	#8,%d5			| N
1:	tst.l	%d0
	bne.s	2f
	or.w	#4,%d5			| Z
2:	tst.l	%d2
	beq.s	3f
	or.w	#2,%d5			| V
3:	move.l	%d0,32(%sp)		| result into the dl slot
	move.w	%d5,36(%sp)		| CCR into the first word of the src slot
	movem.l	(%sp)+,%d0-%d6
	rts
	.size	__ferrite_muls32,.-__ferrite_muls32

/* Unsigned 32x32: d0 = a, d1 = b  ->  d0 = a*b mod 2^32, d2 = non-zero if
 * a*b >= 2^32.  Clobbers d3, d4. */
	.type	.Lumul,@function
.Lumul:
	moveq	#0,%d4			| overflow
	move.l	%d0,%d2
	swap	%d2			| d2.w = ah
	move.l	%d1,%d3
	swap	%d3			| d3.w = bh
	tst.w	%d2
	beq.s	1f
	tst.w	%d3
	beq.s	1f
	moveq	#1,%d4			| ah*bh != 0
1:	mulu.w	%d1,%d2			| ah*bl
	mulu.w	%d0,%d3			| bh*al
	add.l	%d3,%d2			| cross = ah*bl + bh*al
	bcc.s	2f
	moveq	#1,%d4
2:	move.l	%d2,%d3
	clr.w	%d3
	tst.l	%d3			| cross >= 2^16?
	beq.s	3f
	moveq	#1,%d4
3:	swap	%d2
	clr.w	%d2			| (cross << 16) mod 2^32
	mulu.w	%d1,%d0			| al*bl
	add.l	%d2,%d0
	bcc.s	4f
	moveq	#1,%d4
4:	move.l	%d4,%d2
	rts
	.size	.Lumul,.-.Lumul
