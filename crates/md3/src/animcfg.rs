//! `animation.cfg`: a zero-copy parser following `CG_ParseAnimationFile` (ioq3 cgame;
//! docs/game-data.md §6.1–6.3). The numeric entries are exposed raw; the Quake III
//! interpretation (entry order, leg-frame adjustment, Team Arena fill) is a separate,
//! named step, [`AnimationCfg::q3`], because not every `animation.cfg` is Quake III's.

use core::fmt;

use idmodel_core::Name;
use idmodel_core::findings::{Engine, Found, Severity};

use crate::text::{LineCounter, TextError, TextErrorKind, Token, Tokenizer, WordEnd};

/// The engine reads the file into a 20000-byte buffer and refuses 19999 bytes or more.
pub const MAX_FILE_LEN: usize = 19998;
/// `MAX_ANIMATIONS`: entries read from the file.
pub const MAX_ANIMATIONS: usize = 31;
/// Entries that must be present and complete (BOTH_DEATH1 … LEGS_TURN).
pub const REQUIRED_ANIMATIONS: usize = 25;
/// `MAX_TOTALANIMATIONS`: file entries plus the derived ones.
pub const MAX_TOTAL_ANIMATIONS: usize = 37;

macro_rules! anims {
    ($($id:ident = $name:literal,)*) => {
        /// `animNumber_t` (bg_public.h), in file order, then the derived entries.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(non_camel_case_types)] // the engine's names, so they can be searched for
        pub enum AnimId { $(#[doc = $name] $id,)* }

        impl AnimId {
            /// Every animation, in `animNumber_t` order.
            pub const ALL: [AnimId; 36] = [$(AnimId::$id,)*];
            const NAMES: [&'static str; 36] = [$($name,)*];
        }
    };
}

anims! {
    BOTH_DEATH1 = "BOTH_DEATH1", BOTH_DEAD1 = "BOTH_DEAD1", BOTH_DEATH2 = "BOTH_DEATH2",
    BOTH_DEAD2 = "BOTH_DEAD2", BOTH_DEATH3 = "BOTH_DEATH3", BOTH_DEAD3 = "BOTH_DEAD3",
    TORSO_GESTURE = "TORSO_GESTURE", TORSO_ATTACK = "TORSO_ATTACK",
    TORSO_ATTACK2 = "TORSO_ATTACK2", TORSO_DROP = "TORSO_DROP", TORSO_RAISE = "TORSO_RAISE",
    TORSO_STAND = "TORSO_STAND", TORSO_STAND2 = "TORSO_STAND2",
    LEGS_WALKCR = "LEGS_WALKCR", LEGS_WALK = "LEGS_WALK", LEGS_RUN = "LEGS_RUN",
    LEGS_BACK = "LEGS_BACK", LEGS_SWIM = "LEGS_SWIM", LEGS_JUMP = "LEGS_JUMP",
    LEGS_LAND = "LEGS_LAND", LEGS_JUMPB = "LEGS_JUMPB", LEGS_LANDB = "LEGS_LANDB",
    LEGS_IDLE = "LEGS_IDLE", LEGS_IDLECR = "LEGS_IDLECR", LEGS_TURN = "LEGS_TURN",
    TORSO_GETFLAG = "TORSO_GETFLAG", TORSO_GUARDBASE = "TORSO_GUARDBASE",
    TORSO_PATROL = "TORSO_PATROL", TORSO_FOLLOWME = "TORSO_FOLLOWME",
    TORSO_AFFIRMATIVE = "TORSO_AFFIRMATIVE", TORSO_NEGATIVE = "TORSO_NEGATIVE",
    LEGS_BACKCR = "LEGS_BACKCR", LEGS_BACKWALK = "LEGS_BACKWALK",
    FLAG_RUN = "FLAG_RUN", FLAG_STAND = "FLAG_STAND", FLAG_STAND2RUN = "FLAG_STAND2RUN",
}

/// Which model an animation plays on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyPart {
    /// lower.md3 and upper.md3 (BOTH_*).
    Both,
    /// upper.md3.
    Torso,
    /// lower.md3.
    Legs,
    /// The Team Arena flag model.
    Flag,
}

impl AnimId {
    /// The engine's name, e.g. `"LEGS_WALKCR"`.
    pub fn name(self) -> &'static str {
        // NAMES has no slot for MAX_ANIMATIONS: look up by position in ALL, not index().
        let i = Self::ALL.iter().position(|&a| a == self).unwrap_or(0);
        Self::NAMES.get(i).copied().unwrap_or("")
    }

    /// The `animNumber_t` value (31 is `MAX_ANIMATIONS` itself, so the derived entries
    /// are 32 to 36).
    pub fn index(self) -> usize {
        let i = Self::ALL.iter().position(|&a| a == self).unwrap_or(0);
        if i >= MAX_ANIMATIONS {
            i.saturating_add(1)
        } else {
            i
        }
    }

    /// The animation named `name` (exact, as the engine spells it).
    pub fn from_name(name: &str) -> Option<Self> {
        let i = Self::NAMES.iter().position(|&n| n == name)?;
        Self::ALL.get(i).copied()
    }

    /// The model this animation plays on.
    pub fn body_part(self) -> BodyPart {
        let i = self.index();
        match i {
            0..=5 => BodyPart::Both,
            6..=12 | 25..=30 => BodyPart::Torso,
            34..=36 => BodyPart::Flag,
            _ => BodyPart::Legs,
        }
    }
}

/// `footstep_t` values `animation.cfg` can select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Footsteps {
    /// `default` or `normal`.
    #[default]
    Normal,
    /// `boot`.
    Boot,
    /// `flesh`.
    Flesh,
    /// `mech`.
    Mech,
    /// `energy`.
    Energy,
}

/// `gender_t`, from `sex`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Gender {
    /// Anything not starting with `f` or `n`.
    #[default]
    Male,
    /// `f…`/`F…`.
    Female,
    /// `n…`/`N…`.
    Neuter,
}

/// C's `atoi` (glibc: `strtol` saturating to 64 bits, then truncated to `int`).
pub fn atoi(s: &[u8]) -> i32 {
    let s = trim_start(s);
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, s.get(1..).unwrap_or(&[])),
        Some(b'+') => (false, s.get(1..).unwrap_or(&[])),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for &b in digits.iter().take_while(|b| b.is_ascii_digit()) {
        let d = i64::from(b.wrapping_sub(b'0'));
        v = if neg {
            v.saturating_mul(10).saturating_sub(d)
        } else {
            v.saturating_mul(10).saturating_add(d)
        };
    }
    let [a, b, c, d, ..] = v.to_le_bytes();
    i32::from_le_bytes([a, b, c, d])
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        .count();
    s.get(n..).unwrap_or(&[])
}

/// C's `atof` for decimal input: the longest prefix `[+-]digits[.digits][e[+-]digits]`
/// (or `inf`/`infinity`/`nan`), correctly rounded; anything else gives 0. Hexadecimal
/// floats are not supported (they give 0).
pub fn atof(s: &[u8]) -> f64 {
    let s = trim_start(s);
    let mut i = 0usize;
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    if matches!(at(i), b'+' | b'-') {
        i = i.saturating_add(1);
    }
    let word = s.get(i..).unwrap_or(&[]);
    let starts = |w: &[u8]| {
        word.len() >= w.len()
            && word
                .get(..w.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(w))
    };
    let neg = at(0) == b'-';
    if starts(b"inf") {
        return if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if starts(b"nan") {
        return f64::NAN;
    }
    let digits_from = |mut i: usize| {
        while at(i).is_ascii_digit() {
            i = i.saturating_add(1);
        }
        i
    };
    let int_end = digits_from(i);
    let mut end = int_end;
    let mut mantissa = int_end > i;
    if at(end) == b'.' {
        let frac_end = digits_from(end.saturating_add(1));
        mantissa |= frac_end > end.saturating_add(1);
        end = frac_end;
    }
    if !mantissa {
        return 0.0;
    }
    if matches!(at(end), b'e' | b'E') {
        let mut j = end.saturating_add(1);
        if matches!(at(j), b'+' | b'-') {
            j = j.saturating_add(1);
        }
        let exp_end = digits_from(j);
        if exp_end > j {
            end = exp_end;
        }
    }
    s.get(..end)
        .and_then(|p| core::str::from_utf8(p).ok())
        .and_then(|p| p.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// `(int)(1000 / fps)` in f32 as x86 computes it (out of range or NaN → `i32::MIN`).
#[allow(clippy::as_conversions)] // float → int truncation is the engine's operation
fn frame_lerp(fps: f32) -> i32 {
    let v = 1000.0f32 / fps;
    if v > -2_147_483_649.0 && v < 2_147_483_648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

#[allow(clippy::as_conversions)] // C's double → float narrowing of atof's result
fn to_f32(v: f64) -> f32 {
    v as f32
}

/// One numeric entry as written: `firstFrame numFrames loopFrames fps`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawAnim {
    /// `atoi` of the first token.
    pub first_frame: i32,
    /// `atoi` of the second (negative means reversed under Quake III rules).
    pub num_frames: i32,
    /// `atoi` of the third.
    pub loop_frames: i32,
    /// `atof` of the fourth, narrowed to f32 as the engine stores it.
    pub fps: f32,
    /// 1-based line of the first token.
    pub line: u32,
}

/// An animation as the game holds it (`animation_t`, after the Quake III rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Animation {
    /// First frame, in the model the animation plays on (legs adjusted).
    pub first_frame: i32,
    /// Frame count (absolute value of the file's).
    pub num_frames: i32,
    /// Frames looped at the end (0: hold the last frame).
    pub loop_frames: i32,
    /// Milliseconds per frame: `(int)(1000 / fps)`, fps 0 read as 1.
    pub frame_lerp: i32,
    /// Milliseconds to the first frame (same as `frame_lerp`).
    pub initial_lerp: i32,
    /// Played backwards.
    pub reversed: bool,
    /// Ping-pong (never set in stock Quake III).
    pub flipflop: bool,
}

/// What the keyword section produced (`footsteps`, `headoffset`, `sex`, `fixedlegs`,
/// `fixedtorso`), plus where the numbers start.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Keywords {
    footsteps: Footsteps,
    head_offset: [f32; 3],
    gender: Gender,
    fixed_legs: bool,
    fixed_torso: bool,
    /// Byte offset where the animation entries start (the unget position).
    entries_at: usize,
    /// The section ended at a token starting with a digit (otherwise Quake III 1.32's
    /// keyword loop never ends).
    numbers_found: bool,
}

#[derive(Debug, Clone, Copy)]
enum KeywordEvent<'a> {
    Unknown(Token<'a>),
    BadFootsteps(Token<'a>),
}

fn keywords<'a>(
    text: &'a [u8],
    on: &mut dyn FnMut(KeywordEvent<'a>),
) -> Result<Keywords, TextError> {
    let mut k = Keywords {
        footsteps: Footsteps::Normal,
        head_offset: [0.0; 3],
        gender: Gender::Male,
        fixed_legs: false,
        fixed_torso: false,
        entries_at: text.len(),
        numbers_found: false,
    };
    let mut lex = Tokenizer::new(text, 0, WordEnd::Space);
    loop {
        let prev = lex.pos;
        let tok = lex.next()?;
        let t = tok.bytes;
        if t.is_empty() {
            k.entries_at = lex.pos;
            break;
        }
        if t.eq_ignore_ascii_case(b"footsteps") {
            let v = lex.next()?;
            if v.bytes.is_empty() {
                k.entries_at = lex.pos;
                break;
            }
            let b = v.bytes;
            if b.eq_ignore_ascii_case(b"default") || b.eq_ignore_ascii_case(b"normal") {
                k.footsteps = Footsteps::Normal;
            } else if b.eq_ignore_ascii_case(b"boot") {
                k.footsteps = Footsteps::Boot;
            } else if b.eq_ignore_ascii_case(b"flesh") {
                k.footsteps = Footsteps::Flesh;
            } else if b.eq_ignore_ascii_case(b"mech") {
                k.footsteps = Footsteps::Mech;
            } else if b.eq_ignore_ascii_case(b"energy") {
                k.footsteps = Footsteps::Energy;
            } else {
                on(KeywordEvent::BadFootsteps(v));
            }
        } else if t.eq_ignore_ascii_case(b"headoffset") {
            for o in &mut k.head_offset {
                let v = lex.next()?;
                if v.bytes.is_empty() {
                    break;
                }
                *o = to_f32(atof(v.bytes));
            }
        } else if t.eq_ignore_ascii_case(b"sex") {
            let v = lex.next()?;
            if v.bytes.is_empty() {
                k.entries_at = lex.pos;
                break;
            }
            k.gender = match v.bytes.first() {
                Some(b'f' | b'F') => Gender::Female,
                Some(b'n' | b'N') => Gender::Neuter,
                _ => Gender::Male,
            };
        } else if t.eq_ignore_ascii_case(b"fixedlegs") {
            k.fixed_legs = true;
        } else if t.eq_ignore_ascii_case(b"fixedtorso") {
            k.fixed_torso = true;
        } else if t.first().is_some_and(u8::is_ascii_digit) {
            k.entries_at = prev;
            k.numbers_found = true;
            break;
        } else {
            on(KeywordEvent::Unknown(tok));
        }
    }
    Ok(k)
}

/// A parsed `animation.cfg`.
///
/// ```
/// use idmodel_md3::{AnimationCfg, AnimId, Gender};
/// let mut text = String::from("sex f\nheadoffset -8 0 -1\n");
/// for i in 0..25 { text += &format!("{} 5 5 10\n", i * 10); }
/// let cfg = AnimationCfg::parse(text.as_bytes())?;
/// assert_eq!(cfg.gender(), Gender::Female);
/// assert_eq!(cfg.raw_entries().count(), 25);
/// let q3 = cfg.q3()?;
/// // Legs frames skip the torso-only frames: LEGS_WALKCR is written 130, used as 60.
/// assert_eq!(q3.get(AnimId::LEGS_WALKCR).first_frame, 60);
/// assert_eq!(q3.by_name("TORSO_GETFLAG"), Some(q3.get(AnimId::TORSO_GESTURE)).copied().as_ref());
/// # Ok::<(), idmodel_md3::TextError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimationCfg<'a> {
    text: &'a [u8],
    kw: Keywords,
}

impl<'a> AnimationCfg<'a> {
    /// Parses the keyword section and checks the whole token stream. The text ends at
    /// its first NUL. The only error is a `"` string that never closes.
    pub fn parse(text: &'a [u8]) -> Result<Self, TextError> {
        let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
        let text = text.get(..end).unwrap_or(text);
        let kw = keywords(text, &mut |_| {})?;
        // Walk the rest once so later iteration cannot meet a lexer error.
        let mut lex = Tokenizer::new(text, kw.entries_at, WordEnd::Space);
        while !lex.next()?.bytes.is_empty() {}
        Ok(Self { text, kw })
    }

    /// The text (up to the first NUL).
    pub fn text(&self) -> &'a [u8] {
        self.text
    }

    /// `footsteps` (default [`Footsteps::Normal`]; a bad value keeps the previous one).
    pub fn footsteps(&self) -> Footsteps {
        self.kw.footsteps
    }

    /// `headoffset` (only used for the HUD head icon).
    pub fn head_offset(&self) -> [f32; 3] {
        self.kw.head_offset
    }

    /// `sex`.
    pub fn gender(&self) -> Gender {
        self.kw.gender
    }

    /// `fixedlegs`.
    pub fn fixed_legs(&self) -> bool {
        self.kw.fixed_legs
    }

    /// `fixedtorso`.
    pub fn fixed_torso(&self) -> bool {
        self.kw.fixed_torso
    }

    /// Every complete 4-number entry after the keywords, in file order, whatever the
    /// game (Quake III, Tremulous, …). An incomplete last entry is not yielded.
    pub fn raw_entries(&self) -> RawAnims<'a> {
        RawAnims {
            lex: Tokenizer::new(self.text, self.kw.entries_at, WordEnd::Space),
            lines: LineCounter::default(),
        }
    }

    /// The Quake III interpretation (`CG_ParseAnimationFile`, ioq3 cgame): 25 to 31
    /// entries in `animNumber_t` order, the legs adjustment
    /// (`skip = LEGS_WALKCR.first − TORSO_GESTURE.first`, subtracted from LEGS_WALKCR …
    /// LEGS_TURN), negative counts reversed, fps 0 read as 1, missing Team Arena
    /// entries copied from TORSO_GESTURE, then LEGS_BACKCR, LEGS_BACKWALK and the flag
    /// constants. Fails as the engine does ("Error parsing animation file") when
    /// fewer than 25 entries are complete, and on files the engine will not read.
    pub fn q3(&self) -> Result<Q3Animations, TextError> {
        if self.text.is_empty() {
            return Err(TextError::at(TextErrorKind::Empty, self.text, 0));
        }
        if self.text.len() > MAX_FILE_LEN {
            let kind = TextErrorKind::TooLong {
                len: self.text.len(),
                max: MAX_FILE_LEN,
            };
            return Err(TextError::at(kind, self.text, MAX_FILE_LEN));
        }
        let mut a = [Animation::default(); MAX_TOTAL_ANIMATIONS];
        let mut lex = Tokenizer::new(self.text, self.kw.entries_at, WordEnd::Space);
        let gesture = AnimId::TORSO_GESTURE.index();
        let walkcr = AnimId::LEGS_WALKCR.index();
        let getflag = AnimId::TORSO_GETFLAG.index();
        let mut skip = 0i32;
        let mut from_file = 0usize;
        // Reported at the first token of the incomplete entry (or at the end of the text).
        let fail = |at: usize, complete| {
            let kind = TextErrorKind::MissingAnimations {
                complete,
                needed: REQUIRED_ANIMATIONS,
            };
            TextError::at(kind, self.text, at)
        };
        for i in 0..MAX_ANIMATIONS {
            let tok = lex.next()?;
            if tok.bytes.is_empty() {
                if (getflag..MAX_ANIMATIONS).contains(&i) {
                    let g = a.get(gesture).copied().unwrap_or_default();
                    if let Some(slot) = a.get_mut(i) {
                        *slot = Animation {
                            reversed: false,
                            flipflop: false,
                            ..g
                        };
                    }
                    continue;
                }
                return Err(fail(lex.pos, i));
            }
            let mut first = atoi(tok.bytes);
            if i == walkcr {
                let g = a.get(gesture).map_or(0, |g| g.first_frame);
                skip = first.wrapping_sub(g);
            }
            if (walkcr..getflag).contains(&i) {
                first = first.wrapping_sub(skip);
            }
            let mut fields = [0i32; 2];
            for f in &mut fields {
                let t = lex.next()?;
                if t.bytes.is_empty() {
                    return Err(fail(tok.start, i));
                }
                *f = atoi(t.bytes);
            }
            let t = lex.next()?;
            if t.bytes.is_empty() {
                return Err(fail(tok.start, i));
            }
            let mut fps = to_f32(atof(t.bytes));
            if fps == 0.0 {
                fps = 1.0;
            }
            let [num, looping] = fields;
            let lerp = frame_lerp(fps);
            if let Some(slot) = a.get_mut(i) {
                *slot = Animation {
                    first_frame: first,
                    num_frames: num.wrapping_abs(),
                    loop_frames: looping,
                    frame_lerp: lerp,
                    initial_lerp: lerp,
                    reversed: num < 0,
                    flipflop: false,
                };
            }
            from_file = i.saturating_add(1);
        }
        let get = |id: AnimId| a.get(id.index()).copied().unwrap_or_default();
        let backcr = Animation {
            reversed: true,
            ..get(AnimId::LEGS_WALKCR)
        };
        let backwalk = Animation {
            reversed: true,
            ..get(AnimId::LEGS_WALK)
        };
        let derived = [
            (AnimId::LEGS_BACKCR, backcr),
            (AnimId::LEGS_BACKWALK, backwalk),
            (
                AnimId::FLAG_RUN,
                Animation {
                    first_frame: 0,
                    num_frames: 16,
                    loop_frames: 16,
                    frame_lerp: 66,
                    initial_lerp: 66,
                    reversed: false,
                    flipflop: false,
                },
            ),
            (
                AnimId::FLAG_STAND,
                Animation {
                    first_frame: 16,
                    num_frames: 5,
                    loop_frames: 0,
                    frame_lerp: 50,
                    initial_lerp: 50,
                    reversed: false,
                    flipflop: false,
                },
            ),
            (
                AnimId::FLAG_STAND2RUN,
                Animation {
                    first_frame: 16,
                    num_frames: 5,
                    loop_frames: 1,
                    frame_lerp: 66,
                    initial_lerp: 66,
                    reversed: true,
                    flipflop: false,
                },
            ),
        ];
        for (id, anim) in derived {
            if let Some(slot) = a.get_mut(id.index()) {
                *slot = anim;
            }
        }
        Ok(Q3Animations {
            anims: a,
            from_file,
            skip,
        })
    }

    /// Reports what the Quake III game code does with this file: unknown keywords, bad
    /// `footsteps` values, entries that fail, and (given the frame counts of lower.md3
    /// and upper.md3) animations that run past a model's frames; nothing for an engine
    /// that does not load MD3 (one not in [`ENGINES`](crate::ENGINES)).
    pub fn check(
        &self,
        frames: Option<(usize, usize)>,
        engine: Engine,
        sink: &mut dyn FnMut(AnimFinding<'a>),
    ) {
        if !crate::ENGINES.contains(&engine) {
            return;
        }
        let text = self.text;
        let mut lines = LineCounter::default();
        let mut emit = |kind, severity| sink(AnimFinding::new(kind, severity, engine));
        let _ = keywords(text, &mut |e| {
            let (kind, tok) = match e {
                KeywordEvent::Unknown(t) => (0, t),
                KeywordEvent::BadFootsteps(t) => (1, t),
            };
            let line = lines.line_at(text, tok.start);
            let kind = if kind == 0 {
                AnimFindingKind::UnknownToken {
                    line,
                    token: tok.bytes,
                }
            } else {
                AnimFindingKind::BadFootsteps {
                    line,
                    token: tok.bytes,
                }
            };
            emit(kind, Severity::Warning);
        });
        if engine == Engine::Quake3 && !self.kw.numbers_found && !self.text.is_empty() {
            emit(AnimFindingKind::VanillaHang, Severity::Hazard);
        }
        let q3 = match self.q3() {
            Ok(q) => q,
            Err(e) => {
                emit(AnimFindingKind::Refused(e), Severity::Refused);
                return;
            }
        };
        for (id, anim) in q3.iter().filter(|(id, _)| id.index() < MAX_ANIMATIONS) {
            if anim.frame_lerp <= 0 {
                emit(AnimFindingKind::Frozen { anim: id }, Severity::Hazard);
            }
            let Some((lower, upper)) = frames else {
                continue;
            };
            let last = i64::from(anim.first_frame)
                .saturating_add(i64::from(anim.num_frames))
                .saturating_sub(1);
            let models: &[(usize, &'static str)] = match id.body_part() {
                BodyPart::Both => &[(lower, "lower"), (upper, "upper")],
                BodyPart::Torso => &[(upper, "upper")],
                BodyPart::Legs => &[(lower, "lower")],
                BodyPart::Flag => &[],
            };
            for &(n, model) in models {
                let n64 = i64::try_from(n).unwrap_or(i64::MAX);
                if anim.num_frames > 0 && (i64::from(anim.first_frame) < 0 || last >= n64) {
                    let kind = AnimFindingKind::FramesOutOfRange {
                        anim: id,
                        model,
                        last,
                        frames: n,
                    };
                    emit(kind, Severity::Hazard);
                }
            }
        }
    }

    /// [`check`](Self::check) collected into a `Vec`.
    #[cfg(feature = "alloc")]
    pub fn findings(
        &self,
        frames: Option<(usize, usize)>,
        engine: Engine,
    ) -> alloc::vec::Vec<AnimFinding<'a>> {
        let mut out = alloc::vec::Vec::new();
        self.check(frames, engine, &mut |f| out.push(f));
        out
    }
}

/// The raw entries of an [`AnimationCfg`] (from [`AnimationCfg::raw_entries`]).
#[derive(Debug, Clone)]
pub struct RawAnims<'a> {
    lex: Tokenizer<'a>,
    lines: LineCounter,
}

impl Iterator for RawAnims<'_> {
    type Item = RawAnim;

    fn next(&mut self) -> Option<RawAnim> {
        let mut toks = [Token::EMPTY; 4];
        for t in &mut toks {
            // `parse` walked these tokens without error.
            let tok = self.lex.next().ok()?;
            if tok.bytes.is_empty() {
                return None;
            }
            *t = tok;
        }
        let [a, b, c, d] = toks;
        Some(RawAnim {
            first_frame: atoi(a.bytes),
            num_frames: atoi(b.bytes),
            loop_frames: atoi(c.bytes),
            fps: to_f32(atof(d.bytes)),
            line: self.lines.line_at(self.lex.text, a.start),
        })
    }
}

impl core::iter::FusedIterator for RawAnims<'_> {}

/// The animations as the Quake III game holds them ([`AnimationCfg::q3`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Q3Animations {
    anims: [Animation; MAX_TOTAL_ANIMATIONS],
    from_file: usize,
    skip: i32,
}

impl Q3Animations {
    /// One animation.
    pub fn get(&self, id: AnimId) -> &Animation {
        const DEFAULT: Animation = Animation {
            first_frame: 0,
            num_frames: 0,
            loop_frames: 0,
            frame_lerp: 0,
            initial_lerp: 0,
            reversed: false,
            flipflop: false,
        };
        self.anims.get(id.index()).unwrap_or(&DEFAULT)
    }

    /// The animation called `name` (the engine's spelling, e.g. `"LEGS_IDLE"`).
    pub fn by_name(&self, name: &str) -> Option<&Animation> {
        AnimId::from_name(name).map(|id| self.get(id))
    }

    /// Every animation with its id (36: the 31 file entries and the 5 derived ones).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (AnimId, &Animation)> + '_ {
        AnimId::ALL.iter().map(move |&id| (id, self.get(id)))
    }

    /// How many entries came from the file (25 to 31); the rest of the first 31 were
    /// copied from TORSO_GESTURE.
    pub fn from_file(&self) -> usize {
        self.from_file
    }

    /// The legs adjustment subtracted from LEGS_WALKCR … LEGS_TURN.
    pub fn legs_skip(&self) -> i32 {
        self.skip
    }
}

/// What an `animation.cfg` finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnimFindingKind<'a> {
    /// A token the keyword section does not know ("unknown token"); dropped.
    UnknownToken {
        /// 1-based line.
        line: u32,
        /// The token.
        token: &'a [u8],
    },
    /// A `footsteps` value the game does not accept ("Bad footsteps parm").
    BadFootsteps {
        /// 1-based line.
        line: u32,
        /// The value.
        token: &'a [u8],
    },
    /// The game refuses the file (the player falls back to the default model).
    Refused(TextError),
    /// No token starts with a digit: Quake III 1.32's keyword loop tests for a NULL token
    /// that never comes and loops forever (ioq3 stops and refuses the file).
    VanillaHang,
    /// fps above 1000 (or negative): frameLerp ≤ 0 and the animation never advances.
    Frozen {
        /// The animation.
        anim: AnimId,
    },
    /// An animation's frames run outside the model it plays on.
    FramesOutOfRange {
        /// The animation.
        anim: AnimId,
        /// `"lower"` or `"upper"`.
        model: &'static str,
        /// Its last frame.
        last: i64,
        /// The model's frame count.
        frames: usize,
    },
}

idmodel_core::finding_kind!(AnimFindingKind<'_>, write_anim_message, {
    UnknownToken => "unknown-token",
    BadFootsteps => "bad-footsteps",
    Refused => "refused",
    VanillaHang => "vanilla-hang",
    Frozen => "frozen",
    FramesOutOfRange => "frames-out-of-range",
});

/// One thing the game would do with an `animation.cfg`.
pub type AnimFinding<'a> = Found<AnimFindingKind<'a>>;

fn write_anim_message(
    found: &Found<AnimFindingKind<'_>>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    match found.kind {
        AnimFindingKind::UnknownToken { line, token } => write!(
            f,
            "line {line}: unknown token '{}' is skipped; a number after it would start the animations early",
            Name::from_field(token)
        ),
        AnimFindingKind::BadFootsteps { line, token } => write!(
            f,
            "line {line}: bad footsteps value '{}' (use default, normal, boot, flesh, mech or energy)",
            Name::from_field(token)
        ),
        AnimFindingKind::Refused(e) => {
            write!(f, "{e}; the player falls back to the default model")
        }
        AnimFindingKind::VanillaHang => {
            f.write_str("no animation numbers: Quake III 1.32 loops forever reading the keywords")
        }
        AnimFindingKind::Frozen { anim } => write!(
            f,
            "{}: its fps gives a frame time of 0 ms or less, so it never advances",
            anim.name()
        ),
        AnimFindingKind::FramesOutOfRange {
            anim,
            model,
            last,
            frames,
        } => write!(
            f,
            "{} runs to frame {last} but {model}.md3 has {frames} frames; the renderer shows frame 0 instead",
            anim.name()
        ),
    }
}
