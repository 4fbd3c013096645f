| Ferrite Setup's glue for mounting volumes without a restart (setup/src/ui/mount.rs): the
| File Manager's and Device Manager's register-based calls, a system-heap block, the
| instruction-cache flush, and the call into a loaded driver's install entry.
| Register conventions: Inside Macintosh: Files and Devices (A0 = parameter block, D0 =
| result); Memory (_NewPtr with the SYS bit, $A51E). 68000 instructions only; A5 is never
| written (the application reserves it).

        .text
| i32 ferrite_PBStatus(void *pb): _Status, synchronous.
        .globl  ferrite_PBStatus
ferrite_PBStatus:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        movea.l 8(%sp),%a0
        .short  0xA005                  | _Status
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts

| i32 ferrite_PBControl(void *pb): _Control, synchronous.
        .globl  ferrite_PBControl
ferrite_PBControl:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        movea.l 8(%sp),%a0
        .short  0xA004                  | _Control
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts

| i32 ferrite_PBHGetVInfo(void *pb): _HGetVInfo ($A207: _GetVolInfo with the HFS bit),
| synchronous.
        .globl  ferrite_PBHGetVInfo
ferrite_PBHGetVInfo:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        movea.l 8(%sp),%a0
        .short  0xA207                  | _HGetVInfo
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts

| i32 ferrite_PBMountVol(void *pb): _MountVol, synchronous.
        .globl  ferrite_PBMountVol
ferrite_PBMountVol:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        movea.l 8(%sp),%a0
        .short  0xA00F                  | _MountVol
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts

| void *ferrite_NewPtrSys(u32 size): a nonrelocatable block in the system heap, or 0.
        .globl  ferrite_NewPtrSys
ferrite_NewPtrSys:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        move.l  8(%sp),%d0
        .short  0xA51E                  | _NewPtr,SYS
        tst.w   %d0
        beq.s   1f
        suba.l  %a0,%a0
1:      move.l  %a0,%d0
        move.l  (%sp)+,%d2
        rts

| void ferrite_FlushInstructionCache(void): _HWPriv selector 1 (the caller checks the trap).
        .globl  ferrite_FlushInstructionCache
ferrite_FlushInstructionCache:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        moveq   #1,%d0
        .short  0xA198                  | _HWPriv
        move.l  (%sp)+,%d2
        rts

| i32 ferrite_CallInstall(u32 entry, u32 d5): JSR to a driver's install entry with D5 set,
| as the Start Manager calls it; every register but D0 comes back as it was.
        .globl  ferrite_CallInstall
ferrite_CallInstall:
        movem.l %d1-%d7/%a0-%a4/%a6,-(%sp)
        movea.l 56(%sp),%a0             | entry (13 registers saved + return address)
        move.l  60(%sp),%d5
        jsr     (%a0)
        movem.l (%sp)+,%d1-%d7/%a0-%a4/%a6
        rts
