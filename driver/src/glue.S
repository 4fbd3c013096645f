| Ferrite driver, part 2 of 2: the glue between the Mac and the Rust code, as ordinary
| verified code. Device Manager entries (reached from the head's stubs) get A0 = parameter
| block, A1 = DCE. Trap glue functions follow the C ABI (arguments on the stack, result in
| D0; D0-D1/A0-A1 scratch). Conventions: `docs/mac-facts.md` §3, §6.7, §7, §9.

        .equ    JIODone,        0x8FC

        .text
| ---- Device Manager entries (A0 = PB, A1 = DCE) ------------------------------------------
        .globl  glue_open, glue_prime, glue_control, glue_status, glue_close
glue_open:
        movem.l %a0-%a1,-(%sp)
        bsr.w   ferrite_open
        movem.l (%sp)+,%a0-%a1
        rts
glue_close:
        movem.l %a0-%a1,-(%sp)
        bsr.w   ferrite_close
        movem.l (%sp)+,%a0-%a1
        rts
glue_prime:
        movem.l %a0-%a1,-(%sp)
        bsr.w   ferrite_prime
        bra.s   dm_finish
glue_control:
        movem.l %a0-%a1,-(%sp)
        bsr.w   ferrite_control
        bra.s   dm_finish
glue_status:
        movem.l %a0-%a1,-(%sp)
        bsr.w   ferrite_status
| D0 > 0: the request goes on asynchronously and its completion calls IODone. Otherwise
| store the result; an immediate call (ioTrap bit 9) returns by RTS, a queued one through
| IODone (A1 = DCE, D0 = result).
dm_finish:
        movem.l (%sp)+,%a0-%a1
        tst.l   %d0
        bgt.s   1f
        move.w  %d0,16(%a0)             | ioResult
        btst    #1,6(%a0)               | ioTrap bit 9: immediate
        bne.s   1f
        move.l  (JIODone).w,-(%sp)
1:      rts

| ---- SCSI Manager 4.3 completion (Pascal: the PB is on the stack; we pop it) -------------
        .globl  ferrite_scsi_completion
| D2-D7/A2-A6, which the SIM needs back, are the C ABI's callee-saved registers: the Rust
| code keeps them (the emulated SIM checks D3-D7/A2-A6 on every completion).
ferrite_scsi_completion:
        subq.l  #4,%sp                  | slot for the request result
        pea     (%sp)                   | &slot
        move.l  12(%sp),-(%sp)          | the PB
        bsr.w   ferrite_scsi_complete   | (pb, &result) -> DCE to complete, or 0
        addq.l  #8,%sp
        move.l  (%sp)+,%d1              | result
        move.l  (%sp)+,%a0              | return address
        addq.l  #4,%sp                  | pop the PB argument
        move.l  %a0,-(%sp)
        tst.l   %d0
        beq.s   1f
        move.l  %d0,%a1
        move.l  %d1,%d0
        move.l  (JIODone).w,-(%sp)      | IODone returns to our caller
1:      rts

| ---- VBL task: waits out NOT READY for an asynchronous request -------------------------------
| Entered with A0 = the task; D0-D2/A0-A1 scratch (VBL task rules). Like the completion glue,
| it may end the Device Manager request by jumping to IODone.
        .globl  ferrite_vbl_task
ferrite_vbl_task:
        subq.l  #4,%sp                  | slot for the request result
        movem.l %d2-%d7/%a2-%a6,-(%sp)  | 44 bytes
        pea     44(%sp)                 | &slot
        move.l  %a0,-(%sp)              | the task
        bsr.w   ferrite_vbl             | (task, &result) -> DCE to complete, or 0
        addq.l  #8,%sp
        movem.l (%sp)+,%d2-%d7/%a2-%a6
        move.l  (%sp)+,%d1              | result
        tst.l   %d0
        beq.s   1f
        movea.l %d0,%a1
        move.l  %d1,%d0
        move.l  (JIODone).w,-(%sp)      | IODone returns to the VBL manager
1:      rts

| ---- trap glue (C ABI) ---------------------------------------------------------------------
| i16 ferrite_new_ptr_sys_clear(u32 size, void **out)
        .globl  ferrite_new_ptr_sys_clear
ferrite_new_ptr_sys_clear:
        move.l  4(%sp),%d0
        .short  0xA71E                  | _NewPtr SYS CLEAR
        move.l  8(%sp),%a1
        move.l  %a0,(%a1)
        ext.l   %d0
        rts
| i16 ferrite_drvr_install(void *header, i16 refnum)
        .globl  ferrite_drvr_install
ferrite_drvr_install:
        move.l  4(%sp),%a0
        move.l  8(%sp),%d0
        .short  0xA03D                  | _DrvrInstall
        ext.l   %d0
        rts
| i16 ferrite_hlock(void **handle)
        .globl  ferrite_hlock
ferrite_hlock:
        move.l  4(%sp),%a0
        .short  0xA029                  | _HLock
        ext.l   %d0
        rts
| i16 ferrite_add_drive(void *dqel, u32 drive_refnum)
        .globl  ferrite_add_drive
ferrite_add_drive:
        move.l  4(%sp),%a0
        move.l  8(%sp),%d0
        .short  0xA04E                  | _AddDrive
        ext.l   %d0
        rts
| i16 ferrite_post_event(u16 what, u32 message)
        .globl  ferrite_post_event
ferrite_post_event:
        move.l  4(%sp),%a0
        move.l  8(%sp),%d0
        .short  0xA02F                  | _PostEvent
        ext.l   %d0
        rts
| i16 ferrite_scsi_action(void *pb)
        .globl  ferrite_scsi_action
ferrite_scsi_action:
        move.l  4(%sp),%a0
        moveq   #1,%d0                  | SCSIAction
        .short  0xA089                  | _SCSIAtomic
        ext.l   %d0
        rts
| void ferrite_delay(u32 ticks)
        .globl  ferrite_delay
ferrite_delay:
        movea.l 4(%sp),%a0
        .short  0xA03B                  | _Delay
        rts
| i16 ferrite_vinstall(VBLTask *task)
        .globl  ferrite_vinstall
ferrite_vinstall:
        move.l  4(%sp),%a0
        .short  0xA033                  | _VInstall
        ext.l   %d0
        rts
| i16 ferrite_drvr_remove(i16 refnum)
        .globl  ferrite_drvr_remove
ferrite_drvr_remove:
        move.l  4(%sp),%d0
        .short  0xA03E                  | _DrvrRemove
        ext.l   %d0
        rts
| i16 ferrite_dispose_ptr(void *p)
        .globl  ferrite_dispose_ptr
ferrite_dispose_ptr:
        move.l  4(%sp),%a0
        .short  0xA01F                  | _DisposePtr
        ext.l   %d0
        rts
| i16 ferrite_dequeue(void *element, void *queue_header)
        .globl  ferrite_dequeue
| _Dequeue is a Toolbox trap: D1-D2/A0-A1 may change; D2 is callee-saved in the C ABI.
ferrite_dequeue:
        move.l  %d2,-(%sp)
        move.l  8(%sp),%a0
        move.l  12(%sp),%a1
        .short  0xA96E                  | _Dequeue
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts
| bool ferrite_trap_available(u16 trap): the trap's address differs from _Unimplemented's.
        .globl  ferrite_trap_available
ferrite_trap_available:
        move.l  %a2,-(%sp)
        move.w  #0xA89F,%d0
        .short  0xA746                  | _GetToolTrapAddress(_Unimplemented)
        move.l  %a0,%a2
        move.l  8(%sp),%d0
        btst    #11,%d0
        bne.s   1f
        .short  0xA346                  | _GetOSTrapAddress
        bra.s   2f
1:      .short  0xA746                  | _GetToolTrapAddress
2:      moveq   #0,%d0
        cmpa.l  %a0,%a2
        sne     %d0
        and.l   #1,%d0
        move.l  (%sp)+,%a2
        rts
| The original SCSI Manager (_SCSIDispatch, Pascal: the result word, the arguments, then the
| selector; the trap pops all but the result and keeps D3-D7/A2-A6). One transaction in one
| call (C ABI):
|
|   u32 ferrite_old_io(OldIo *io, u8 *cdb, u32 len_sel)
|
| SCSIGet (1); SCSISelect (2) of io->id; SCSICmd (3) of the CDB, len_sel's high word its
| length; the data call of selector len_sel's low word (5/6/8/9 SCSIRead/Write/RBlind/WBlind)
| with io's TIB, none when 0; SCSIComplete (4) into io->stat and io->msg, waiting 300 ticks —
| after every selected command, also when SCSICmd failed (mac-facts §7.3). The decisions stay
| with the caller (`core/scsi_old.rs`): D0 = 0 when every call answered noErr. Otherwise its
| high word is the call that failed first — 1 SCSIGet, 2 SCSISelect (nothing more called; the
| low word is that call's result), 3 SCSICmd (no data call), 4 the data call (for 3 and 4 the
| failed call's result is in io->data), 0 only SCSIComplete — and for 0, 3 and 4 the low word
| is SCSIComplete's result. io->data is 0 when the data call answered noErr or there was none.
| The OldIo offsets are asserted in core/scsi_old.rs.
        .equ    .LIO_STAT, 0
        .equ    .LIO_MSG, 2
        .equ    .LIO_ID, 4
        .equ    .LIO_DATA, 6
        .equ    .LIO_TIB, 8
        .globl  ferrite_old_io
| _SCSIDispatch is a Toolbox trap: it may change D0-D2/A0-A1 (IM Operating System
| Utilities, "The Trap Dispatcher"). D2 and A2 are the C ABI's callee-saved registers we
| touch or the trap may touch, so both are saved here; nothing lives in D0-D2/A0-A1 across a
| trap (the io block stays in A2, everything else is reloaded from the stack).
| Stack after saving D2/A2: 8 return address, 12 io, 16 cdb, 20 len_sel (22 its low word).
| Separate moves, not MOVEM: cheaper for two registers on the 68000 (24 + 24 cycles against
| 24 + 28), and this runs once per transaction.
ferrite_old_io:
        move.l  %d2,-(%sp)
        move.l  %a2,-(%sp)
        movea.l 12(%sp),%a2
        move.l  #0x10000,-(%sp)         | selector 1 over the result word
        .short  0xA815                  | SCSIGet
        move.w  (%sp)+,%d0
        bne.s   8f
        subq.l  #2,%sp
        move.w  .LIO_ID(%a2),-(%sp)
        move.w  #2,-(%sp)
        .short  0xA815                  | SCSISelect(id)
        move.w  (%sp)+,%d0
        bne.s   7f
        subq.l  #2,%sp
        move.l  18(%sp),-(%sp)          | cdb
        move.w  26(%sp),-(%sp)          | its length
        move.w  #3,-(%sp)
        .short  0xA815                  | SCSICmd(cdb, length)
        move.w  (%sp)+,%d0
        bne.s   5f
        move.w  22(%sp),%d0             | the data call
        beq.s   1f
        subq.l  #2,%sp
        pea     .LIO_TIB(%a2)
        move.w  %d0,-(%sp)
        .short  0xA815                  | SCSIRead/Write/RBlind/WBlind(tib)
        move.w  (%sp)+,%d0
        move.w  %d0,.LIO_DATA(%a2)
        beq.s   2f
        moveq   #4,%d0
        bra.s   3f
5:      move.w  %d0,.LIO_DATA(%a2)
        moveq   #3,%d0
        bra.s   3f
1:      clr.w   .LIO_DATA(%a2)
2:      moveq   #0,%d0
3:      move.w  %d0,-(%sp)              | which call failed: 0, 3 or 4
        subq.l  #2,%sp
        pea     .LIO_STAT(%a2)
        pea     .LIO_MSG(%a2)
        pea     (300).w                 | the wait, 300 ticks (PEA: fewer cycles)
        move.w  #4,-(%sp)
        .short  0xA815                  | SCSIComplete(&stat, &msg, 300)
        move.l  (%sp)+,%d0              | its result (high word), which call (low word)
        swap    %d0                     | which call in the high word, the result in the low
        movea.l (%sp)+,%a2
        move.l  (%sp)+,%d2
        rts
7:      moveq   #2,%d1
        bra.s   9f
8:      moveq   #1,%d1
9:      swap    %d1
        move.w  %d0,%d1
        move.l  %d1,%d0
        movea.l (%sp)+,%a2
        move.l  (%sp)+,%d2
        rts
| void ferrite_panic(void): a Rust panic (a bug): tell the debugger, then stop here.
        .globl  ferrite_panic
ferrite_panic:
        pea     panic_message(%pc)
        .short  0xABFF                  | _DebugStr
1:      bra.s   1b
        .section .rodata
panic_message:
        .byte   23
        .ascii  "Ferrite: internal error"
        .even
| void abort(void): where an immediate-abort panic lands.
        .text
        .globl  abort
abort:
        bra.w   ferrite_panic
