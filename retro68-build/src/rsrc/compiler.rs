//! A small declarative resource compiler (our own format; no Rez). A source file is a list of
//! resources; each is a header line `TYPE ID [name "…"] [attribute…] {`, one statement per
//! line, and a closing `}` line. `;` starts a comment. Strings are `"…"` (UTF-8 in the file,
//! converted to Mac Roman; escapes `\"`, `\\`, `\xNN`); a type with a space is quoted with
//! single quotes (`'STR '`). Numbers are decimal or `0x…`, optionally with a `K`/`M` suffix.
//! Attributes: `purgeable`, `locked`, `preload`, `protected`, `sysheap`.
//!
//! ```text
//! MENU 128 {
//!     title apple
//!     item "About Ferrite Setup…"
//! }
//! MENU 129 {
//!     title "File"
//!     item "Quit" key Q
//! }
//! MBAR 128 {
//!     menus 128 129
//! }
//! ALRT 128 purgeable {
//!     rect 40 40 140 340
//!     ditl 128
//!     stages 0x5555
//! }
//! DITL 128 purgeable {
//!     button 70 230 90 290 "OK"
//!     static 10 60 60 290 "Ferrite Setup ^0" disabled
//! }
//! SIZE -1 {
//!     flags is32BitCompatible
//!     preferred 512K
//!     minimum 384K
//! }
//! ```
//!
//! Statements per type:
//! * `MENU`: `title "…"|apple`, `item "…" [key C] [mark C] [icon N] [style N] [disabled]`,
//!   `separator`, `disabled` (the whole menu), `id N` (menu ID; default the resource ID).
//! * `MBAR`: `menus ID…`.
//! * `WIND`/`DLOG`: `rect T L B R`, `proc NAME|N`, `visible`, `invisible`, `goaway`,
//!   `refcon N`, `title "…"`, `position NAME|N`; `DLOG` also `ditl ID`.
//!   Defaults: visible, no close box, procID documentProc (`WIND`) / dBoxProc (`DLOG`).
//! * `ALRT`: `rect`, `ditl`, `stages N` (default 0x5555), `position`.
//! * `DITL`: `button|checkbox|radio|static|edit T L B R "…" [disabled]`,
//!   `user T L B R [disabled]`, `icon|picture|control T L B R ID [disabled]`.
//! * `STR#`: `string "…"` per string; `'STR '`: one `string "…"`.
//! * `vers`: `version MAJOR.MINOR.BUG`, `stage development|alpha|beta|release`,
//!   `prerelease N`, `region N`, `short "…"`, `long "…"`.
//! * `SIZE`: `flags NAME…|N`, `preferred N`, `minimum N`.
//! * `BNDL`: `signature TYPE [ID]`, `map TYPE LOCAL-ID RESOURCE-ID` (one per pair).
//! * `FREF`: `type TYPE`, `icon LOCAL-ID`, `name "…"`.
//! * `ICN#`: 32 `row` lines of 32 `#`/`.` (icon), then optionally 32 `maskrow` lines (the
//!   default mask fills each row from its first to its last black pixel).
//! * any other type (e.g. the signature resource): `hex …`, `pstring "…"`, `text "…"`.

use super::fork::{
    RES_LOCKED, RES_PRELOAD, RES_PROTECTED, RES_PURGEABLE, RES_SYS_HEAP, ResType, Resource,
    ResourceFork,
};
use super::types::{self, DialogItem, MenuItem, Rect, Vers, WindowTemplate};

/// A compile error with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}
impl std::error::Error for CompileError {}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Str(Vec<u8>),
    Open,
    Close,
}

/// UTF-8 → Mac Roman for the characters an app's text uses (ASCII plus a few typographic
/// ones); anything else is an error rather than a wrong glyph.
pub fn mac_roman(s: &str) -> Result<Vec<u8>, String> {
    s.chars()
        .map(|c| {
            Ok(match c {
                '\0'..='\x7F' => c as u8,
                'Ä' => 0x80,
                'Å' => 0x81,
                'Ç' => 0x82,
                'É' => 0x83,
                'Ñ' => 0x84,
                'Ö' => 0x85,
                'Ü' => 0x86,
                'á' => 0x87,
                'à' => 0x88,
                'â' => 0x89,
                'ä' => 0x8A,
                'ã' => 0x8B,
                'å' => 0x8C,
                'ç' => 0x8D,
                'é' => 0x8E,
                'è' => 0x8F,
                'ê' => 0x90,
                'ë' => 0x91,
                'í' => 0x92,
                'ì' => 0x93,
                'î' => 0x94,
                'ï' => 0x95,
                'ñ' => 0x96,
                'ó' => 0x97,
                'ò' => 0x98,
                'ô' => 0x99,
                'ö' => 0x9A,
                'õ' => 0x9B,
                'ú' => 0x9C,
                'ù' => 0x9D,
                'û' => 0x9E,
                'ü' => 0x9F,
                '†' => 0xA0,
                '°' => 0xA1,
                '•' => 0xA5,
                'ß' => 0xA7,
                '®' => 0xA8,
                '©' => 0xA9,
                '™' => 0xAA,
                '≠' => 0xAD,
                '∞' => 0xB0,
                '≤' => 0xB2,
                '≥' => 0xB3,
                '…' => 0xC9,
                '\u{A0}' => 0xCA,
                '–' => 0xD0,
                '—' => 0xD1,
                '“' => 0xD2,
                '”' => 0xD3,
                '‘' => 0xD4,
                '’' => 0xD5,
                '◊' => 0xD7,
                '\u{F8FF}' => 0xF0,
                _ => {
                    return Err(format!(
                        "character {c:?} (U+{:04X}) has no Mac Roman mapping here",
                        c as u32
                    ));
                }
            })
        })
        .collect()
}

fn tokenize(line: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut it = line.chars().peekable();
    while let Some(&c) = it.peek() {
        match c {
            ';' => break,
            c if c.is_whitespace() => {
                it.next();
            }
            '{' => {
                it.next();
                out.push(Tok::Open);
            }
            '}' => {
                it.next();
                out.push(Tok::Close);
            }
            '"' => {
                it.next();
                let mut bytes = Vec::new();
                let mut closed = false;
                while let Some(c) = it.next() {
                    match c {
                        '"' => {
                            closed = true;
                            break;
                        }
                        '\\' => match it.next() {
                            Some('"') => bytes.push(b'"'),
                            Some('\\') => bytes.push(b'\\'),
                            Some('x') => {
                                let h: String = [it.next(), it.next()].iter().flatten().collect();
                                let v = u8::from_str_radix(&h, 16)
                                    .map_err(|_| format!("bad escape \\x{h}"))?;
                                bytes.push(v);
                            }
                            other => {
                                return Err(format!(
                                    "unknown escape \\{}",
                                    other.map_or(String::new(), |c| c.to_string())
                                ));
                            }
                        },
                        c => bytes.extend(mac_roman(c.encode_utf8(&mut [0; 4]))?),
                    }
                }
                if !closed {
                    return Err("unterminated string".into());
                }
                out.push(Tok::Str(bytes));
            }
            '\'' => {
                it.next();
                let mut w = String::new();
                let mut closed = false;
                for c in it.by_ref() {
                    if c == '\'' {
                        closed = true;
                        break;
                    }
                    w.push(c);
                }
                if !closed {
                    return Err("unterminated 'type'".into());
                }
                out.push(Tok::Word(w));
            }
            _ => {
                let mut w = String::new();
                while let Some(&c) = it.peek() {
                    if c.is_whitespace() || matches!(c, '{' | '}' | '"' | ';') {
                        break;
                    }
                    w.push(c);
                    it.next();
                }
                out.push(Tok::Word(w));
            }
        }
    }
    Ok(out)
}

/// Parse a number: decimal, `0x` hex, optional leading `-`, optional `K`/`M` suffix.
pub fn number(w: &str) -> Result<i64, String> {
    let (w, mult) = if let Some(s) = w.strip_suffix('K') {
        (s, 1024)
    } else if let Some(s) = w.strip_suffix('M') {
        (s, 1024 * 1024)
    } else {
        (w, 1)
    };
    let (neg, w) = w.strip_prefix('-').map_or((false, w), |s| (true, s));
    let v = if let Some(h) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
    } else {
        w.parse::<i64>()
    }
    .map_err(|_| format!("`{w}` is not a number"))?;
    Ok(if neg { -v } else { v } * mult)
}

fn restype(w: &str) -> Result<ResType, String> {
    let b = mac_roman(w)?;
    b.try_into().map_err(|_| {
        format!("`{w}` is not a four-character type (quote types with spaces: 'STR ')")
    })
}

/// The statements of one line, with helpers that name what was expected.
struct Args<'a> {
    toks: &'a [Tok],
    pos: usize,
}

impl<'a> Args<'a> {
    fn word(&mut self, what: &str) -> Result<String, String> {
        match self.toks.get(self.pos) {
            Some(Tok::Word(w)) => {
                self.pos += 1;
                Ok(w.clone())
            }
            other => Err(format!("expected {what}, found {}", show(other))),
        }
    }
    fn string(&mut self, what: &str) -> Result<Vec<u8>, String> {
        match self.toks.get(self.pos) {
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(s.clone())
            }
            other => Err(format!(
                "expected {what} (a \"string\"), found {}",
                show(other)
            )),
        }
    }
    fn int<T: TryFrom<i64>>(&mut self, what: &str) -> Result<T, String> {
        let w = self.word(what)?;
        let v = number(&w)?;
        T::try_from(v).map_err(|_| format!("{what} {v} is out of range"))
    }
    fn rect(&mut self) -> Result<Rect, String> {
        Ok(Rect::new(
            self.int("top")?,
            self.int("left")?,
            self.int("bottom")?,
            self.int("right")?,
        ))
    }
    fn peek_word(&self) -> Option<&str> {
        match self.toks.get(self.pos) {
            Some(Tok::Word(w)) => Some(w),
            _ => None,
        }
    }
    fn done(&self) -> bool {
        self.pos >= self.toks.len()
    }
    fn end(&self) -> Result<(), String> {
        if self.done() {
            Ok(())
        } else {
            Err(format!("unexpected {}", show(self.toks.get(self.pos))))
        }
    }
    fn char(&mut self, what: &str) -> Result<u8, String> {
        let w = match self.toks.get(self.pos) {
            Some(Tok::Str(s)) => {
                self.pos += 1;
                s.clone()
            }
            _ => mac_roman(&self.word(what)?)?,
        };
        match w.as_slice() {
            [c] => Ok(*c),
            _ => Err(format!("{what} must be one character")),
        }
    }
}

fn show(t: Option<&Tok>) -> String {
    match t {
        None => "end of line".into(),
        Some(Tok::Word(w)) => format!("`{w}`"),
        Some(Tok::Str(_)) => "a string".into(),
        Some(Tok::Open) => "`{`".into(),
        Some(Tok::Close) => "`}`".into(),
    }
}

struct Body<'a> {
    lines: Vec<(usize, Vec<Tok>)>,
    _p: std::marker::PhantomData<&'a ()>,
}

/// Compile a source text into a resource fork's resources.
pub fn compile(source: &str) -> Result<ResourceFork, CompileError> {
    let mut fork = ResourceFork::new();
    let mut lines = source.lines().enumerate().map(|(i, l)| (i + 1, l));
    while let Some((ln, line)) = lines.next() {
        let err = |message: String| CompileError { line: ln, message };
        let toks = tokenize(line).map_err(err)?;
        if toks.is_empty() {
            continue;
        }
        if toks.last() != Some(&Tok::Open) {
            return Err(err(
                "a resource starts with `TYPE ID [name \"…\"] [attributes] {`".into(),
            ));
        }
        let mut a = Args {
            toks: &toks[..toks.len() - 1],
            pos: 0,
        };
        let rtype = restype(&a.word("a resource type").map_err(err)?).map_err(err)?;
        let id: i16 = a.int("resource ID").map_err(err)?;
        let mut name = None;
        let mut attributes = 0u8;
        while !a.done() {
            let w = a.word("an attribute").map_err(err)?;
            attributes |= match w.as_str() {
                "name" => {
                    name = Some(a.string("the resource name").map_err(err)?);
                    0
                }
                "purgeable" => RES_PURGEABLE,
                "locked" => RES_LOCKED,
                "preload" => RES_PRELOAD,
                "protected" => RES_PROTECTED,
                "sysheap" => RES_SYS_HEAP,
                other => return Err(err(format!("unknown attribute `{other}`"))),
            };
        }
        let mut body = Body {
            lines: Vec::new(),
            _p: Default::default(),
        };
        let mut closed = false;
        for (bl, l) in lines.by_ref() {
            let t = tokenize(l).map_err(|message| CompileError { line: bl, message })?;
            if t == [Tok::Close] {
                closed = true;
                break;
            }
            if t.contains(&Tok::Close) || t.contains(&Tok::Open) {
                return Err(CompileError {
                    line: bl,
                    message: "braces go alone: `}` on its own line ends a resource".into(),
                });
            }
            if !t.is_empty() {
                body.lines.push((bl, t));
            }
        }
        if !closed {
            return Err(err(format!(
                "resource '{}' {id} has no closing `}}`",
                super::fork::show_type(&rtype)
            )));
        }
        let data = compile_body(&rtype, id, &body).map_err(|(line, message)| CompileError {
            line: line.unwrap_or(ln),
            message,
        })?;
        fork.add(Resource {
            rtype,
            id,
            name,
            attributes,
            data,
        });
    }
    // Duplicates are a source error too.
    if let Err(e) = fork.to_bytes() {
        return Err(CompileError {
            line: 0,
            message: e.to_string(),
        });
    }
    Ok(fork)
}

type BodyResult = Result<Vec<u8>, (Option<usize>, String)>;

fn compile_body(rtype: &ResType, id: i16, body: &Body) -> BodyResult {
    let whole = |m: String| (None, m);
    macro_rules! each {
        (|$kw:ident, $a:ident| $blk:block) => {
            for (ln, toks) in &body.lines {
                let r: Result<(), String> = (|| {
                    let mut $a = Args { toks, pos: 0 };
                    let $kw = $a.word("a statement")?;
                    $blk
                    $a.end()
                })();
                r.map_err(|m| (Some(*ln), m))?;
            }
        };
    }
    match rtype {
        b"MENU" => {
            let mut title = None;
            let mut items = Vec::new();
            let mut enabled = true;
            let mut menu_id = id;
            each!(|kw, a| {
                match kw.as_str() {
                    "title" => {
                        title = Some(if a.peek_word() == Some("apple") {
                            a.pos += 1;
                            vec![0x14]
                        } else {
                            a.string("the menu title")?
                        })
                    }
                    "id" => menu_id = a.int("menu ID")?,
                    "disabled" => enabled = false,
                    "separator" => items.push(MenuItem {
                        text: b"-".to_vec(),
                        enabled: false,
                        ..Default::default()
                    }),
                    "item" => {
                        let mut it = MenuItem {
                            text: a.string("the item text")?,
                            enabled: true,
                            ..Default::default()
                        };
                        while !a.done() {
                            match a.word("an item option")?.as_str() {
                                "key" => it.key = a.char("the key")?,
                                "mark" => it.mark = a.char("the mark")?,
                                "icon" => it.icon = a.int("icon number")?,
                                "style" => it.style = a.int("style")?,
                                "disabled" => it.enabled = false,
                                o => return Err(format!("unknown item option `{o}`")),
                            }
                        }
                        items.push(it);
                    }
                    o => return Err(format!("unknown MENU statement `{o}`")),
                }
            });
            let title = title.ok_or_else(|| whole("MENU needs a `title`".into()))?;
            types::menu(menu_id, &title, &items, enabled).map_err(whole)
        }
        b"MBAR" => {
            let mut ids = Vec::new();
            each!(|kw, a| {
                if kw != "menus" {
                    return Err(format!("unknown MBAR statement `{kw}`"));
                }
                while !a.done() {
                    ids.push(a.int("menu ID")?);
                }
            });
            Ok(types::mbar(&ids))
        }
        b"WIND" | b"DLOG" => {
            let is_dlog = rtype == b"DLOG";
            let mut w = WindowTemplate {
                proc_id: if is_dlog { 1 } else { 0 },
                visible: true,
                ..Default::default()
            };
            let mut rect = false;
            let mut ditl = None;
            each!(|kw, a| {
                match kw.as_str() {
                    "rect" => {
                        w.bounds = a.rect()?;
                        rect = true;
                    }
                    "proc" => {
                        let p = a.word("a window definition")?;
                        w.proc_id = match types::proc_id_by_name(&p) {
                            Some(v) => v,
                            None => i16::try_from(number(&p)?)
                                .map_err(|_| "procID out of range".to_string())?,
                        };
                    }
                    "visible" => w.visible = true,
                    "invisible" => w.visible = false,
                    "goaway" => w.go_away = true,
                    "refcon" => w.refcon = a.int("refCon")?,
                    "title" => w.title = a.string("the title")?,
                    "position" => {
                        let p = a.word("a position")?;
                        w.position = Some(match types::position::by_name(&p) {
                            Some(v) => v,
                            None => u16::try_from(number(&p)?)
                                .map_err(|_| "position out of range".to_string())?,
                        });
                    }
                    "ditl" if is_dlog => ditl = Some(a.int("DITL ID")?),
                    o => {
                        return Err(format!(
                            "unknown {} statement `{o}`",
                            if is_dlog { "DLOG" } else { "WIND" }
                        ));
                    }
                }
            });
            if !rect {
                return Err(whole("a `rect` is required".into()));
            }
            if is_dlog {
                let d = ditl.ok_or_else(|| whole("DLOG needs `ditl ID`".into()))?;
                types::dlog(&w, d).map_err(whole)
            } else {
                types::wind(&w).map_err(whole)
            }
        }
        b"ALRT" => {
            let (mut rect, mut ditl, mut stages, mut position) = (None, None, 0x5555u16, None);
            each!(|kw, a| {
                match kw.as_str() {
                    "rect" => rect = Some(a.rect()?),
                    "ditl" => ditl = Some(a.int("DITL ID")?),
                    "stages" => stages = a.int("stages")?,
                    "position" => {
                        let p = a.word("a position")?;
                        position = Some(match types::position::by_name(&p) {
                            Some(v) => v,
                            None => u16::try_from(number(&p)?)
                                .map_err(|_| "position out of range".to_string())?,
                        });
                    }
                    o => return Err(format!("unknown ALRT statement `{o}`")),
                }
            });
            let rect = rect.ok_or_else(|| whole("ALRT needs a `rect`".into()))?;
            let ditl = ditl.ok_or_else(|| whole("ALRT needs `ditl ID`".into()))?;
            Ok(types::alrt(rect, ditl, stages, position))
        }
        b"DITL" => {
            let mut items = Vec::new();
            each!(|kw, a| {
                use types::item;
                let kind = match kw.as_str() {
                    "button" => item::BUTTON,
                    "checkbox" => item::CHECKBOX,
                    "radio" => item::RADIO,
                    "static" => item::STATIC_TEXT,
                    "edit" => item::EDIT_TEXT,
                    "user" => item::USER,
                    "icon" => item::ICON,
                    "picture" => item::PICTURE,
                    "control" => item::RES_CONTROL,
                    o => return Err(format!("unknown DITL item `{o}`")),
                };
                let rect = a.rect()?;
                let data = match kind {
                    item::USER => Vec::new(),
                    item::ICON | item::PICTURE | item::RES_CONTROL => {
                        a.int::<i16>("resource ID")?.to_be_bytes().to_vec()
                    }
                    _ => a.string("the item text")?,
                };
                let mut disabled = false;
                if a.peek_word() == Some("disabled") {
                    a.pos += 1;
                    disabled = true;
                }
                items.push(DialogItem {
                    rect,
                    kind,
                    disabled,
                    data,
                });
            });
            types::ditl(&items).map_err(whole)
        }
        b"STR#" | b"STR " => {
            let mut strings = Vec::new();
            each!(|kw, a| {
                if kw != "string" {
                    return Err(format!(
                        "unknown statement `{kw}` (expected `string \"…\"`)"
                    ));
                }
                strings.push(a.string("the string")?);
            });
            if rtype == b"STR " {
                let [s] = strings.as_slice() else {
                    return Err(whole("'STR ' holds exactly one `string`".into()));
                };
                let mut out = Vec::new();
                types::put_pstring(&mut out, s).map_err(whole)?;
                Ok(out)
            } else {
                types::str_list(&strings).map_err(whole)
            }
        }
        b"vers" => {
            let mut v = Vers {
                major: 0,
                minor: 0,
                bug: 0,
                stage: types::stage::RELEASE,
                prerelease: 0,
                region: 0,
                short: vec![],
                long: vec![],
            };
            each!(|kw, a| {
                match kw.as_str() {
                    "version" => {
                        let w = a.word("MAJOR.MINOR.BUG")?;
                        let parts: Vec<&str> = w.split('.').collect();
                        if parts.is_empty() || parts.len() > 3 {
                            return Err(format!("`{w}` is not MAJOR.MINOR.BUG"));
                        }
                        let n = |i: usize| -> Result<u8, String> {
                            parts.get(i).map_or(Ok(0), |p| {
                                p.parse().map_err(|_| format!("`{p}` is not a number"))
                            })
                        };
                        (v.major, v.minor, v.bug) = (n(0)?, n(1)?, n(2)?);
                    }
                    "stage" => {
                        v.stage = match a.word("a stage")?.as_str() {
                            "development" => types::stage::DEVELOPMENT,
                            "alpha" => types::stage::ALPHA,
                            "beta" => types::stage::BETA,
                            "release" => types::stage::RELEASE,
                            o => return Err(format!("unknown stage `{o}`")),
                        }
                    }
                    "prerelease" => v.prerelease = a.int("prerelease")?,
                    "region" => v.region = a.int("region")?,
                    "short" => v.short = a.string("the short version")?,
                    "long" => v.long = a.string("the long version")?,
                    o => return Err(format!("unknown vers statement `{o}`")),
                }
            });
            types::vers(&v).map_err(whole)
        }
        b"SIZE" => {
            let (mut flags, mut preferred, mut minimum) = (0u16, None, None);
            each!(|kw, a| {
                match kw.as_str() {
                    "flags" => {
                        while !a.done() {
                            let w = a.word("a flag")?;
                            flags |= match types::size_flags::by_name(&w) {
                                Some(f) => f,
                                None => u16::try_from(number(&w)?)
                                    .map_err(|_| "flags out of range".to_string())?,
                            };
                        }
                    }
                    "preferred" => preferred = Some(a.int("preferred size")?),
                    "minimum" => minimum = Some(a.int("minimum size")?),
                    o => return Err(format!("unknown SIZE statement `{o}`")),
                }
            });
            let p = preferred.ok_or_else(|| whole("SIZE needs `preferred`".into()))?;
            let m = minimum.ok_or_else(|| whole("SIZE needs `minimum`".into()))?;
            types::size(flags, p, m).map_err(whole)
        }
        b"BNDL" => {
            let mut sig = None;
            let mut groups: Vec<(ResType, Vec<(i16, i16)>)> = Vec::new();
            each!(|kw, a| {
                match kw.as_str() {
                    "signature" => {
                        let t = restype(&a.word("the signature")?)?;
                        let sid = if a.done() {
                            0
                        } else {
                            a.int("signature resource ID")?
                        };
                        sig = Some((t, sid));
                    }
                    "map" => {
                        let t = restype(&a.word("a type")?)?;
                        let pair = (a.int("local ID")?, a.int("resource ID")?);
                        match groups.iter_mut().find(|(g, _)| *g == t) {
                            Some((_, v)) => v.push(pair),
                            None => groups.push((t, vec![pair])),
                        }
                    }
                    o => return Err(format!("unknown BNDL statement `{o}`")),
                }
            });
            let (s, sid) = sig.ok_or_else(|| whole("BNDL needs `signature TYPE`".into()))?;
            types::bndl(s, sid, &groups).map_err(whole)
        }
        b"FREF" => {
            let (mut t, mut icon, mut name) = (None, 0i16, Vec::new());
            each!(|kw, a| {
                match kw.as_str() {
                    "type" => t = Some(restype(&a.word("a file type")?)?),
                    "icon" => icon = a.int("local icon ID")?,
                    "name" => name = a.string("the file name")?,
                    o => return Err(format!("unknown FREF statement `{o}`")),
                }
            });
            types::fref(
                t.ok_or_else(|| whole("FREF needs `type`".into()))?,
                icon,
                &name,
            )
            .map_err(whole)
        }
        b"ICN#" => {
            let (mut rows, mut masks) = (Vec::new(), Vec::new());
            each!(|kw, a| {
                let w = a.word("32 pixels")?;
                let bits = icon_row(&w)?;
                match kw.as_str() {
                    "row" => rows.push(bits),
                    "maskrow" => masks.push(bits),
                    o => return Err(format!("unknown ICN# statement `{o}`")),
                }
            });
            if rows.len() != 32 || !(masks.is_empty() || masks.len() == 32) {
                return Err(whole(format!(
                    "ICN# needs 32 `row` lines (has {}) and 0 or 32 `maskrow` lines (has {})",
                    rows.len(),
                    masks.len()
                )));
            }
            if masks.is_empty() {
                masks = rows
                    .iter()
                    .map(|&r: &u32| {
                        if r == 0 {
                            0
                        } else {
                            let hi = 31 - r.leading_zeros();
                            let lo = r.trailing_zeros();
                            (u32::MAX >> (31 - hi)) & (u32::MAX << lo)
                        }
                    })
                    .collect();
            }
            let pack = |v: &[u32]| -> [u8; 128] {
                v.iter()
                    .flat_map(|r| r.to_be_bytes())
                    .collect::<Vec<u8>>()
                    .try_into()
                    .unwrap()
            };
            Ok(types::icn(&pack(&rows), &pack(&masks)))
        }
        _ => {
            let mut out = Vec::new();
            each!(|kw, a| {
                match kw.as_str() {
                    "hex" => {
                        while !a.done() {
                            let w = a.word("hex bytes")?;
                            if w.len() % 2 != 0 {
                                return Err(format!("`{w}`: odd number of hex digits"));
                            }
                            for i in (0..w.len()).step_by(2) {
                                out.push(
                                    u8::from_str_radix(&w[i..i + 2], 16)
                                        .map_err(|_| format!("`{w}` is not hex"))?,
                                );
                            }
                        }
                    }
                    "pstring" => types::put_pstring(&mut out, &a.string("the string")?)?,
                    "text" => out.extend(a.string("the text")?),
                    o => {
                        return Err(format!(
                            "unknown statement `{o}` for '{}' (use hex/pstring/text)",
                            super::fork::show_type(rtype)
                        ));
                    }
                }
            });
            Ok(out)
        }
    }
}

fn icon_row(w: &str) -> Result<u32, String> {
    if w.chars().count() != 32 {
        return Err(format!(
            "an icon row has 32 pixels, `{w}` has {}",
            w.chars().count()
        ));
    }
    w.chars().try_fold(0u32, |acc, c| match c {
        '#' | 'X' => Ok(acc << 1 | 1),
        '.' => Ok(acc << 1),
        _ => Err(format!("pixel `{c}`: use `#` (black) or `.` (white)")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
; comment line
MENU 128 {
    title apple
    item "About…"
    separator
}
MENU 129 name "File" {
    title "File"
    item "Quit" key Q
}
MBAR 128 {
    menus 128 129
}
WIND 128 {
    rect 40 10 240 310
    title "Ferrite"
    goaway
}
DLOG 129 purgeable {
    rect 0x22 0x16 0x120 0x1BA
    goaway
    ditl 512
    position alertPositionMainScreen
}
ALRT 128 purgeable {
    rect 40 40 140 340
    ditl 128
}
DITL 128 purgeable {
    button 70 230 90 290 "OK"
    static 10 60 60 290 "Hi ^0" disabled
    icon 10 10 42 42 1
}
'STR#' 128 {
    string "one"
    string "©"
}
'STR ' 129 {
    string "x"
}
vers 1 {
    version 0.1.2
    stage beta
    prerelease 3
    short "0.1.2b3"
    long "0.1.2b3, © 2026"
}
SIZE -1 {
    flags is32BitCompatible canBackground
    preferred 1M
    minimum 512K
}
BNDL 128 {
    signature FRRT
    map ICN# 0 128
    map FREF 0 128
}
FREF 128 {
    type APPL
    icon 0
}
FRRT 0 {
    pstring "Ferrite Setup"
}
"#;

    #[test]
    fn compiles_every_type() {
        let f = compile(SAMPLE).unwrap();
        let g = |t: &[u8; 4], id| f.get(t, id).unwrap().data.clone();
        assert_eq!(
            g(b"MENU", 128),
            types::menu(
                128,
                b"\x14",
                &[
                    MenuItem {
                        text: b"About\xC9".to_vec(),
                        enabled: true,
                        ..Default::default()
                    },
                    MenuItem {
                        text: b"-".to_vec(),
                        ..Default::default()
                    }
                ],
                true
            )
            .unwrap()
        );
        assert_eq!(
            f.get(b"MENU", 129).unwrap().name.as_deref(),
            Some(&b"File"[..])
        );
        assert_eq!(&g(b"MENU", 129)[10..14], &[0, 0, 0, 3]);
        assert_eq!(g(b"MBAR", 128), vec![0, 2, 0, 128, 0, 129]);
        assert_eq!(g(b"WIND", 128)[8..14], [0, 0, 1, 0, 1, 0]);
        assert_eq!(f.get(b"DLOG", 129).unwrap().attributes, RES_PURGEABLE);
        assert_eq!(g(b"DLOG", 129).len(), 24);
        assert_eq!(
            g(b"ALRT", 128),
            vec![0, 40, 0, 40, 0, 140, 1, 84, 0, 128, 0x55, 0x55]
        );
        assert_eq!(g(b"DITL", 128)[0..2], [0, 2]);
        assert_eq!(g(b"STR#", 128), vec![0, 2, 3, b'o', b'n', b'e', 1, 0xA9]);
        assert_eq!(g(b"STR ", 129), vec![1, b'x']);
        assert_eq!(g(b"vers", 1)[0..4], [0x00, 0x12, 0x60, 3]);
        assert_eq!(
            g(b"SIZE", -1),
            vec![0x10, 0x80, 0, 0x10, 0, 0, 0, 0x08, 0, 0]
        );
        assert_eq!(g(b"BNDL", 128).len(), 4 + 2 + 2 + 2 * (4 + 2 + 4));
        assert_eq!(g(b"FREF", 128), b"APPL\0\0\0".to_vec());
        assert_eq!(g(b"FRRT", 0), b"\x0dFerrite Setup".to_vec());
    }

    #[test]
    fn icon_rows_and_default_mask() {
        let mut src = String::from("ICN# 128 {\n");
        for i in 0..32 {
            let row: String = (0..32)
                .map(|j| {
                    if i == 3 && ((4..=6).contains(&j) || j == 10) {
                        '#'
                    } else {
                        '.'
                    }
                })
                .collect();
            src += &format!("  row {row}\n");
        }
        src += "}\n";
        let f = compile(&src).unwrap();
        let d = &f.get(b"ICN#", 128).unwrap().data;
        assert_eq!(d.len(), 256);
        assert_eq!(&d[12..16], &[0x0E, 0x20, 0, 0]);
        assert_eq!(
            &d[128 + 12..128 + 16],
            &[0x0F, 0xE0, 0, 0],
            "mask spans pixels 4..=10"
        );
        assert!(d[..12].iter().all(|&b| b == 0));
    }

    #[test]
    fn errors_name_the_line() {
        let e = compile("MENU 128 {\n  item \"x\"\n}\n").unwrap_err();
        assert!(e.message.contains("title"), "{e}");
        let e = compile("MBAR 1 {\n  menus 1 x\n}\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = compile("MBAR 1 {\n  menus 1\n").unwrap_err();
        assert!(e.message.contains("closing"), "{e}");
        let e = compile("MBAR 1 {\n}\nMBAR 1 {\n}\n").unwrap_err();
        assert!(e.message.contains("two resources"), "{e}");
        let e = compile("'STR ' 1 {\n string \"€\"\n}\n").unwrap_err();
        assert!(e.message.contains("Mac Roman"), "{e}");
        let e = compile("SIZE -1 {\n flags bogus\n preferred 1\n minimum 1\n}\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
    }
}
