| A small SCSI disk driver for the emulated Mac's boot tests (not Ferrite's driver).
|
| It does what a boot driver must (`docs/mac-facts.md` §2.4), in the plainest way:
|  +0  install, original-ROM entry: D5 = SCSI ID.
|  +8  install, SCSI Manager 4.3 entry: D5 = DeviceIdent ($00 bus target LUN).
| Install: globals from _NewPtr SYS CLEAR; _DrvrInstall at unit 32+ID; fill and lock the DCE;
| mark it open; read the partition map through the SCSI Manager (4.3 _SCSIAtomic ExecIO when
| entered at +8, else the original _SCSIDispatch with a polled TIB); _AddDrive per Apple_HFS
| partition (drive number: first free >= 8); _PostEvent diskEvt per drive (a failure is
| ignored: the boot model mounts the boot drive itself); with 4.3, SCSICreateRefNumXref.
| Prime: bounds-checked READ(10)/WRITE(10) of whole blocks at dCtlPosition, then IODone
| (or RTS for an immediate call).

        .equ    JIODone,        0x8FC
        .equ    UTableBase,     0x11C
        .equ    DrvQHead,       0x30A
        | DCE
        .equ    dCtlDriver,     0
        .equ    dCtlFlags,      4
        .equ    dCtlPosition,   16
        .equ    dCtlStorage,    20
        | parameter blocks
        .equ    ioTrap,         6
        .equ    ioVRefNum,      22
        .equ    csCode,         26
        .equ    ioBuffer,       32
        .equ    ioReqCount,     36
        .equ    ioActCount,     40
        | globals
        .equ    gID,            0
        .equ    gUse43,         2
        .equ    gRefNum,        4
        .equ    gNDrives,       6
        .equ    gDrives,        16      | 4 x 32: prefix(4) DrvQEl(16) start(4) blocks(4) drive(2) pad(2)
        .equ    gBuf,           144
        .equ    gPB,            656
        .equ    gTIB,           832
        .equ    gCDB,           862
        .equ    gStat,          872
        .equ    gMsg,           874
        .equ    gSize,          896
        .equ    dStart,         20
        .equ    dBlocks,        24
        .equ    dDrive,         28

        .text
        .globl  entry_original
entry_original:
        bra.w   install_original
        .type   version,@object
version:
        .long   1
        .size   version, 4
        .globl  entry_43
entry_43:
        bra.w   install_43
        .type   entry_pad,@object
entry_pad:
        .word   0, 0
        .size   entry_pad, 4

        .globl  drvr_header
        .type   drvr_header,@object
drvr_header:
        .word   0x4F00                  | dNeedLock + enables
        .word   0, 0, 0
        .word   drvr_open - drvr_header
        .word   drvr_prime - drvr_header
        .word   drvr_control - drvr_header
        .word   drvr_status - drvr_header
        .word   drvr_close - drvr_header
        .byte   9
        .ascii  ".TestDisk"
        .even
        .size   drvr_header, . - drvr_header

install_original:
        movem.l %d1-%d7/%a0-%a6,-(%sp)
        move.w  %d5,%d7
        and.w   #7,%d7
        moveq   #0,%d6                  | use43 = 0
        bra.s   install
install_43:
        movem.l %d1-%d7/%a0-%a6,-(%sp)
        move.l  %d5,%d7
        lsr.l   #8,%d7
        and.w   #7,%d7
        moveq   #1,%d6
install:
        move.l  #gSize,%d0
        .word   0xA71E                  | _NewPtr SYS CLEAR
        tst.w   %d0
        bne     install_fail
        move.l  %a0,%a2
        move.w  %d7,gID(%a2)
        move.w  %d6,gUse43(%a2)
        moveq   #32,%d0
        add.w   %d7,%d0                 | unit
        move.w  %d0,%d4
        not.w   %d0                     | refNum = ~unit
        move.w  %d0,gRefNum(%a2)
        lea     drvr_header(%pc),%a0
        .word   0xA03D                  | _DrvrInstall (A0 header, D0 refNum)
        tst.w   %d0
        bne     install_fail
        move.l  (UTableBase).w,%a0
        move.w  %d4,%d0
        lsl.w   #2,%d0
        move.l  0(%a0,%d0.w),%a0        | DCE handle
        move.l  %a0,%a3
        .word   0xA029                  | _HLock
        move.l  (%a3),%a3               | DCE
        lea     drvr_header(%pc),%a0
        move.l  %a0,dCtlDriver(%a3)
        move.w  (%a0),%d0
        and.w   #0xFF00,%d0
        or.w    #0x0020,%d0             | dOpened; dRAMBased clear
        move.w  %d0,dCtlFlags(%a3)
        move.l  %a2,dCtlStorage(%a3)

        | read the partition map: blocks 1..pmMapBlkCnt
        moveq   #1,%d3                  | block
        moveq   #1,%d7                  | map entries (updated from block 1)
map_loop:
        move.l  %d3,%d0
        moveq   #1,%d1
        lea     gBuf(%a2),%a0
        moveq   #0,%d2                  | read
        bsr     scsi_rw
        tst.w   %d0
        bne     map_done
        lea     gBuf(%a2),%a0
        cmp.w   #0x504D,(%a0)
        bne     map_done
        move.l  4(%a0),%d7              | pmMapBlkCnt
        bsr     is_hfs
        beq.s   map_next
        bsr     add_drive
map_next:
        addq.l  #1,%d3
        cmp.l   %d7,%d3
        bls.s   map_loop
map_done:
        .ifdef  NO_XREF                 | a 4.3-era driver that never registers (tests)
        bra.s   install_ok
        .endif
        tst.w   gUse43(%a2)
        beq.s   install_ok
        | SCSICreateRefNumXref: PB in gBuf (44 bytes)
        lea     gBuf(%a2),%a0
        moveq   #10,%d0
1:      clr.l   (%a0)+
        dbra    %d0,1b
        lea     gBuf(%a2),%a0
        move.w  #44,6(%a0)
        move.b  #0x85,8(%a0)
        move.l  %d5,12(%a0)             | DeviceIdent
        move.w  gRefNum(%a2),36(%a0)
        moveq   #1,%d0
        .word   0xA089                  | _SCSIAtomic SCSIAction
install_ok:
        movem.l (%sp)+,%d1-%d7/%a0-%a6
        moveq   #0,%d0
        rts
install_fail:
        movem.l (%sp)+,%d1-%d7/%a0-%a6
        moveq   #-1,%d0
        rts

| Z clear if the entry in gBuf has type "Apple_HFS".
is_hfs:
        lea     gBuf+48(%a2),%a0
        lea     hfs_type(%pc),%a1
        moveq   #9,%d0                  | 10 bytes incl. NUL
1:      cmpm.b  (%a0)+,(%a1)+
        bne.s   2f
        dbra    %d0,1b
        moveq   #1,%d0                  | Z clear: HFS
        rts
2:      moveq   #0,%d0                  | Z set: not HFS
        rts
        .type   hfs_type,@object
hfs_type:
        .asciz  "Apple_HFS"
        .even
        .size   hfs_type, . - hfs_type

| Add a drive for the Apple_HFS entry in gBuf.
add_drive:
        movem.l %d3-%d7/%a3,-(%sp)
        move.w  gNDrives(%a2),%d0
        cmp.w   #4,%d0
        bcc     9f
        lsl.w   #5,%d0
        lea     gDrives(%a2,%d0.w),%a3
        addq.w  #1,gNDrives(%a2)
        lea     gBuf(%a2),%a0
        move.l  8(%a0),dStart(%a3)
        move.l  12(%a0),dBlocks(%a3)
        move.b  #0,(%a3)                | writeProt
        move.b  #8,1(%a3)               | diskInPlace: fixed
        move.b  #1,2(%a3)               | installed
        move.b  #0,3(%a3)               | sides
        move.w  #1,8(%a3)               | qType 1: 32-bit size
        clr.w   14(%a3)                 | dQFSID
        move.l  12(%a0),%d0
        move.w  %d0,16(%a3)             | dQDrvSz (low)
        swap    %d0
        move.w  %d0,18(%a3)             | dQDrvSz2 (high)
        | first free drive number >= 8
        moveq   #8,%d6
1:      move.l  (DrvQHead).w,%a0
2:      move.l  %a0,%d0
        tst.l   %d0                     | explicit: the verifier treats a MOVE before a branch as an LLVM copy
        beq.s   3f
        cmp.w   6(%a0),%d6
        beq.s   4f
        move.l  (%a0),%a0
        bra.s   2b
4:      addq.w  #1,%d6
        bra.s   1b
3:      move.w  %d6,dDrive(%a3)
        move.w  %d6,%d0
        swap    %d0
        move.w  gRefNum(%a2),%d0
        lea     4(%a3),%a0
        .word   0xA04E                  | _AddDrive
        move.w  %d6,%d0
        ext.l   %d0
        move.l  #7,%a0                  | diskEvt
        .word   0xA02F                  | _PostEvent (evtNotEnb at boot is fine)
9:      movem.l (%sp)+,%d3-%d7/%a3
        rts

| scsi_rw: D0 = LBA, D1 = blocks, A0 = buffer, D2 = 0 read / 1 write; A2 = globals.
| Returns D0.W = 0 or an error. Uses 4.3 when gUse43, else the original SCSI Manager.
scsi_rw:
        movem.l %d1-%d7/%a0-%a4,-(%sp)
        move.l  %a0,%a4
        lea     gCDB(%a2),%a1
        move.b  #0x28,(%a1)
        tst.w   %d2
        beq.s   1f
        move.b  #0x2A,(%a1)
1:      clr.b   1(%a1)
        move.b  %d0,5(%a1)
        lsr.l   #8,%d0
        move.b  %d0,4(%a1)
        lsr.l   #8,%d0
        move.b  %d0,3(%a1)
        lsr.l   #8,%d0
        move.b  %d0,2(%a1)
        clr.b   6(%a1)
        move.b  %d1,8(%a1)
        lsr.w   #8,%d1
        move.b  %d1,7(%a1)
        clr.b   9(%a1)
        movem.l (%sp),%d1               | restore D1 (blocks)
        tst.w   gUse43(%a2)
        beq     old_rw

        | ---- SCSI Manager 4.3: synchronous SCSIExecIO ----
        lea     gPB(%a2),%a0
        moveq   #43,%d0                 | 176 bytes = 44 longs
1:      clr.l   (%a0)+
        dbra    %d0,1b
        lea     gPB(%a2),%a0
        move.w  #176,6(%a0)             | scsiPBLength
        move.b  #1,8(%a0)               | SCSIExecIO
        clr.b   12(%a0)
        clr.b   13(%a0)                 | bus 0
        move.b  gID+1(%a2),14(%a0)      | target
        clr.b   15(%a0)                 | LUN 0
        move.l  #0x40000000,%d0         | scsiDirectionIn
        tst.w   %d2
        beq.s   2f
        move.l  #0x80000000,%d0         | scsiDirectionOut
2:      move.l  %d0,20(%a0)
        move.l  %a4,40(%a0)             | scsiDataPtr
        move.l  %d1,%d0
        moveq   #9,%d3
        lsl.l   %d3,%d0
        move.l  %d0,44(%a0)             | scsiDataLength
        move.b  #10,53(%a0)             | scsiCDBLength
        lea     gCDB(%a2),%a1
        lea     68(%a0),%a3
        moveq   #9,%d0
3:      move.b  (%a1)+,(%a3)+
        dbra    %d0,3b
        moveq   #1,%d0
        .word   0xA089                  | _SCSIAtomic (SCSIAction)
        tst.w   %d0
        bne     rw_done
        lea     gPB(%a2),%a0
        moveq   #0,%d0
        move.b  60(%a0),%d0             | scsiSCSIstatus
        bra     rw_done

        | ---- original SCSI Manager, polled TIB ----
| _SCSIDispatch is a Toolbox trap: it may change D0-D2/A0-A1, so the direction (D2) is kept
| in D5 across the calls.
old_rw:
        move.w  %d2,%d5
        lea     gTIB(%a2),%a0
        move.w  #1,(%a0)                | scInc buf, 512
        move.l  %a4,2(%a0)
        move.l  #512,6(%a0)
        move.w  #5,10(%a0)              | scLoop -10, n
        move.l  #-10,12(%a0)
        moveq   #0,%d0
        move.w  %d1,%d0
        move.l  %d0,16(%a0)
        move.w  #7,20(%a0)              | scStop
        clr.l   22(%a0)
        clr.l   26(%a0)
        clr.w   -(%sp)
        move.w  #1,-(%sp)               | SCSIGet
        .word   0xA815
        move.w  (%sp)+,%d0
        bne     rw_done
        clr.w   -(%sp)
        move.w  gID(%a2),-(%sp)
        move.w  #2,-(%sp)               | SCSISelect
        .word   0xA815
        move.w  (%sp)+,%d0
        bne     rw_done
        clr.w   -(%sp)
        pea     gCDB(%a2)
        move.w  #10,-(%sp)
        move.w  #3,-(%sp)               | SCSICmd
        .word   0xA815
        move.w  (%sp)+,%d4
        bne.s   5f
        clr.w   -(%sp)
        pea     gTIB(%a2)
        move.w  #5,-(%sp)               | SCSIRead
        tst.w   %d5
        beq.s   4f
        move.w  #6,(%sp)                | SCSIWrite
4:      .word   0xA815
        move.w  (%sp)+,%d4
5:      clr.w   -(%sp)
        pea     gStat(%a2)
        pea     gMsg(%a2)
        move.l  #300,-(%sp)
        move.w  #4,-(%sp)               | SCSIComplete
        .word   0xA815
        move.w  (%sp)+,%d0
        bne     rw_done
        move.w  %d4,%d0
        bne     rw_done
        move.w  gStat(%a2),%d0
        and.w   #0xFF,%d0
rw_done:
        movem.l (%sp)+,%d1-%d7/%a0-%a4
        rts

drvr_open:
drvr_close:
        moveq   #0,%d0
        rts

| Prime: A0 = PB, A1 = DCE.
drvr_prime:
        movem.l %d3-%d7/%a2-%a4,-(%sp)
        move.l  %a0,%a3
        move.l  %a1,%a4
        move.l  dCtlStorage(%a4),%a2
        | find the drive
        move.w  ioVRefNum(%a3),%d0
        lea     gDrives(%a2),%a1
        move.w  gNDrives(%a2),%d1
        subq.w  #1,%d1
        bmi.s   prime_nsdrv
1:      cmp.w   dDrive(%a1),%d0
        beq.s   2f
        lea     32(%a1),%a1
        dbra    %d1,1b
prime_nsdrv:
        moveq   #-56,%d0                | nsDrvErr
        bra.s   prime_done
2:      move.l  dCtlPosition(%a4),%d3
        move.l  ioReqCount(%a3),%d4
        move.l  %d3,%d0
        or.l    %d4,%d0
        and.w   #511,%d0
        bne.s   prime_param
        moveq   #9,%d0
        lsr.l   %d0,%d3                 | first block in partition
        lsr.l   %d0,%d4                 | blocks
        move.l  %d3,%d0
        add.l   %d4,%d0
        bcs.s   prime_param
        cmp.l   dBlocks(%a1),%d0
        bhi.s   prime_param
        tst.l   %d4
        beq.s   3f
        move.l  %d3,%d0
        add.l   dStart(%a1),%d0
        move.l  %d4,%d1
        move.l  ioBuffer(%a3),%a0
        moveq   #0,%d2
        cmp.b   #3,ioTrap+1(%a3)        | _Write?
        bne.s   4f
        moveq   #1,%d2
4:      bsr     scsi_rw
        tst.w   %d0
        bne.s   prime_ioerr
3:      move.l  ioReqCount(%a3),%d0
        move.l  %d0,ioActCount(%a3)
        add.l   %d0,dCtlPosition(%a4)
        moveq   #0,%d0
        bra.s   prime_done
prime_ioerr:
        moveq   #-36,%d0                | ioErr
        bra.s   prime_done
prime_param:
        moveq   #-50,%d0                | paramErr
prime_done:
        move.l  %a3,%a0
        move.l  %a4,%a1
        movem.l (%sp)+,%d3-%d7/%a2-%a4
        bra.s   finish

drvr_control:
        moveq   #-17,%d0                | controlErr
        cmp.w   #1,csCode(%a0)          | killCode
        bne.s   finish
        moveq   #0,%d0
        bra.s   finish
drvr_status:
        moveq   #-18,%d0                | statusErr
| Finish a request: RTS for an immediate call, else through IODone. A0 = PB, A1 = DCE.
finish:
        move.w  %d0,16(%a0)             | ioResult (harmless for queued calls)
        btst    #1,ioTrap(%a0)          | bit 9 of ioTrap: immediate
        bne.s   1f
        move.l  (JIODone).w,-(%sp)
1:      rts
