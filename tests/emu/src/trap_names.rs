//! Names of common A-line traps, for error messages.
//!
//! Trap numbers are facts from Inside Macintosh / the Universal Interfaces trap lists. Entries
//! with modifier bits (e.g. `NewPtrSys` $A51E) are listed where the variant has its own name;
//! lookup falls back to the trap number (OS: low 8 bits; Toolbox: low 10 bits).

/// `(trap word, name without the leading underscore)`.
pub const TRAP_NAMES: &[(u16, &str)] = &[
    // ---- Device Manager / File Manager ----
    (0xA000, "Open"),
    (0xA001, "Close"),
    (0xA002, "Read"),
    (0xA003, "Write"),
    (0xA004, "Control"),
    (0xA005, "Status"),
    (0xA006, "KillIO"),
    (0xA007, "GetVolInfo"),
    (0xA008, "Create"),
    (0xA009, "Delete"),
    (0xA00A, "OpenRF"),
    (0xA00B, "Rename"),
    (0xA00C, "GetFileInfo"),
    (0xA00D, "SetFileInfo"),
    (0xA00E, "UnmountVol"),
    (0xA00F, "MountVol"),
    (0xA010, "Allocate"),
    (0xA011, "GetEOF"),
    (0xA012, "SetEOF"),
    (0xA013, "FlushVol"),
    (0xA014, "GetVol"),
    (0xA015, "SetVol"),
    (0xA016, "InitQueue"),
    (0xA017, "Eject"),
    (0xA018, "GetFPos"),
    (0xA035, "Offline"),
    (0xA03D, "DrvrInstall"),
    (0xA43D, "DrvrInstallRsrvMem"),
    (0xA03E, "DrvrRemove"),
    (0xA04E, "AddDrive"),
    (0xA060, "FSDispatch"),
    // ---- Memory Manager ----
    (0xA019, "InitZone"),
    (0xA11A, "GetZone"),
    (0xA01B, "SetZone"),
    (0xA01C, "FreeMem"),
    (0xA01D, "MaxMem"),
    (0xA01E, "NewPtr"),
    (0xA11E, "NewPtr"),
    (0xA31E, "NewPtrClear"),
    (0xA51E, "NewPtrSys"),
    (0xA71E, "NewPtrSysClear"),
    (0xA01F, "DisposePtr"),
    (0xA020, "SetPtrSize"),
    (0xA021, "GetPtrSize"),
    (0xA022, "NewHandle"),
    (0xA122, "NewHandle"),
    (0xA322, "NewHandleClear"),
    (0xA522, "NewHandleSys"),
    (0xA722, "NewHandleSysClear"),
    (0xA023, "DisposeHandle"),
    (0xA024, "SetHandleSize"),
    (0xA025, "GetHandleSize"),
    (0xA026, "HandleZone"),
    (0xA027, "ReallocHandle"),
    (0xA028, "RecoverHandle"),
    (0xA128, "RecoverHandle"),
    (0xA029, "HLock"),
    (0xA02A, "HUnlock"),
    (0xA02B, "EmptyHandle"),
    (0xA02C, "InitApplZone"),
    (0xA02D, "SetApplLimit"),
    (0xA02E, "BlockMove"),
    (0xA22E, "BlockMoveData"),
    (0xA036, "MoreMasters"),
    (0xA040, "ResrvMem"),
    (0xA048, "PtrZone"),
    (0xA049, "HPurge"),
    (0xA04A, "HNoPurge"),
    (0xA04B, "SetGrowZone"),
    (0xA04C, "CompactMem"),
    (0xA04D, "PurgeMem"),
    (0xA055, "StripAddress"),
    (0xA05C, "MemoryDispatch"),
    (0xA061, "MaxBlock"),
    (0xA062, "PurgeSpace"),
    (0xA063, "MaxApplZone"),
    (0xA064, "MoveHHi"),
    (0xA065, "StackSpace"),
    (0xA066, "NewEmptyHandle"),
    (0xA067, "HSetRBit"),
    (0xA068, "HClrRBit"),
    (0xA069, "HGetState"),
    (0xA06A, "HSetState"),
    (0xA08F, "DeferUserFn"),
    (0xA091, "Translate24To32"),
    // ---- Events, time, utilities ----
    (0xA02F, "PostEvent"),
    (0xA12F, "PPostEvent"),
    (0xA030, "OSEventAvail"),
    (0xA031, "GetOSEvent"),
    (0xA032, "FlushEvents"),
    (0xA033, "VInstall"),
    (0xA034, "VRemove"),
    (0xA037, "ReadParam"),
    (0xA038, "WriteParam"),
    (0xA039, "ReadDateTime"),
    (0xA03A, "SetDateTime"),
    (0xA03B, "Delay"),
    (0xA03C, "CmpString"),
    (0xA046, "GetTrapAddress"),
    (0xA146, "GetTrapAddress"),
    (0xA346, "GetOSTrapAddress"),
    (0xA746, "GetToolTrapAddress"),
    (0xA047, "SetTrapAddress"),
    (0xA247, "SetOSTrapAddress"),
    (0xA647, "SetToolTrapAddress"),
    (0xA050, "RelString"),
    (0xA051, "ReadXPRam"),
    (0xA052, "WriteXPRam"),
    (0xA054, "UprString"),
    (0xA058, "InsTime"),
    (0xA458, "InsXTime"),
    (0xA059, "RmvTime"),
    (0xA05A, "PrimeTime"),
    (0xA05D, "SwapMMUMode"),
    (0xA05E, "NMInstall"),
    (0xA05F, "NMRemove"),
    (0xA06E, "SlotManager"),
    (0xA06F, "SlotVInstall"),
    (0xA070, "SlotVRemove"),
    (0xA075, "SIntInstall"),
    (0xA076, "SIntRemove"),
    (0xA07D, "GetDefaultStartup"),
    (0xA07E, "SetDefaultStartup"),
    (0xA082, "DTInstall"),
    (0xA089, "SCSIAtomic"),
    (0xA090, "SysEnvirons"),
    (0xA098, "HWPriv"),
    (0xA198, "HWPriv"),
    (0xA0AD, "Gestalt"),
    (0xA1AD, "Gestalt"),
    (0xA3AD, "NewGestalt"),
    (0xA5AD, "ReplaceGestalt"),
    // ---- Toolbox ----
    (0xA815, "SCSIDispatch"),
    (0xA86E, "InitGraf"),
    (0xA88F, "OSDispatch"),
    (0xA895, "ShutDown"),
    (0xA89F, "Unimplemented"),
    (0xA8B5, "ScriptUtil"),
    (0xA96E, "Dequeue"),
    (0xA96F, "Enqueue"),
    (0xA975, "TickCount"),
    (0xA9A0, "GetResource"),
    (0xA9A1, "GetNamedResource"),
    (0xA9A3, "ReleaseResource"),
    (0xA9AF, "ResError"),
    (0xA9C8, "SysBeep"),
    (0xA9C9, "SysError"),
    (0xA9F0, "LoadSeg"),
    (0xA9F4, "ExitToShell"),
    (0xA9FF, "Debugger"),
    (0xABFF, "DebugStr"),
];

/// Whether `word` is an OS trap (bit 11 clear) rather than a Toolbox trap.
pub fn is_os_trap(word: u16) -> bool {
    word & 0x0800 == 0
}

/// Trap-table index: OS traps use the low 8 bits, Toolbox traps the low 10 bits.
pub fn trap_number(word: u16) -> u16 {
    if is_os_trap(word) {
        word & 0x00FF
    } else {
        word & 0x03FF
    }
}

/// The name of `word`: the exact variant if listed, else the base trap's name.
pub fn trap_name(word: u16) -> Option<&'static str> {
    if let Some((_, n)) = TRAP_NAMES.iter().find(|(w, _)| *w == word) {
        return Some(n);
    }
    let os = is_os_trap(word);
    let num = trap_number(word);
    TRAP_NAMES
        .iter()
        .find(|(w, _)| is_os_trap(*w) == os && trap_number(*w) == num)
        .map(|(_, n)| *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        assert_eq!(trap_name(0xA51E), Some("NewPtrSys"));
        assert_eq!(trap_name(0xA41E), Some("NewPtr"));
        assert_eq!(trap_name(0xA402), Some("Read"));
        assert_eq!(trap_name(0xABFF), Some("DebugStr"));
        assert_eq!(trap_name(0xA9FF), Some("Debugger"));
        // The auto-pop bit (10) is ignored for Toolbox traps.
        assert_eq!(trap_name(0xAFFF), Some("DebugStr"));
        assert_eq!(trap_name(0xADFF), Some("Debugger"));
        assert_eq!(trap_name(0xA8FF), None);
        assert_eq!(trap_number(0xA51E), 0x1E);
        assert_eq!(trap_number(0xABFF), 0x3FF);
    }

    #[test]
    fn no_duplicate_words() {
        for (i, (w, _)) in TRAP_NAMES.iter().enumerate() {
            assert!(
                TRAP_NAMES[i + 1..].iter().all(|(v, _)| v != w),
                "${w:04X} twice"
            );
        }
    }
}
