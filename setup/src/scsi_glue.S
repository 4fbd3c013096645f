| Ferrite Setup's own trap glue: the original SCSI Manager's SCSIWrite, which the runtime
| (macrt) does not declare. C ABI: i32 ferrite_SCSIWrite(const u8 *tib).
| Pascal call (Inside Macintosh: Devices, "SCSI Manager"): result word, TIB pointer, then
| the routine selector 6 on top; _SCSIDispatch is trap $A815. 68000 instructions only.

        .text
        .globl  ferrite_SCSIWrite
ferrite_SCSIWrite:
        move.l  %d2,-(%sp)
        clr.w   -(%sp)                  | result space
        move.l  10(%sp),-(%sp)          | tibPtr (above result, saved D2, return address)
        move.w  #6,-(%sp)               | selector: SCSIWrite
        .short  0xA815                  | _SCSIDispatch
        move.w  (%sp)+,%d0
        ext.l   %d0
        move.l  (%sp)+,%d2
        rts
