| Ferrite driver, part 1 of 2: the boot-blob head. Hand-written, position-independent, kept
| out of the build's code passes (it mixes data with code); verified instruction by
| instruction around its data objects. Part 2, glue.S, connects the Mac to the Rust code.
| Offsets and conventions: `docs/mac-facts.md` §2–§3 and shared/src/driver_blob.rs.
|
| Blob layout (the partition holds the linked image followed by its relocation table):
|   +0   bra.w install_original      ROM without SCSI Manager 4.3: D5 = SCSI ID
|   +4   'FRRT'                      blob magic
|   +8   bra.w install_43            SCSI Manager 4.3 ROM: D5 = DeviceIdent
|   +12  reloc_offset (long)         offset of the relocation table; written by the build tool
|   +16  settings block, 32 bytes    (shared/src/driver_blob.rs; the formatter edits it)
|   +48  DRVR header ".Ferrite"
|   +76  the head's pointer table: count, relocated flag, pointers
| then the DRVR header's five entry stubs, the install code and the relocation stub
| (retro68-build/stub/relocate.S), which end the head (`ferrite_head_end`, from the linker
| script). Only these data sit among the head's code: `cargo xtask verify` finds them from
| this layout alone (the settings block's +20 gives the code length) and decodes the rest.
|
| Everything in the head reaches the rest of the driver through the pointer table (`.long`
| words the relocation table fixes), never by a PC-relative branch: the build may re-lay the
| rest. The install entries save and restore D1-D7/A0-A6.

        .section .text.ferrite_entry,"ax"
        .globl  ferrite_blob_start
ferrite_blob_start:
        bra.w   install_original
        .type   blob_magic,@object
blob_magic:
        .ascii  "FRRT"
        .size   blob_magic, 4
        bra.w   install_43
        .type   blob_reloc_offset,@object
blob_reloc_offset:
        .long   0
        .size   blob_reloc_offset, 4

        .globl  ferrite_settings
        .type   ferrite_settings,@object
ferrite_settings:
        .ascii  "FSET"                  | +0 magic
        .word   2                       | +4 settings version (1: no transfer settings)
        .word   32                      | +6 size of the block
        .long   0x00000001              | +8 flags: bit 0 = enable the drive's write cache
        .word   0                       | +12 read-ahead blocks (0 = leave the drive's setting)
        .byte   0                       | +14 transfer mode: 0 auto, 1 blind, 2 polled
        .byte   0                       | +15 reserved
        .word   128                     | +16 most blocks per original-SCSI-Manager command (0 = no cap)
        .word   30                      | +18 ticks of write idleness before a cache flush (0 = never)
        .long   0                       | +20 code length (head + text), written by the build tool
        .long   0                       | +24 reserved
        .byte   0, 1, 0, 0              | +28 driver version: major, minor, patch, 0 (= Cargo.toml)
        .size   ferrite_settings, 32

        .globl  ferrite_drvr_header
        .type   ferrite_drvr_header,@object
ferrite_drvr_header:
        .word   0x7F00                  | dNeedLock dNeedTime dNeedGoodBye + all enables
        .word   30                      | drvrDelay: accRun every 30 ticks (until events are posted)
        .word   0                       | drvrEMask
        .word   0                       | drvrMenu
        .word   dm_open - ferrite_drvr_header
        .word   dm_prime - ferrite_drvr_header
        .word   dm_control - ferrite_drvr_header
        .word   dm_status - ferrite_drvr_header
        .word   dm_close - ferrite_drvr_header
        .byte   8
        .ascii  ".Ferrite"
        .even
        .size   ferrite_drvr_header, . - ferrite_drvr_header

| The head's pointer table, right after the DRVR header (shared/src/driver_blob.rs): how many
| pointers, the flag set once the blob is relocated, then the pointers: where the head
| reaches the rest of the driver (fixed by the relocation table). All data.
        .type   head_table,@object
head_table:
        .word   (pointers_end - pointers) / 4
relocated:
        .word   0
pointers:
p_install:      .long   ferrite_install
p_open:         .long   glue_open
p_prime:        .long   glue_prime
p_control:      .long   glue_control
p_status:       .long   glue_status
p_close:        .long   glue_close
pointers_end:
        .size   head_table, . - head_table

| Device Manager entries: jump through the pointer table, every register untouched.
dm_open:
        move.l  p_open(%pc),-(%sp)
        rts
dm_prime:
        move.l  p_prime(%pc),-(%sp)
        rts
dm_control:
        move.l  p_control(%pc),-(%sp)
        rts
dm_status:
        move.l  p_status(%pc),-(%sp)
        rts
dm_close:
        move.l  p_close(%pc),-(%sp)
        rts

| D6 = entry kind (0 original, 1 SCSI Manager 4.3): D6 survives the relocation stub and the
| traps below.
install_original:
        movem.l %d1-%d7/%a0-%a6,-(%sp)
        moveq   #0,%d6
        bra.s   install_common
install_43:
        movem.l %d1-%d7/%a0-%a6,-(%sp)
        moveq   #1,%d6
install_common:
        lea     ferrite_blob_start(%pc),%a2
        lea     relocated(%pc),%a3
        tst.w   (%a3)
        bne.s   1f
        move.w  #1,(%a3)
        move.l  blob_reloc_offset(%pc),%d0
        pea     0(%a2,%d0.l)            | the table
        move.l  %a2,-(%sp)              | the image
        bsr.w   ferrite_relocate
        addq.l  #8,%sp
        bsr.s   flush_icache            | before any relocated code runs
1:      move.l  %d5,-(%sp)
        move.l  %d6,-(%sp)
        move.l  %a2,-(%sp)
        movea.l p_install(%pc),%a0
        jsr     (%a0)                   | ferrite_install(blob, entry kind, D5)
        lea     12(%sp),%sp
        movem.l (%sp)+,%d1-%d7/%a0-%a6
        rts

| _HWPriv FlushInstructionCache where the trap exists (a 68000 Mac without it has no cache).
flush_icache:
        move.l  %a2,-(%sp)
        move.w  #0xA89F,%d0
        .short  0xA746                  | _GetToolTrapAddress(_Unimplemented)
        movea.l %a0,%a2
        move.w  #0xA198,%d0
        .short  0xA346                  | _GetOSTrapAddress(_HWPriv)
        cmpa.l  %a0,%a2
        beq.s   1f
        moveq   #1,%d0
        .short  0xA198                  | _HWPriv FlushInstructionCache
1:      movea.l (%sp)+,%a2
        rts

