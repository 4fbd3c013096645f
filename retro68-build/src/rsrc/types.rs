//! Compiled layouts of the resources an application carries (mac-facts §12.4, §12.5, §13.6). Each
//! builder returns the resource's bytes; the unit tests pin every layout byte for byte.

use super::fork::ResType;

/// A rectangle as QuickDraw stores it: top, left, bottom, right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rect {
    pub top: i16,
    pub left: i16,
    pub bottom: i16,
    pub right: i16,
}

impl Rect {
    pub fn new(top: i16, left: i16, bottom: i16, right: i16) -> Rect {
        Rect {
            top,
            left,
            bottom,
            right,
        }
    }
    fn put(&self, out: &mut Vec<u8>) {
        for v in [self.top, self.left, self.bottom, self.right] {
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}

/// Append a Pascal string; `Err` if longer than 255 bytes.
pub fn put_pstring(out: &mut Vec<u8>, s: &[u8]) -> Result<(), String> {
    if s.len() > 255 {
        return Err(format!(
            "string of {} bytes does not fit a Pascal string (255)",
            s.len()
        ));
    }
    out.push(s.len() as u8);
    out.extend_from_slice(s);
    Ok(())
}

fn pad_even(out: &mut Vec<u8>) {
    if out.len() % 2 == 1 {
        out.push(0);
    }
}

/// One `MENU` item.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MenuItem {
    pub text: Vec<u8>,
    /// Icon number (0 = none).
    pub icon: u8,
    /// Command-key equivalent (0 = none).
    pub key: u8,
    /// Mark character (0 = none).
    pub mark: u8,
    /// Style bits (0 = plain).
    pub style: u8,
    pub enabled: bool,
}

/// `MENU`: menu ID, width 0, height 0, MDEF 0, filler, enable flags, title, items, 0.
/// Bit 0 of the enable flags enables the whole menu, bit k item k (k = 1..31); items past
/// 31 have no bit (always enabled).
pub fn menu(
    menu_id: i16,
    title: &[u8],
    items: &[MenuItem],
    menu_enabled: bool,
) -> Result<Vec<u8>, String> {
    let mut flags: u32 = menu_enabled as u32;
    for (i, it) in items.iter().enumerate() {
        let k = i + 1;
        if k <= 31 {
            flags |= (it.enabled as u32) << k;
        } else if !it.enabled {
            return Err(format!(
                "menu {menu_id}: item {k} cannot be disabled (only items 1..31 have enable bits)"
            ));
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(&menu_id.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // width, height (computed by the Menu Manager)
    out.extend_from_slice(&[0, 0]); // MDEF ID 0: the standard menu
    out.extend_from_slice(&[0, 0]); // filler
    out.extend_from_slice(&flags.to_be_bytes());
    put_pstring(&mut out, title)?;
    for it in items {
        if it.text.is_empty() {
            return Err(format!(
                "menu {menu_id}: an item with empty text would end the item list"
            ));
        }
        put_pstring(&mut out, &it.text)?;
        out.extend_from_slice(&[it.icon, it.key, it.mark, it.style]);
    }
    out.push(0);
    Ok(out)
}

/// `MBAR`: count, then menu IDs.
pub fn mbar(ids: &[i16]) -> Vec<u8> {
    let mut out = (ids.len() as u16).to_be_bytes().to_vec();
    for id in ids {
        out.extend_from_slice(&id.to_be_bytes());
    }
    out
}

/// Window/dialog placement word (System 7), mac-facts §13.6.
pub mod position {
    pub const NO_AUTO_CENTER: u16 = 0x0000;
    pub const CENTER_MAIN_SCREEN: u16 = 0x280A;
    pub const ALERT_POSITION_MAIN_SCREEN: u16 = 0x300A;
    pub const STAGGER_MAIN_SCREEN: u16 = 0x380A;
    pub const CENTER_PARENT_WINDOW: u16 = 0xA80A;
    pub const ALERT_POSITION_PARENT_WINDOW: u16 = 0xB00A;
    pub const STAGGER_PARENT_WINDOW: u16 = 0xB80A;
    pub const CENTER_PARENT_WINDOW_SCREEN: u16 = 0x680A;
    pub const ALERT_POSITION_PARENT_WINDOW_SCREEN: u16 = 0x700A;
    pub const STAGGER_PARENT_WINDOW_SCREEN: u16 = 0x780A;

    /// By name as the resource compiler spells them.
    pub fn by_name(n: &str) -> Option<u16> {
        Some(match n {
            "noAutoCenter" => NO_AUTO_CENTER,
            "centerMainScreen" => CENTER_MAIN_SCREEN,
            "alertPositionMainScreen" => ALERT_POSITION_MAIN_SCREEN,
            "staggerMainScreen" => STAGGER_MAIN_SCREEN,
            "centerParentWindow" => CENTER_PARENT_WINDOW,
            "alertPositionParentWindow" => ALERT_POSITION_PARENT_WINDOW,
            "staggerParentWindow" => STAGGER_PARENT_WINDOW,
            "centerParentWindowScreen" => CENTER_PARENT_WINDOW_SCREEN,
            "alertPositionParentWindowScreen" => ALERT_POSITION_PARENT_WINDOW_SCREEN,
            "staggerParentWindowScreen" => STAGGER_PARENT_WINDOW_SCREEN,
            _ => return None,
        })
    }
}

/// Window definition IDs (mac-facts §13.6).
pub fn proc_id_by_name(n: &str) -> Option<i16> {
    Some(match n {
        "documentProc" => 0,
        "dBoxProc" => 1,
        "plainDBox" => 2,
        "altDBoxProc" => 3,
        "noGrowDocProc" => 4,
        "movableDBoxProc" => 5,
        "zoomDocProc" => 8,
        "zoomNoGrow" => 12,
        "rDocProc" => 16,
        _ => return None,
    })
}

/// The fields `WIND` and `DLOG` share.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WindowTemplate {
    pub bounds: Rect,
    pub proc_id: i16,
    pub visible: bool,
    pub go_away: bool,
    pub refcon: i32,
    pub title: Vec<u8>,
    /// System 7 placement word, if any.
    pub position: Option<u16>,
}

/// `DLOG`: rect, procID, visible+fill, goAway+fill, refCon, `DITL` ID, title, pad, position.
pub fn dlog(w: &WindowTemplate, ditl_id: i16) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    w.bounds.put(&mut out);
    out.extend_from_slice(&w.proc_id.to_be_bytes());
    out.extend_from_slice(&[w.visible as u8, 0, w.go_away as u8, 0]);
    out.extend_from_slice(&w.refcon.to_be_bytes());
    out.extend_from_slice(&ditl_id.to_be_bytes());
    put_pstring(&mut out, &w.title)?;
    pad_even(&mut out);
    if let Some(p) = w.position {
        out.extend_from_slice(&p.to_be_bytes());
    }
    Ok(out)
}

/// `WIND`: like `DLOG` without the `DITL` ID.
pub fn wind(w: &WindowTemplate) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    w.bounds.put(&mut out);
    out.extend_from_slice(&w.proc_id.to_be_bytes());
    out.extend_from_slice(&[w.visible as u8, 0, w.go_away as u8, 0]);
    out.extend_from_slice(&w.refcon.to_be_bytes());
    put_pstring(&mut out, &w.title)?;
    pad_even(&mut out);
    if let Some(p) = w.position {
        out.extend_from_slice(&p.to_be_bytes());
    }
    Ok(out)
}

/// `ALRT`: rect, `DITL` ID, stages word (stage 4 in the top nibble), optional position.
pub fn alrt(bounds: Rect, ditl_id: i16, stages: u16, position: Option<u16>) -> Vec<u8> {
    let mut out = Vec::new();
    bounds.put(&mut out);
    out.extend_from_slice(&ditl_id.to_be_bytes());
    out.extend_from_slice(&stages.to_be_bytes());
    if let Some(p) = position {
        out.extend_from_slice(&p.to_be_bytes());
    }
    out
}

/// `DITL` item types (mac-facts §13.6).
pub mod item {
    pub const USER: u8 = 0;
    pub const HELP: u8 = 1;
    pub const BUTTON: u8 = 4;
    pub const CHECKBOX: u8 = 5;
    pub const RADIO: u8 = 6;
    pub const RES_CONTROL: u8 = 7;
    pub const STATIC_TEXT: u8 = 8;
    pub const EDIT_TEXT: u8 = 16;
    pub const ICON: u8 = 32;
    pub const PICTURE: u8 = 64;
    /// Bit 7 of the type byte.
    pub const DISABLED: u8 = 0x80;
}

/// One `DITL` item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogItem {
    pub rect: Rect,
    /// `item::*`, without the disabled bit.
    pub kind: u8,
    pub disabled: bool,
    /// Item data: text for buttons/text items, a 2-byte ID for icon/picture/control items.
    pub data: Vec<u8>,
}

/// `DITL`: count − 1, then per item a 4-byte placeholder, rect, type, data length, data,
/// pad to even.
pub fn ditl(items: &[DialogItem]) -> Result<Vec<u8>, String> {
    if items.is_empty() {
        return Err("a DITL needs at least one item".into());
    }
    let mut out = ((items.len() - 1) as u16).to_be_bytes().to_vec();
    for (i, it) in items.iter().enumerate() {
        if it.kind & item::DISABLED != 0 {
            return Err(format!(
                "item {}: kind {:#x} includes the disabled bit; use `disabled`",
                i + 1,
                it.kind
            ));
        }
        out.extend_from_slice(&[0; 4]);
        it.rect.put(&mut out);
        out.push(it.kind | if it.disabled { item::DISABLED } else { 0 });
        put_pstring(&mut out, &it.data).map_err(|e| format!("item {}: {e}", i + 1))?;
        pad_even(&mut out);
    }
    Ok(out)
}

/// `STR#`: count, then Pascal strings.
pub fn str_list(strings: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    let mut out = (strings.len() as u16).to_be_bytes().to_vec();
    for s in strings {
        put_pstring(&mut out, s)?;
    }
    Ok(out)
}

/// `vers` development stages.
pub mod stage {
    pub const DEVELOPMENT: u8 = 0x20;
    pub const ALPHA: u8 = 0x40;
    pub const BETA: u8 = 0x60;
    pub const RELEASE: u8 = 0x80;
}

/// A `vers` resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vers {
    pub major: u8,
    pub minor: u8,
    pub bug: u8,
    pub stage: u8,
    pub prerelease: u8,
    pub region: u16,
    pub short: Vec<u8>,
    pub long: Vec<u8>,
}

fn bcd(v: u8, max: u8) -> Result<u8, String> {
    if v > max {
        return Err(format!("version part {v} is larger than {max}"));
    }
    Ok((v / 10) << 4 | (v % 10))
}

/// `vers`: major (BCD byte), minor and bug (one BCD nibble each), stage, prerelease, region,
/// short and long version strings.
pub fn vers(v: &Vers) -> Result<Vec<u8>, String> {
    let mut out = vec![
        bcd(v.major, 99)?,
        bcd(v.minor, 9)? << 4 | bcd(v.bug, 9)?,
        v.stage,
        v.prerelease,
    ];
    if ![
        stage::DEVELOPMENT,
        stage::ALPHA,
        stage::BETA,
        stage::RELEASE,
    ]
    .contains(&v.stage)
    {
        return Err(format!(
            "vers stage {:#x} is not development/alpha/beta/release",
            v.stage
        ));
    }
    out.extend_from_slice(&v.region.to_be_bytes());
    put_pstring(&mut out, &v.short)?;
    put_pstring(&mut out, &v.long)?;
    Ok(out)
}

/// `SIZE` flag bits (mac-facts §12.4).
pub mod size_flags {
    pub const ACCEPT_SUSPEND_RESUME: u16 = 0x4000;
    pub const CAN_BACKGROUND: u16 = 0x1000;
    pub const DOES_ACTIVATE_ON_FG_SWITCH: u16 = 0x0800;
    pub const ONLY_BACKGROUND: u16 = 0x0400;
    pub const GET_FRONT_CLICKS: u16 = 0x0200;
    pub const ACCEPT_APP_DIED_EVENTS: u16 = 0x0100;
    pub const IS_32BIT_COMPATIBLE: u16 = 0x0080;
    pub const HIGH_LEVEL_EVENT_AWARE: u16 = 0x0040;
    pub const LOCAL_AND_REMOTE_HL_EVENTS: u16 = 0x0020;
    pub const STATIONERY_AWARE: u16 = 0x0010;
    pub const USE_TEXT_EDIT_SERVICES: u16 = 0x0008;
    pub const DISPLAY_MANAGER_AWARE: u16 = 0x0004;
    /// Bits 15, 13, 1 and 0 are reserved.
    pub const RESERVED: u16 = 0x8000 | 0x2000 | 0x0003;

    pub fn by_name(n: &str) -> Option<u16> {
        Some(match n {
            "acceptSuspendResumeEvents" => ACCEPT_SUSPEND_RESUME,
            "canBackground" => CAN_BACKGROUND,
            "doesActivateOnFGSwitch" => DOES_ACTIVATE_ON_FG_SWITCH,
            "onlyBackground" => ONLY_BACKGROUND,
            "getFrontClicks" => GET_FRONT_CLICKS,
            "acceptAppDiedEvents" => ACCEPT_APP_DIED_EVENTS,
            "is32BitCompatible" => IS_32BIT_COMPATIBLE,
            "isHighLevelEventAware" => HIGH_LEVEL_EVENT_AWARE,
            "localAndRemoteHLEvents" => LOCAL_AND_REMOTE_HL_EVENTS,
            "isStationeryAware" => STATIONERY_AWARE,
            "useTextEditServices" => USE_TEXT_EDIT_SERVICES,
            "isDisplayManagerAware" => DISPLAY_MANAGER_AWARE,
            _ => return None,
        })
    }
}

/// `SIZE`: flags, preferred size, minimum size (10 bytes).
pub fn size(flags: u16, preferred: u32, minimum: u32) -> Result<Vec<u8>, String> {
    if flags & size_flags::RESERVED != 0 {
        return Err(format!("SIZE flags {flags:#06x} set reserved bits"));
    }
    if minimum > preferred {
        return Err(format!(
            "SIZE minimum {minimum} exceeds preferred {preferred}"
        ));
    }
    let mut out = flags.to_be_bytes().to_vec();
    out.extend_from_slice(&preferred.to_be_bytes());
    out.extend_from_slice(&minimum.to_be_bytes());
    Ok(out)
}

/// `BNDL`: signature, signature resource ID, number of groups − 1, then per group the type,
/// count − 1 and (local ID, resource ID) pairs.
pub fn bndl(
    signature: ResType,
    signature_id: i16,
    groups: &[(ResType, Vec<(i16, i16)>)],
) -> Result<Vec<u8>, String> {
    if groups.is_empty() {
        return Err("a BNDL needs at least one type group".into());
    }
    let mut out = signature.to_vec();
    out.extend_from_slice(&signature_id.to_be_bytes());
    out.extend_from_slice(&((groups.len() - 1) as u16).to_be_bytes());
    for (t, pairs) in groups {
        if pairs.is_empty() {
            return Err(format!(
                "BNDL group '{}' is empty",
                super::fork::show_type(t)
            ));
        }
        out.extend_from_slice(t);
        out.extend_from_slice(&((pairs.len() - 1) as u16).to_be_bytes());
        for (local, res) in pairs {
            out.extend_from_slice(&local.to_be_bytes());
            out.extend_from_slice(&res.to_be_bytes());
        }
    }
    Ok(out)
}

/// `FREF`: file type, local icon ID, file name (normally empty).
pub fn fref(file_type: ResType, local_icon: i16, name: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = file_type.to_vec();
    out.extend_from_slice(&local_icon.to_be_bytes());
    put_pstring(&mut out, name)?;
    Ok(out)
}

/// `ICN#`: 32×32 icon (128 bytes) then its mask (128 bytes).
pub fn icn(icon: &[u8; 128], mask: &[u8; 128]) -> Vec<u8> {
    let mut out = icon.to_vec();
    out.extend_from_slice(mask);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn dlog_matches_the_facts_example() {
        // mac-facts §13.6: `0022 0016 0120 01BA  0001  0100  0100  0000 0000  0200  00 00  300A`
        let w = WindowTemplate {
            bounds: Rect::new(0x22, 0x16, 0x120, 0x1BA),
            proc_id: 1,
            visible: true,
            go_away: true,
            refcon: 0,
            title: vec![],
            position: Some(position::ALERT_POSITION_MAIN_SCREEN),
        };
        assert_eq!(
            dlog(&w, 512).unwrap(),
            hex("0022 0016 0120 01BA 0001 0100 0100 0000 0000 0200 0000 300A")
        );
        // Odd-length title + pad; no position word.
        let w = WindowTemplate {
            title: b"Hi".to_vec(),
            position: None,
            ..w
        };
        assert_eq!(
            dlog(&w, 128).unwrap(),
            hex("0022 0016 0120 01BA 0001 0100 0100 0000 0000 0080 02 4869 00")
        );
        assert_eq!(
            wind(&w).unwrap(),
            hex("0022 0016 0120 01BA 0001 0100 0100 0000 0000 02 4869 00")
        );
    }

    #[test]
    fn alrt_and_ditl() {
        assert_eq!(
            alrt(Rect::new(40, 40, 140, 340), 128, 0x5555, None),
            hex("0028 0028 008C 0154 0080 5555")
        );
        assert_eq!(
            alrt(
                Rect::new(40, 40, 140, 340),
                128,
                0x5555,
                Some(position::ALERT_POSITION_PARENT_WINDOW)
            ),
            hex("0028 0028 008C 0154 0080 5555 B00A")
        );
        let items = [
            DialogItem {
                rect: Rect::new(70, 230, 90, 290),
                kind: item::BUTTON,
                disabled: false,
                data: b"OK".to_vec(),
            },
            DialogItem {
                rect: Rect::new(10, 60, 60, 290),
                kind: item::STATIC_TEXT,
                disabled: true,
                data: b"Hey".to_vec(),
            },
            DialogItem {
                rect: Rect::new(0, 0, 32, 32),
                kind: item::ICON,
                disabled: false,
                data: vec![0, 1],
            },
        ];
        assert_eq!(
            ditl(&items).unwrap(),
            hex("0002 00000000 0046 00E6 005A 0122 04 02 4F4B
                       00000000 000A 003C 003C 0122 88 03 486579 00
                       00000000 0000 0000 0020 0020 20 02 0001")
        );
        assert!(ditl(&[]).is_err());
    }

    #[test]
    fn menu_and_mbar() {
        let items = [
            MenuItem {
                text: b"About".to_vec(),
                enabled: true,
                ..Default::default()
            },
            MenuItem {
                text: b"-".to_vec(),
                enabled: false,
                ..Default::default()
            },
            MenuItem {
                text: b"Quit".to_vec(),
                key: b'Q',
                enabled: true,
                ..Default::default()
            },
        ];
        assert_eq!(
            menu(128, b"\x14", &items, true).unwrap(),
            hex(
                "0080 0000 0000 0000 0000 0000000B 01 14 05 41626F7574 00000000 01 2D 00000000 04 51756974 00510000 00"
            )
        );
        assert_eq!(mbar(&[128, 129]), hex("0002 0080 0081"));
    }

    #[test]
    fn str_list_vers_size() {
        assert_eq!(
            str_list(&[b"a".to_vec(), b"".to_vec()]).unwrap(),
            hex("0002 0161 00")
        );
        let v = Vers {
            major: 1,
            minor: 2,
            bug: 3,
            stage: stage::BETA,
            prerelease: 4,
            region: 0,
            short: b"1.2.3".to_vec(),
            long: b"x".to_vec(),
        };
        assert_eq!(
            vers(&v).unwrap(),
            hex("01 23 60 04 0000 05 312E322E33 01 78")
        );
        let v = Vers { major: 12, ..v };
        assert_eq!(vers(&v).unwrap()[0], 0x12);
        assert_eq!(
            size(0x0080, 1 << 20, 512 << 10).unwrap(),
            hex("0080 00100000 00080000")
        );
        assert!(size(0x8000, 1, 1).is_err());
        assert!(size(0x0080, 1, 2).is_err());
    }

    #[test]
    fn bndl_fref_icn() {
        let b = bndl(
            *b"FRRT",
            0,
            &[(*b"ICN#", vec![(0, 128)]), (*b"FREF", vec![(0, 128)])],
        )
        .unwrap();
        assert_eq!(
            b,
            hex("46525254 0000 0001 49434E23 0000 0000 0080 46524546 0000 0000 0080")
        );
        assert_eq!(fref(*b"APPL", 0, b"").unwrap(), hex("4150504C 0000 00"));
        let i = icn(&[0x11; 128], &[0xFF; 128]);
        assert_eq!(i.len(), 256);
        assert_eq!((i[127], i[128]), (0x11, 0xFF));
    }
}
