| Ferrite Mac runtime: the glue between Rust (C ABI) and the Toolbox / OS traps. The only
| assembly of the runtime; every trap the application calls goes through here.
|
| C ABI side (what Rust declares in src/sys.rs): every argument is a 32-bit stack slot (the
| first at 4(sp) after the return address), the result comes back in D0, and D2-D7/A2-A6
| must survive. The Rust declarations use only u32/i32/pointer parameters, so the slot of
| an INTEGER holds it in its low word and that of a Boolean or CHAR in its low byte.
|
| Pascal side (`docs/mac-facts.md` §13.2): reserve the function result, push the
| parameters left to right (the last on top), execute the trap; the trap pops the
| parameters and may change D0-D2/A0-A1, and the result is left on the stack. A Boolean
| parameter or result lives in the HIGH byte of its word (`move.b x,-(sp)` puts it there);
| a CHAR parameter is an ordinary 16-bit INTEGER with the character in the LOW byte.
|
| `PASCAL name, trap, result, args…` builds one routine: result is one of none, w (INTEGER,
| sign-extended into D0), b (Boolean: 0 or 1 in D0) or l (LONGINT/pointer/handle); each
| argument is w (INTEGER or CHAR: the slot's low word), b (Boolean: the slot's low byte,
| pushed into the high byte of a word) or l (LONGINT, pointer, Point as one long). The
| selector-based `_SCSIDispatch` calls use `PASCAL_SEL`, which pushes the selector word last.
| 68000 instructions only.

        .macro  PASCAL_BODY trap, sel, result, args:vararg
        move.l  %d2,-(%sp)
        .set    pas_off, 8              | first C slot: above the saved D2 and the return address
        .ifc    \result,w
        clr.w   -(%sp)
        .set    pas_off, pas_off+2
        .endif
        .ifc    \result,b
        clr.w   -(%sp)
        .set    pas_off, pas_off+2
        .endif
        .ifc    \result,l
        clr.l   -(%sp)
        .set    pas_off, pas_off+4
        .endif
        .irp    a, \args
        .ifc    \a,w
        move.w  pas_off+2(%sp),-(%sp)   | the slot's low word; next slot is 4 on, and we pushed 2
        .set    pas_off, pas_off+6
        .endif
        .ifc    \a,b
        move.b  pas_off+3(%sp),-(%sp)   | the slot's low byte into the high byte of a word
        .set    pas_off, pas_off+6
        .endif
        .ifc    \a,l
        move.l  pas_off(%sp),-(%sp)
        .set    pas_off, pas_off+8
        .endif
        .endr
        .ifnc   \sel,-
        move.w  #\sel,-(%sp)            | routine selector, on top of the parameters
        .endif
        .short  \trap
        .ifc    \result,w
        move.w  (%sp)+,%d0
        ext.l   %d0
        .endif
        .ifc    \result,b
        moveq   #0,%d0
        tst.b   (%sp)+                  | the high byte; SP moves by 2
        beq.s   1f
        moveq   #1,%d0
1:
        .endif
        .ifc    \result,l
        move.l  (%sp)+,%d0
        .endif
        move.l  (%sp)+,%d2
        rts
        .endm

        .macro  PASCAL name, trap, result, args:vararg
        .text
        .globl  \name
        .type   \name,@function
\name:
        PASCAL_BODY \trap, -, \result, \args
        .size   \name, .-\name
        .endm

        .macro  PASCAL_SEL name, trap, sel, result, args:vararg
        .text
        .globl  \name
        .type   \name,@function
\name:
        PASCAL_BODY \trap, \sel, \result, \args
        .size   \name, .-\name
        .endm

| ---- QuickDraw, Font Manager, start-up ---------------------------------------------------
        PASCAL  rt_InitGraf,        0xA86E, none, l
        PASCAL  rt_InitFonts,       0xA8FE, none
        PASCAL  rt_InitWindows,     0xA912, none
        PASCAL  rt_InitMenus,       0xA930, none
        PASCAL  rt_TEInit,          0xA9CC, none
        PASCAL  rt_InitDialogs,     0xA97B, none, l
        PASCAL  rt_InitCursor,      0xA850, none
        PASCAL  rt_SetPort,         0xA873, none, l
        PASCAL  rt_MoveTo,          0xA893, none, w, w
        PASCAL  rt_LineTo,          0xA891, none, w, w
        PASCAL  rt_DrawString,      0xA884, none, l
        PASCAL  rt_TextFont,        0xA887, none, w
        PASCAL  rt_TextSize,        0xA88A, none, w
        PASCAL  rt_EraseRect,       0xA8A3, none, l
        PASCAL  rt_InvalRect,       0xA928, none, l
        PASCAL  rt_FrameRect,       0xA8A1, none, l
        PASCAL  rt_PaintRect,       0xA8A2, none, l
        PASCAL  rt_InvertRect,      0xA8A4, none, l
        PASCAL  rt_GlobalToLocal,   0xA871, none, l
        PASCAL  rt_GetPort,         0xA874, none, l
| ---- Window Manager ---------------------------------------------------------------------
        PASCAL  rt_GetNewWindow,    0xA9BD, l, w, l, l
        PASCAL  rt_DisposeWindow,   0xA914, none, l
        PASCAL  rt_BeginUpdate,     0xA922, none, l
        PASCAL  rt_EndUpdate,       0xA923, none, l
        PASCAL  rt_FindWindow,      0xA92C, w, l, l
        PASCAL  rt_SelectWindow,    0xA91F, none, l
        PASCAL  rt_FrontWindow,     0xA924, l
        PASCAL  rt_DragWindow,      0xA925, none, l, l, l
        PASCAL  rt_SystemClick,     0xA9B3, none, l, l
| ---- Menu Manager -----------------------------------------------------------------------
        PASCAL  rt_GetNewMBar,      0xA9C0, l, w
        PASCAL  rt_SetMenuBar,      0xA93C, none, l
        PASCAL  rt_DrawMenuBar,     0xA937, none
        PASCAL  rt_GetMenuHandle,   0xA949, l, w
        PASCAL  rt_AppendResMenu,   0xA94D, none, l, l
        PASCAL  rt_MenuSelect,      0xA93D, l, l
        PASCAL  rt_MenuKey,         0xA93E, l, w
        PASCAL  rt_HiliteMenu,      0xA938, none, w
        PASCAL  rt_GetMenuItemText, 0xA946, none, l, w, l
        PASCAL  rt_OpenDeskAcc,     0xA9B6, w, l
        PASCAL  rt_SystemEdit,      0xA9C2, b, w
        PASCAL  rt_EnableItem,      0xA939, none, l, w
        PASCAL  rt_DisableItem,     0xA93A, none, l, w
| ---- Event Manager ----------------------------------------------------------------------
        PASCAL  rt_WaitNextEvent,   0xA860, b, w, l, l, l
        PASCAL  rt_GetNextEvent,    0xA970, b, w, l
        PASCAL  rt_SystemTask,      0xA9B4, none
        PASCAL  rt_TickCount,       0xA975, l
| ---- Dialog Manager ---------------------------------------------------------------------
        PASCAL  rt_ParamText,       0xA98B, none, l, l, l, l
        PASCAL  rt_NoteAlert,       0xA987, w, w, l
        PASCAL  rt_StopAlert,       0xA986, w, w, l
        PASCAL  rt_CautionAlert,    0xA988, w, w, l
        PASCAL  rt_GetNewDialog,    0xA97C, l, w, l, l
        PASCAL  rt_ModalDialog,     0xA991, none, l, l
        PASCAL  rt_GetDialogItem,   0xA98D, none, l, w, l, l, l
        PASCAL  rt_GetDialogItemText, 0xA990, none, l, l
        PASCAL  rt_SetDialogItemText, 0xA98F, none, l, l
        PASCAL  rt_SelectDialogItemText, 0xA97E, none, l, w, w, w
        PASCAL  rt_DisposeDialog,   0xA983, none, l
| ---- Control Manager --------------------------------------------------------------------
        PASCAL  rt_GetControlValue, 0xA960, w, l
        PASCAL  rt_SetControlValue, 0xA963, none, l, w
| ---- Resource Manager, Segment Loader, misc ---------------------------------------------
        PASCAL  rt_GetResource,     0xA9A0, l, l, w
        PASCAL  rt_ReleaseResource, 0xA9A3, none, l
        PASCAL  rt_ExitToShell,     0xA9F4, none
        PASCAL  rt_SysBeep,         0xA9C8, none, w
| Scrap Manager (Inside Macintosh: More Macintosh Toolbox, "Scrap Manager").
        PASCAL  rt_ZeroScrap,       0xA9FC, l
        PASCAL  rt_PutScrap,        0xA9FE, l, l, l, l
| ---- Original SCSI Manager (_SCSIDispatch, selector on top) ------------------------------
        PASCAL_SEL rt_SCSIGet,      0xA815, 1, w
        PASCAL_SEL rt_SCSISelect,   0xA815, 2, w, w
        PASCAL_SEL rt_SCSICmd,      0xA815, 3, w, l, w
        PASCAL_SEL rt_SCSIComplete, 0xA815, 4, w, l, l, l
        PASCAL_SEL rt_SCSIRead,     0xA815, 5, w, l

| ---- Register-based OS traps (`docs/mac-facts.md` §13.3) ---------------------------------
        .text
| void *rt_NewPtr(u32 size): NIL when the heap has no room.
        .globl  rt_NewPtr
rt_NewPtr:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        move.l  8(%sp),%d0
        .short  0xA11E                  | _NewPtr: D0 = size -> A0 = block, D0 = result
        tst.w   %d0
        beq.s   1f
        suba.l  %a0,%a0
1:      move.l  %a0,%d0
        move.l  (%sp)+,%d2
        rts
| void rt_DisposePtr(void *p)
        .globl  rt_DisposePtr
rt_DisposePtr:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        movea.l 8(%sp),%a0
        .short  0xA01F                  | _DisposePtr
        move.l  (%sp)+,%d2
        rts
| void rt_HLock(Handle h) / rt_HUnlock(Handle h)
        .globl  rt_HLock
rt_HLock:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        movea.l 8(%sp),%a0
        .short  0xA029                  | _HLock
        move.l  (%sp)+,%d2
        rts
        .globl  rt_HUnlock
rt_HUnlock:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        movea.l 8(%sp),%a0
        .short  0xA02A                  | _HUnlock
        move.l  (%sp)+,%d2
        rts
| void rt_FlushEvents(u32 masks): (stop mask << 16) | event mask
        .globl  rt_FlushEvents
rt_FlushEvents:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        move.l  8(%sp),%d0
        .short  0xA032                  | _FlushEvents
        move.l  (%sp)+,%d2
        rts
| void rt_MaxApplZone(void)
        .globl  rt_MaxApplZone
rt_MaxApplZone:
        move.l  %d2,-(%sp)
        .short  0xA063                  | _MaxApplZone
        move.l  (%sp)+,%d2
        rts
| i32 rt_SetApplLimit(void *limit): A0 = the new limit of the application heap; D0 = result.
        .globl  rt_SetApplLimit
rt_SetApplLimit:
        move.l  %d2,-(%sp)
        movea.l 8(%sp),%a0
        .short  0xA02D                  | _SetApplLimit
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts
| u32 rt_TrapAvailable(u16 trap): 1 when the trap's address differs from _Unimplemented's
| (Toolbox traps have bit 11 set; the others are looked up in the OS table).
        .globl  rt_TrapAvailable
rt_TrapAvailable:
        movem.l %d2/%a2,-(%sp)          | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        move.w  #0xA89F,%d0
        .short  0xA746                  | _GetToolTrapAddress(_Unimplemented) -> A0
        movea.l %a0,%a2
        move.l  12(%sp),%d0
        btst    #11,%d0
        bne.s   1f
        .short  0xA346                  | _GetOSTrapAddress -> A0
        bra.s   2f
1:      .short  0xA746                  | _GetToolTrapAddress -> A0
2:      moveq   #1,%d0
        cmpa.l  %a0,%a2
        bne.s   3f
        moveq   #0,%d0
3:      movem.l (%sp)+,%d2/%a2
        rts
| i32 rt_Gestalt(u32 selector, u32 *response): the result code (call only when _Gestalt exists)
        .globl  rt_Gestalt
rt_Gestalt:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        move.l  8(%sp),%d0
        .short  0xA1AD                  | _Gestalt: D0 = selector -> A0 = response, D0 = result
        movea.l 12(%sp),%a1
        move.l  %a0,(%a1)
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts
| i32 rt_PBReadSync(IOParam *pb) / rt_PBWriteSync: the Device Manager's _Read / _Write
| ($A002 / $A003, synchronous: A0 = the parameter block, D0 = the result). D2 is saved
| because the C ABI keeps it and the trap dispatcher's treatment of it is not relied on.
        .globl  rt_PBReadSync
rt_PBReadSync:
        move.l  %d2,-(%sp)
        movea.l 8(%sp),%a0
        .short  0xA002                  | _Read
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts
        .globl  rt_PBWriteSync
rt_PBWriteSync:
        move.l  %d2,-(%sp)
        movea.l 8(%sp),%a0
        .short  0xA003                  | _Write
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts
| i32 rt_SCSIAction(void *pb): SCSI Manager 4.3, synchronous when scsiCompletion is NIL
        .globl  rt_SCSIAction
rt_SCSIAction:
        move.l  %d2,-(%sp)            | OS traps may change D0-D2/A0-A1; the C ABI keeps D2
        movea.l 8(%sp),%a0
        moveq   #1,%d0                  | SCSIAction
        .short  0xA089                  | _SCSIAtomic
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts
