| A small classic Mac application, hand-written for the Toolbox model's tests
| (tests/tests/toolbox_app.rs); resources in test_app.rdef. Packaged by
| retro68_build::rsrc::app: CODE 1 = stub + this image, entry `main`.
|
| Start-up (InitGraf … InitCursor, MaxApplZone, FlushEvents), the menu bar from MBAR 128
| with the desk accessories appended to the Apple menu, a window from WIND 128 drawing two
| strings on update, About… (NoteAlert 128 with ParamText), Bus Info… (modal dialog
| DLOG 129 whose item 2 gets the first string of STR# 128 through GetResource/HLock/
| GetDialogItem/SetDialogItemText/ReleaseResource, until OK) and Quit (menu or ⌘Q).
|
| BUG selects a deliberate glue error (0 = none) for the convention tests:
|   1  WaitNextEvent without result space
|   2  GetNewWindow's behind pushed as a word
|   3  MenuKey's CHAR pushed in the high byte
|   4  NewWindow's visible Boolean pushed in the low byte of its word
|   5  return from main instead of _ExitToShell
|   6  DrawString before SetPort
|   7  A5 used as a general register (pointed at the event record) before SetPort

        .ifndef BUG
        .set    BUG, 0
        .endif
        .ifndef USE_GNE                 | 1: GetNextEvent + SystemTask instead of WaitNextEvent
        .set    USE_GNE, 0
        .endif

        .text
        .globl  main
main:
        tst.l   bss_canary              | the image's bss must start zeroed
        beq.s   1f
        .short  0xA9FF                  | _Debugger
1:      cmpa.l  0x904,%a5               | A5 = CurrentA5
        beq.s   2f
        .short  0xA9FF
2:      pea     qd_the_port             | InitGraf(@thePort)
        .short  0xA86E
        .short  0xA8FE                  | InitFonts
        .short  0xA912                  | InitWindows
        .short  0xA930                  | InitMenus
        .short  0xA9CC                  | TEInit
        clr.l   -(%sp)
        .short  0xA97B                  | InitDialogs(NIL)
        .short  0xA850                  | InitCursor
        .short  0xA063                  | MaxApplZone
        move.l  #0x0000FFFF,%d0
        .short  0xA032                  | FlushEvents(everyEvent, 0)

        clr.l   -(%sp)
        move.w  #128,-(%sp)
        .short  0xA9C0                  | GetNewMBar(128) -> menu list on the stack
        .short  0xA93C                  | SetMenuBar(it)
        clr.l   -(%sp)
        move.w  #128,-(%sp)
        .short  0xA949                  | GetMenuHandle(128)
        move.l  #0x44525652,-(%sp)      | 'DRVR'
        .short  0xA94D                  | AppendResMenu(apple, 'DRVR')
        .short  0xA937                  | DrawMenuBar

        .if     BUG == 6
        pea     str_hello
        .short  0xA884                  | DrawString with no port
        .endif

        .if     BUG == 4
        clr.l   -(%sp)                  | NewWindow(NIL, &bounds, title, visible, 0, -1, false, 0)
        clr.l   -(%sp)
        pea     win_bounds
        pea     str_title
        move.w  #1,-(%sp)               | BUG: the Boolean in the low byte
        clr.w   -(%sp)
        move.l  #-1,-(%sp)
        clr.w   -(%sp)
        clr.l   -(%sp)
        .short  0xA913
        .else
        clr.l   -(%sp)                  | GetNewWindow(128, NIL, -1)
        move.w  #128,-(%sp)
        clr.l   -(%sp)
        .if     BUG == 2
        move.w  #-1,-(%sp)              | BUG: a word where a WindowPtr goes
        .else
        move.l  #-1,-(%sp)
        .endif
        .short  0xA9BD
        .endif
        move.l  (%sp)+,window
        .if     BUG == 7
        lea     event,%a5               | BUG: A5 as a general register, as LLVM did
        .endif
        move.l  window,-(%sp)
        .short  0xA873                  | SetPort(window)

event_loop:
        .if     USE_GNE
        .short  0xA9B4                  | SystemTask
        clr.w   -(%sp)
        move.w  #0xFFFF,-(%sp)
        pea     event
        .short  0xA970                  | GetNextEvent
        .else
        .if     BUG != 1
        clr.w   -(%sp)                  | Boolean result
        .endif
        move.w  #0xFFFF,-(%sp)          | everyEvent
        pea     event
        moveq   #30,%d0
        move.l  %d0,-(%sp)              | sleep
        clr.l   -(%sp)                  | mouseRgn
        .short  0xA860                  | WaitNextEvent
        .endif
        move.b  (%sp)+,%d0
        beq.s   event_loop
        move.w  event,%d0
        cmpi.w  #1,%d0
        beq.s   mouse_down
        cmpi.w  #3,%d0
        beq.s   key_down
        cmpi.w  #6,%d0
        beq.s   update
        bra.s   event_loop

mouse_down:
        clr.w   -(%sp)
        move.l  event+10,-(%sp)         | where
        pea     which_window
        .short  0xA92C                  | FindWindow
        move.w  (%sp)+,%d0
        cmpi.w  #1,%d0                  | inMenuBar
        bne.s   event_loop
        clr.l   -(%sp)
        move.l  event+10,-(%sp)
        .short  0xA93D                  | MenuSelect
        move.l  (%sp)+,%d0
        bsr.s   do_command
        bra.s   event_loop

key_down:
        move.w  event+14,%d0
        andi.w  #0x0100,%d0             | cmdKey
        beq.s   event_loop
        clr.l   -(%sp)
        move.l  event+2,%d0
        andi.w  #0xFF,%d0
        .if     BUG == 3
        lsl.w   #8,%d0                  | BUG: CHAR in the high byte
        .endif
        move.w  %d0,-(%sp)
        .short  0xA93E                  | MenuKey
        move.l  (%sp)+,%d0
        bsr.s   do_command
        bra     event_loop

update:
        move.l  event+2,-(%sp)
        .short  0xA922                  | BeginUpdate
        move.w  #3,-(%sp)
        .short  0xA887                  | TextFont(geneva)
        move.w  #12,-(%sp)
        .short  0xA88A                  | TextSize(12)
        move.w  #20,-(%sp)              | h
        move.w  #30,-(%sp)              | v
        .short  0xA893                  | MoveTo
        pea     str_hello
        .short  0xA884                  | DrawString
        move.w  #20,-(%sp)
        move.w  #50,-(%sp)
        .short  0xA893
        move.l  second_line,-(%sp)      | a relocated pointer in .data
        .short  0xA884
        move.l  event+2,-(%sp)
        .short  0xA923                  | EndUpdate
        addq.l  #1,update_count
        bra     event_loop

| d0 = menu ID << 16 | item
do_command:
        move.l  %d0,%d1
        swap    %d1
        cmpi.w  #128,%d1
        beq.s   apple_menu
        cmpi.w  #129,%d1
        beq.s   file_menu
        bra.s   cmd_done
apple_menu:
        cmpi.w  #1,%d0
        bne.s   cmd_done
        pea     str_version             | ParamText(version, NIL, NIL, NIL)
        clr.l   -(%sp)
        clr.l   -(%sp)
        clr.l   -(%sp)
        .short  0xA98B
        clr.w   -(%sp)
        move.w  #128,-(%sp)
        clr.l   -(%sp)
        .short  0xA987                  | NoteAlert(128, NIL)
        move.w  (%sp)+,alert_hit
        bra.s   cmd_done
file_menu:
        cmpi.w  #1,%d0
        beq.s   bus_info
        cmpi.w  #3,%d0
        bne.s   cmd_done
        clr.w   -(%sp)
        .short  0xA938                  | HiliteMenu(0)
        move.l  window,-(%sp)
        .short  0xA914                  | DisposeWindow
        .if     BUG == 5
        addq.l  #4,%sp                  | drop do_command's return address
        rts                             | BUG: back to the launcher
        .endif
        .short  0xA9F4                  | ExitToShell
cmd_done:
        clr.w   -(%sp)
        .short  0xA938                  | HiliteMenu(0)
        rts

bus_info:
        clr.l   -(%sp)
        move.w  #129,-(%sp)
        clr.l   -(%sp)                  | dStorage NIL
        move.l  #-1,-(%sp)              | in front
        .short  0xA97C                  | GetNewDialog(129, NIL, -1)
        move.l  (%sp)+,dialog
        move.l  dialog,-(%sp)
        move.w  #2,-(%sp)
        pea     item_type
        pea     item_handle
        pea     item_box
        .short  0xA98D                  | GetDialogItem(dialog, 2, …)
        clr.l   -(%sp)
        move.l  #0x53545223,-(%sp)      | 'STR#'
        move.w  #128,-(%sp)
        .short  0xA9A0                  | GetResource('STR#', 128)
        movea.l (%sp)+,%a0
        move.l  %a0,str_handle
        .short  0xA029                  | HLock(A0)
        movea.l str_handle,%a0
        movea.l (%a0),%a0
        addq.l  #2,%a0                  | the first string
        move.l  item_handle,-(%sp)
        move.l  %a0,-(%sp)
        .short  0xA98F                  | SetDialogItemText(item, string)
        move.l  str_handle,-(%sp)
        .short  0xA9A3                  | ReleaseResource
1:      clr.l   -(%sp)                  | filterProc NIL
        pea     item_hit
        .short  0xA991                  | ModalDialog
        cmpi.w  #1,item_hit
        bne.s   1b
        move.l  dialog,-(%sp)
        .short  0xA983                  | DisposeDialog
        bra     cmd_done

        .data
        .balign 2
str_hello:
        .byte   18
        .ascii  "Hello from Ferrite"
str_scsi:
        .byte   15
        .ascii  "SCSI bus: 7 IDs"
str_version:
        .byte   5
        .ascii  "0.1d0"
str_title:
        .byte   6
        .ascii  "Manual"
        .balign 2
win_bounds:
        .short  50, 20, 250, 420
second_line:
        .long   str_scsi

        .bss
        .balign 4
bss_canary:
        .space  4
qd_globals:
        .space  202
qd_the_port:
        .space  4
window: .space  4
which_window:
        .space  4
event:  .space  16
update_count:
        .space  4
alert_hit:
        .space  2
dialog: .space  4
item_type:
        .space  2
item_handle:
        .space  4
item_box:
        .space  8
item_hit:
        .space  2
str_handle:
        .space  4
        .globl  update_count
        .globl  alert_hit
