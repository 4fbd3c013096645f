| A RAM-disk test driver (".TestDsk", 4096 bytes) and small test programs for the emulated
| Mac's Device Manager, drive queue, VBL tasks, events and OS utilities
| (tests/tests/device_manager.rs). GNU as syntax, 68000 only.
|
| Driver behaviour is steered by variables the host sets:
|   async_mode  0: queued requests complete at once through IODone
|               1: Prime/Control/Status return D0 = 1 without IODone; `finish_pending`
|                  (called by a host-scheduled interrupt) completes through JIODone
|               2: the same, completed by the driver's own VBL task 2 ticks later
|   bad_immed_iodone  nonzero: also jump to IODone for an immediate call (misuse)
|   double_iodone     nonzero: call IODone twice for a queued request (misuse)
|   open_result / close_result / kill_result: what Open, Close, Control killCode return
|   post_drive  nonzero: accRun posts diskEvt for this drive until _PostEvent returns 0
|   accrun_read nonzero: the next accRun reads 16 bytes of its own disk with a synchronous
|               _Read (as a driver mounting its volumes with _MountVol from accRun does);
|               the result goes to accrun_read_result

| The DRVR header lives in .data (the verifier decodes all of .text as instructions); its
| routine offsets point at JMP trampolines right after it, which enter the verified code.
        .data
        .globl drvr
drvr:
        .short  0x4F00                  | drvrFlags: read, write, control, status enabled
        .short  0                       | drvrDelay
        .short  0                       | drvrEMask
        .short  0                       | drvrMenu
        .short  o_open-drvr
        .short  o_prime-drvr
        .short  o_ctl-drvr
        .short  o_status-drvr
        .short  o_close-drvr
        .byte   8
        .ascii  ".TestDsk"
        .even
o_open: jmp     d_open
o_prime: jmp    d_prime
o_ctl:  jmp     d_ctl
o_status: jmp   d_status
o_close: jmp    d_close

        .text
d_open: move.l  %d0,entry_d0
        move.l  %a0,entry_a0
        move.l  %a1,entry_a1
        move.l  %a2,entry_a2
        addq.l  #1,open_count
        move.w  open_result,%d0
        ext.l   %d0
        rts

d_close:
        addq.l  #1,close_count
        move.w  close_result,%d0
        ext.l   %d0
        rts

d_prime:
        movem.l %d3/%a2-%a3,-(%sp)
        addq.l  #1,prime_count
        move.w  6(%a0),last_prime_trap
        move.l  16(%a1),%d0             | dCtlPosition
        move.l  %d0,last_pos
        move.w  44(%a0),last_posmode
        move.l  36(%a0),%d1             | ioReqCount
        move.l  %d0,%d3
        add.l   %d1,%d3
        cmp.l   #4096,%d3
        bhi.s   p_range
        lea     disk,%a2
        adda.l  %d0,%a2
        movea.l 32(%a0),%a3             | ioBuffer
        move.l  %d1,%d3
        cmpi.b  #2,7(%a0)               | ioTrap low byte 2 = Read
        bne.s   p_wr_test
        bra.s   p_rd_test
p_rd:   move.b  (%a2)+,(%a3)+
p_rd_test:
        subq.l  #1,%d3
        bcc.s   p_rd
        bra.s   p_done
p_wr:   move.b  (%a3)+,(%a2)+
p_wr_test:
        subq.l  #1,%d3
        bcc.s   p_wr
p_done: move.l  %d1,40(%a0)             | ioActCount
        add.l   %d1,16(%a1)             | advance dCtlPosition
        moveq   #0,%d0
        bra.s   p_out
p_range:
        clr.l   40(%a0)
        moveq   #-50,%d0                | paramErr
p_out:  movem.l (%sp)+,%d3/%a2-%a3
        bra     finish

d_ctl:  addq.l  #1,ctl_count
        move.w  26(%a0),%d0
        move.w  %d0,last_cscode
        move.w  6(%a0),last_ctl_trap
        cmpi.w  #65,%d0
        beq.s   c_accrun
        cmpi.w  #-1,%d0
        beq.s   c_goodbye
        cmpi.w  #1,%d0
        beq.s   c_kill
        cmpi.w  #100,%d0
        beq.s   c_echo
        moveq   #-17,%d0                | controlErr
        bra     finish
c_echo: addq.l  #1,28(%a0)
        moveq   #0,%d0
        bra     finish
c_kill: move.w  kill_result,%d0
        bne.s   1f
        clr.l   pending_dce             | abandon the work in progress
1:      addq.l  #1,kill_count
        ext.l   %d0
        bra     finish
c_goodbye:
        addq.l  #1,goodbye_count
        moveq   #0,%d0
        bra     finish
c_accrun:
        addq.l  #1,accrun_count
        move.l  0x16A,last_accrun_tick
        tst.b   accrun_read
        beq.s   3f
        clr.b   accrun_read
        movem.l %a0-%a1,-(%sp)
        lea     accrun_pb,%a0
        clr.l   12(%a0)                 | ioCompletion
        move.w  refnum,24(%a0)          | ioRefNum
        move.l  #accrun_buf,32(%a0)     | ioBuffer
        move.l  #16,36(%a0)             | ioReqCount
        move.w  #1,44(%a0)              | ioPosMode: fsFromStart
        clr.l   46(%a0)                 | ioPosOffset
        .short  0xA002                  | _Read (synchronous), from inside the immediate call
        move.w  %d0,accrun_read_result
        movem.l (%sp)+,%a0-%a1
3:
        tst.w   post_drive
        beq.s   2f
        move.w  post_drive,%d0
        addq.l  #1,post_tries
        ext.l   %d0
        move.l  %a0,-(%sp)
        movea.w #7,%a0                  | diskEvt
        .short  0xA02F                  | _PostEvent
        movea.l (%sp)+,%a0
        tst.w   %d0
        bne.s   2f
        clr.w   post_drive
2:      moveq   #0,%d0
        bra     finish

d_status:
        addq.l  #1,status_count
        move.w  26(%a0),%d0
        cmpi.w  #100,%d0
        bne.s   1f
        move.l  #0x12345678,28(%a0)
        moveq   #0,%d0
        bra.s   finish
1:      moveq   #-18,%d0                | statusErr
                                        | fall through to finish

| D0 = result, A0 = PB, A1 = DCE: return the way IM Devices says.
finish: btst    #1,6(%a0)               | ioTrap bit 9: immediate
        beq.s   f_queued
        move.w  %d0,16(%a0)             | store ioResult ourselves
        tst.b   bad_immed_iodone
        bne.s   f_iodone
        rts
f_queued:
        tst.b   async_mode
        bne.s   f_async
        tst.b   double_iodone
        beq.s   f_iodone
        movem.l %d0/%a1,-(%sp)
        pea     1f
        move.l  0x8FC,-(%sp)            | JSR through JIODone
        rts
1:      movem.l (%sp)+,%d0/%a1
f_iodone:
        move.l  0x8FC,-(%sp)            | JMP through JIODone
        rts
f_async:
        move.l  %a1,pending_dce
        move.w  %d0,pending_result
        cmpi.b  #2,async_mode
        bne.s   1f
        move.w  #2,vtask2+10            | vblCount: finish in 2 ticks
1:      moveq   #1,%d0                  | still in progress
        rts

| Complete the pending request through JIODone (Mac OS register convention).
        .globl finish_pending
finish_pending:
fp_local:
        move.l  pending_dce,%d1
        beq.s   1f
        movea.l %d1,%a1
        clr.l   pending_dce
        move.w  pending_result,%d0
        ext.l   %d0
        move.l  0x8FC,-(%sp)
1:      rts

d_vbl:  addq.l  #1,drv_vbl_runs
        bra.s   fp_local

| install(refNum): _DrvrInstall, fill the DCE, install the driver's VBL task. D0 = result.
        .globl install
install:
        move.l  4(%sp),%d0
        move.w  %d0,refnum
        lea     drvr,%a0
        .short  0xA03D                  | _DrvrInstall
        tst.w   %d0
        bne.s   9f
        move.w  refnum,%d1
        not.w   %d1
        ext.l   %d1
        lsl.l   #2,%d1
        movea.l 0x11C,%a0               | UTableBase
        movea.l 0(%a0,%d1.l),%a0
        move.l  %a0,dce_handle
        .short  0xA029                  | _HLock: dce_ptr and interrupt-time code rely on it
        movea.l (%a0),%a0
        move.l  %a0,dce_ptr
        lea     drvr,%a1
        move.l  %a1,(%a0)               | dCtlDriver
        move.w  drvr,4(%a0)             | dCtlFlags (dRAMBased clear)
        move.w  drvr+2,34(%a0)          | dCtlDelay
        lea     vtask2,%a0
        move.w  #1,4(%a0)
        move.l  #d_vbl,6(%a0)
        clr.w   10(%a0)
        .short  0xA033                  | _VInstall
9:      rts

| add_drive(number): fill the drive-queue element (4096 bytes = 8 blocks) and _AddDrive.
        .globl add_drive
add_drive:
        lea     dqel,%a0
        move.w  #1,4(%a0)               | qType 1
        move.w  #8,12(%a0)              | dQDrvSz
        clr.w   14(%a0)                 | dQDrvSz2
        move.b  #8,-3(%a0)              | diskInPlace: fixed
        move.b  #1,-2(%a0)              | installed
        move.l  4(%sp),%d0
        swap    %d0
        move.w  refnum,%d0
        .short  0xA04E                  | _AddDrive
        rts

| add_drive_at(element, d0): _AddDrive with any element.
        .globl add_drive_at
add_drive_at:
        movea.l 4(%sp),%a0
        move.l  8(%sp),%d0
        .short  0xA04E
        rts

| dequeue(element, header). _Dequeue is a Toolbox trap: it may change D0-D2/A0-A1, and D2 is
| callee-saved in the C ABI.
        .globl dequeue
dequeue:
        move.l  %d2,-(%sp)
        movea.l 8(%sp),%a0
        movea.l 12(%sp),%a1
        .short  0xA96E
        move.l  (%sp)+,%d2
        rts

| drvr_install(refNum) / drvr_remove(refNum): the bare traps.
        .globl drvr_install
drvr_install:
        move.l  4(%sp),%d0
        lea     drvr,%a0
        .short  0xA03D
        rts
        .globl drvr_remove
drvr_remove:
        move.l  4(%sp),%d0
        .short  0xA03E
        rts

| post_event(code, message)
        .globl post_event
post_event:
        movea.l 4(%sp),%a0
        move.l  8(%sp),%d0
        .short  0xA02F
        rts

| gestalt(selector): D0 = result, response in gestalt_resp.
        .globl gestalt
gestalt:
        move.l  4(%sp),%d0
        .short  0xA1AD
        move.l  %a0,gestalt_resp
        rts

| vinstall(task) / vremove(task)
        .globl vinstall
vinstall:
        movea.l 4(%sp),%a0
        .short  0xA033
        rts
        .globl vremove
vremove:
        movea.l 4(%sp),%a0
        .short  0xA034
        rts

| The test VBL task: counts, records Ticks, reloads vblCount from tvbl_reload.
        .globl t_vproc
t_vproc:
        addq.l  #1,tvbl_runs
        move.l  0x16A,tvbl_last_tick
        move.w  tvbl_reload,10(%a0)
        rts

| The completion routine: records what it got.
        .globl compl
compl:  addq.l  #1,compl_count
        move.l  %a0,compl_pb
        move.w  %d0,compl_d0
        move.w  16(%a0),compl_ioresult
        rts

| The chaining completion routine: the first time, queue `chain_pb` as an async Read (from
| inside IODone), then behave like `compl`.
        .globl compl_chain
compl_chain:
        move.l  chain_pb,%d1
        beq.s   1f
        clr.l   chain_pb
        move.l  %a0,-(%sp)
        movea.l %d1,%a0
        .short  0xA402                  | _Read ,ASYNC
        move.w  %d0,chain_d0
        movea.l (%sp)+,%a0
1:      bra     compl

| os_trap_address(trap): _GetOSTrapAddress; returns A0.
        .globl os_trap_address
os_trap_address:
        move.l  4(%sp),%d0
        .short  0xA346
        move.l  %a0,%d0
        rts

| reloc_test(dst, flush): copy `tiny` to dst, flush with _HWPriv 1 if asked, jump there.
        .globl reloc_test
reloc_test:
        movea.l 4(%sp),%a1
        lea     tiny,%a0
        move.w  (%a0)+,(%a1)+
        move.w  (%a0)+,(%a1)+
        tst.l   8(%sp)
        beq.s   1f
        moveq   #1,%d0
        .short  0xA198                  | _HWPriv FlushInstructionCache
1:      movea.l 4(%sp),%a0
        jmp     (%a0)
tiny:   moveq   #42,%d0
        rts

        .bss
        .even
        .globl disk
disk:   .space  4096
        .globl dqprefix, dqel
dqprefix: .space 4
dqel:   .space  16
        .globl vtask2, vtask
vtask2: .space  14
vtask:  .space  14
        .globl entry_d0, entry_a0, entry_a1, entry_a2
entry_d0: .long 0
entry_a0: .long 0
entry_a1: .long 0
entry_a2: .long 0
        .globl open_count, close_count, prime_count, ctl_count, status_count
open_count: .long 0
close_count: .long 0
prime_count: .long 0
ctl_count: .long 0
status_count: .long 0
        .globl kill_count, goodbye_count, accrun_count, last_accrun_tick, post_tries
kill_count: .long 0
goodbye_count: .long 0
accrun_count: .long 0
last_accrun_tick: .long 0
post_tries: .long 0
        .globl last_pos, pending_dce, dce_handle, dce_ptr, drv_vbl_runs
last_pos: .long 0
pending_dce: .long 0
dce_handle: .long 0
dce_ptr: .long 0
drv_vbl_runs: .long 0
        .globl gestalt_resp, tvbl_runs, tvbl_last_tick, compl_count, compl_pb
gestalt_resp: .long 0
tvbl_runs: .long 0
tvbl_last_tick: .long 0
compl_count: .long 0
compl_pb: .long 0
        .globl open_result, close_result, kill_result, refnum, last_cscode, last_ctl_trap
open_result: .word 0
close_result: .word 0
kill_result: .word 0
refnum: .word 0
last_cscode: .word 0
last_ctl_trap: .word 0
        .globl last_posmode, last_prime_trap, post_drive, pending_result, compl_d0
last_posmode: .word 0
last_prime_trap: .word 0
post_drive: .word 0
pending_result: .word 0
compl_d0: .word 0
        .globl chain_pb, chain_d0
chain_pb: .long 0
chain_d0: .word 0
        .globl compl_ioresult, tvbl_reload
compl_ioresult: .word 0
tvbl_reload: .word 0
        .globl accrun_read, accrun_read_result, accrun_buf
        .data
accrun_read_result: .word 1             | 1 until the _Read from accRun returns
        .bss
accrun_pb: .space 50
accrun_buf: .space 16
accrun_read: .byte 0
        .even
        .globl async_mode, bad_immed_iodone, double_iodone
async_mode: .byte 0
bad_immed_iodone: .byte 0
double_iodone: .byte 0
        .even
