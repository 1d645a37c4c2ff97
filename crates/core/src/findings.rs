//! One vocabulary for engine findings, shared by every format crate.
//!
//! The parsers refuse only what cannot be read safely; what an engine would do with a
//! file that parsed (refuse it, read out of bounds, misrender, or nothing) is reported by
//! each format's `check(engine, sink)` as findings. This module holds what those findings
//! have in common:
//!
//! * [`Severity`]: how bad a finding is, ordered `Warning < Hazard < Refused`.
//! * [`Engine`]: the seven engines idmodel knows, with the names the CLI uses and the
//!   formats each loads.
//! * [`Finding`]: the trait every format's finding type implements (its severity, its
//!   engine, a stable code and its message), so tools handle all formats alike.
//! * [`display`]: the one `Display` shape of a finding, `engine: severity: message`.
//! * [`first`]: the first `N` findings of a check in a [`heapless::Vec`], for callers
//!   without an allocator.
//!
//! ## Engines a format does not load
//!
//! Every format crate lists the engines that load it (`idmodel_mdl::ENGINES`, …; the same
//! as [`Engine::for_format`]). Its `check(engine, sink)` reports **nothing** for any other
//! engine (and its `findings(engine)` is empty): a Quake II check of an MDL has nothing to
//! say. Callers that must tell "clean" from "not applicable" ask [`Engine::loads`] first,
//! as the `idmodel check --engine` command does.

use core::fmt;

use crate::detect::Format;

/// How bad a finding is for the engine it is about.
///
/// The order is by harm: `Warning < Hazard < Refused`, so the worst of several findings
/// is their `max()`.
///
/// ```
/// use idmodel_core::Severity;
/// assert!(Severity::Warning < Severity::Hazard && Severity::Hazard < Severity::Refused);
/// assert_eq!(Severity::Hazard.to_string(), "hazard");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Odd but harmless.
    Warning,
    /// The engine loads it, but reads or writes out of bounds, crashes or misrenders.
    Hazard,
    /// The engine would not load it.
    Refused,
}

impl Severity {
    /// Every severity, mildest first.
    pub const ALL: &'static [Severity] = &[Severity::Warning, Severity::Hazard, Severity::Refused];

    /// The lowercase name (`warning`, `hazard`, `refused`), as `Display` writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Hazard => "hazard",
            Severity::Refused => "refused",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An engine whose loader and renderer the findings describe.
///
/// ```
/// use idmodel_core::{Engine, detect::Format};
/// assert_eq!(Engine::from_name("glquake"), Some(Engine::GlQuake));
/// assert_eq!(Engine::GlQuake.to_string(), "glquake");
/// assert_eq!(Engine::GlQuake.display_name(), "GLQuake");
/// assert!(Engine::GlQuake.loads(Format::Mdl) && !Engine::GlQuake.loads(Format::Md2));
/// let md3: Vec<&str> = Engine::for_format(Format::Md3).map(Engine::name).collect();
/// assert_eq!(md3, ["quake3", "ioq3"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Engine {
    /// id's software-rendered Quake (WinQuake `model.c`, `r_alias.c`, `d_polyse.c`).
    WinQuake,
    /// id's GLQuake (`gl_model.c`, `gl_mesh.c`, `gl_rmain.c`).
    GlQuake,
    /// QuakeSpasm (the base of most modern GL ports of Quake).
    QuakeSpasm,
    /// id's Quake II (`ref_gl` and `ref_soft` share the loader; `ref_gl` draws the GL
    /// commands, `ref_soft` the triangles + st).
    Quake2,
    /// Quake III Arena 1.32 (id's GPL release).
    Quake3,
    /// ioquake3 (renderergl1 and renderergl2 agree on MD3 loading).
    Ioq3,
    /// Doom 3 (and dhewm3, whose MD5 parsing is identical).
    Doom3,
}

impl Engine {
    /// Every engine, in the order the CLI lists them.
    pub const ALL: &'static [Engine] = &[
        Engine::WinQuake,
        Engine::GlQuake,
        Engine::QuakeSpasm,
        Engine::Quake2,
        Engine::Quake3,
        Engine::Ioq3,
        Engine::Doom3,
    ];

    /// The lowercase name the CLI uses (`winquake`, `glquake`, `quakespasm`, `quake2`,
    /// `quake3`, `ioq3`, `doom3`), as `Display` writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Engine::WinQuake => "winquake",
            Engine::GlQuake => "glquake",
            Engine::QuakeSpasm => "quakespasm",
            Engine::Quake2 => "quake2",
            Engine::Quake3 => "quake3",
            Engine::Ioq3 => "ioq3",
            Engine::Doom3 => "doom3",
        }
    }

    /// The engine called `name` (as [`Engine::name`] spells it), if any.
    pub fn from_name(name: &str) -> Option<Engine> {
        Engine::ALL.iter().copied().find(|e| e.name() == name)
    }

    /// The engine's name as its makers write it, for messages (`WinQuake`, `GLQuake`,
    /// `QuakeSpasm`, `Quake II`, `Quake III 1.32`, `ioquake3`, `Doom 3`).
    pub const fn display_name(self) -> &'static str {
        match self {
            Engine::WinQuake => "WinQuake",
            Engine::GlQuake => "GLQuake",
            Engine::QuakeSpasm => "QuakeSpasm",
            Engine::Quake2 => "Quake II",
            Engine::Quake3 => "Quake III 1.32",
            Engine::Ioq3 => "ioquake3",
            Engine::Doom3 => "Doom 3",
        }
    }

    /// The formats this engine loads (and so checks).
    pub const fn formats(self) -> &'static [Format] {
        match self {
            Engine::WinQuake | Engine::GlQuake | Engine::QuakeSpasm => &[Format::Mdl],
            Engine::Quake2 => &[Format::Md2],
            Engine::Quake3 | Engine::Ioq3 => &[Format::Md3],
            Engine::Doom3 => &[Format::Md5Mesh, Format::Md5Anim, Format::Md5Camera],
        }
    }

    /// Whether this engine loads files of `format`.
    pub fn loads(self, format: Format) -> bool {
        self.formats().contains(&format)
    }

    /// The engines that load `format`, in [`Engine::ALL`] order (none for a format
    /// idmodel does not read).
    pub fn for_format(format: Format) -> impl Iterator<Item = Engine> + Clone {
        Engine::ALL.iter().copied().filter(move |e| e.loads(format))
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What every format's finding type has: implemented by `idmodel_mdl::Finding`,
/// `idmodel_md2::Finding`, `idmodel_md3::{Finding, SkinFinding, AnimFinding}` and
/// `idmodel_md5::Finding`, so a tool can handle them all the same way.
///
/// Each of those types displays as [`display`] writes it: `engine: severity: message`.
///
/// ```
/// use core::fmt;
/// use idmodel_core::{Engine, Finding, Severity, findings};
///
/// struct Odd;
/// impl Finding for Odd {
///     fn severity(&self) -> Severity { Severity::Warning }
///     fn engine(&self) -> Engine { Engine::Quake2 }
///     fn code(&self) -> &'static str { "odd" }
///     fn write_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
///         f.write_str("something odd")
///     }
/// }
/// impl fmt::Display for Odd {
///     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { findings::display(self, f) }
/// }
///
/// assert_eq!(Odd.to_string(), "quake2: warning: something odd");
/// assert_eq!(Odd.message().to_string(), "something odd");
/// ```
pub trait Finding {
    /// How bad it is for [`Finding::engine`].
    fn severity(&self) -> Severity;

    /// The engine it is about.
    fn engine(&self) -> Engine;

    /// A stable, lowercase, hyphenated name of the kind of finding (`too-many-vertices`),
    /// for filtering and machine-readable output; unique within a format crate.
    fn code(&self) -> &'static str;

    /// Writes what the engine does with the file and why, in one line: the message
    /// alone, without the `engine: severity: ` prefix.
    fn write_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// The message alone, as a value to format (see [`Finding::write_message`]).
    fn message(&self) -> Message<'_, Self> {
        Message(self)
    }
}

/// The message of a finding, without its prefix (from [`Finding::message`]).
#[derive(Debug)]
pub struct Message<'a, F: ?Sized>(&'a F);

impl<F: ?Sized> Clone for Message<'_, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F: ?Sized> Copy for Message<'_, F> {}

impl<F: Finding + ?Sized> fmt::Display for Message<'_, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_message(f)
    }
}

/// Writes `finding` in the one shape every finding displays in:
/// `engine: severity: message` (for example
/// `glquake: refused: 1025 vertices, more than the 1024 it allows …`).
///
/// Each format crate's `Display` for its findings is this function.
pub fn display<F: Finding + ?Sized>(finding: &F, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{}: {}: ", finding.engine(), finding.severity())?;
    finding.write_message(f)
}

/// What a format's finding kind says for itself: the stable code and the message of a
/// finding of that kind. With [`Found`], the one struct every format's finding type is
/// (`idmodel_mdl::Finding` is `Found<idmodel_mdl::FindingKind>`, and so on).
///
/// ```
/// use core::fmt;
/// use idmodel_core::{Engine, Finding, Severity, findings::{self, Found}};
///
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// struct Odd(u32);
/// impl findings::Kind for Odd {
///     fn code(&self) -> &'static str { "odd" }
///     fn write_message(found: &Found<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
///         write!(f, "{} odd things for {}", found.kind.0, found.engine.display_name())
///     }
/// }
///
/// let found = Found::new(Odd(3), Severity::Hazard, Engine::Quake2);
/// assert_eq!(found.to_string(), "quake2: hazard: 3 odd things for Quake II");
/// assert_eq!((found.code(), found.severity()), ("odd", Severity::Hazard));
/// ```
pub trait Kind: Sized {
    /// A stable, lowercase, hyphenated name of the kind (see [`Finding::code`]).
    fn code(&self) -> &'static str;

    /// Writes the message of `found`, a finding of this kind, without the
    /// `engine: severity: ` prefix (see [`Finding::write_message`]); the message may
    /// depend on the finding's engine and severity.
    fn write_message(found: &Found<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

/// Gives a finding kind its codes and its [`Kind`] implementation: the inherent
/// `const fn code(&self)`, each variant's stable, lowercase, hyphenated name (listed
/// `Variant => "variant"`, in any order), and [`Kind`] with that code and the message
/// written by `$message`, a `fn(&Found<Kind>, &mut fmt::Formatter<'_>) -> fmt::Result`.
///
/// ```
/// use core::fmt;
/// use idmodel_core::findings::{Engine, Found, Severity};
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// enum Kind { Empty, TooLong { len: usize } }
/// fn message(found: &Found<Kind>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
///     match found.kind {
///         Kind::Empty => f.write_str("empty"),
///         Kind::TooLong { len } => write!(f, "{len} bytes"),
///     }
/// }
/// idmodel_core::finding_kind!(Kind, message, { Empty => "empty", TooLong => "too-long" });
/// assert_eq!(Kind::TooLong { len: 3 }.code(), "too-long");
/// let found = Found::new(Kind::Empty, Severity::Warning, Engine::Ioq3);
/// assert_eq!(idmodel_core::findings::Finding::code(&found), "empty");
/// ```
#[macro_export]
macro_rules! finding_kind {
    ($kind:ident $(<$lt:lifetime>)?, $message:path, { $($variant:ident => $code:literal),* $(,)? }) => {
        impl $kind $(<$lt>)? {
            /// A stable, lowercase, hyphenated name of this kind (its variant name), for
            /// filtering and machine-readable output.
            pub const fn code(&self) -> &'static str {
                match self {
                    $(Self::$variant { .. } => $code,)*
                }
            }
        }

        impl $crate::findings::Kind for $kind $(<$lt>)? {
            fn code(&self) -> &'static str {
                self.code()
            }

            fn write_message(
                found: &$crate::findings::Found<Self>,
                f: &mut core::fmt::Formatter<'_>,
            ) -> core::fmt::Result {
                $message(found, f)
            }
        }
    };
}

/// One thing an engine would do with a file: a finding of kind `K`, the struct behind
/// every format's finding type. It implements [`Finding`] and displays as [`display`]
/// writes it (`engine: severity: message`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Found<K> {
    /// What was found.
    pub kind: K,
    /// How bad it is for the engine.
    pub severity: Severity,
    /// The engine the finding is about.
    pub engine: Engine,
}

impl<K> Found<K> {
    /// A finding of `kind` at `severity` for `engine`.
    pub const fn new(kind: K, severity: Severity, engine: Engine) -> Self {
        Self {
            kind,
            severity,
            engine,
        }
    }
}

impl<K: Kind> Finding for Found<K> {
    fn severity(&self) -> Severity {
        self.severity
    }

    fn engine(&self) -> Engine {
        self.engine
    }

    fn code(&self) -> &'static str {
        self.kind.code()
    }

    fn write_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        K::write_message(self, f)
    }
}

/// Shown as `engine: severity: message` ([`display`]).
impl<K: Kind> fmt::Display for Found<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(self, f)
    }
}

/// The first `N` findings of a check, kept without an allocator (from [`first`]).
#[derive(Debug, Clone)]
pub struct First<F, const N: usize> {
    /// The first `N` findings, in the order the check reported them.
    pub findings: heapless::Vec<F, N>,
    /// How many more the check reported that did not fit.
    pub more: usize,
    /// The worst severity of all the findings reported, those that did not fit too;
    /// `None` when there were none.
    pub worst: Option<Severity>,
}

impl<F, const N: usize> First<F, N> {
    /// How many findings the check reported in all.
    pub fn total(&self) -> usize {
        self.findings.len().saturating_add(self.more)
    }

    /// True when the check reported nothing.
    pub fn is_clean(&self) -> bool {
        self.worst.is_none()
    }
}

/// Runs `check` and keeps its first `N` findings in a fixed-capacity
/// [`heapless::Vec`], counting the rest and remembering the worst severity of all:
/// a bounded report for callers without an allocator. `check` gets the sink to pass to a
/// format's `check(engine, sink)`.
///
/// ```
/// use core::fmt;
/// use idmodel_core::{Engine, Finding, Severity, findings};
/// # #[derive(Debug)]
/// # struct Odd(Severity);
/// # impl Finding for Odd {
/// #     fn severity(&self) -> Severity { self.0 }
/// #     fn engine(&self) -> Engine { Engine::Doom3 }
/// #     fn code(&self) -> &'static str { "odd" }
/// #     fn write_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str("odd") }
/// # }
/// // With a format crate: `findings::first::<_, 4>(|sink| mdl.check(Engine::GlQuake, sink))`.
/// let report = findings::first::<_, 2>(|sink| {
///     for s in [Severity::Warning, Severity::Hazard, Severity::Refused] {
///         sink(Odd(s));
///     }
/// });
/// assert_eq!(report.findings.len(), 2);
/// assert_eq!((report.more, report.total()), (1, 3));
/// assert_eq!(report.worst, Some(Severity::Refused)); // the one that did not fit
/// ```
pub fn first<F: Finding, const N: usize>(check: impl FnOnce(&mut dyn FnMut(F))) -> First<F, N> {
    let mut out = First {
        findings: heapless::Vec::new(),
        more: 0,
        worst: None,
    };
    check(&mut |f: F| {
        let severity = f.severity();
        out.worst = Some(out.worst.map_or(severity, |w| w.max(severity)));
        if out.findings.push(f).is_err() {
            out.more = out.more.saturating_add(1);
        }
    });
    out
}

// Tests may index and unwrap: a panic here is a failed assertion.
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    struct Toy(Engine, Severity);

    impl Finding for Toy {
        fn severity(&self) -> Severity {
            self.1
        }
        fn engine(&self) -> Engine {
            self.0
        }
        fn code(&self) -> &'static str {
            "toy"
        }
        fn write_message(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a toy")
        }
    }

    impl fmt::Display for Toy {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            display(self, f)
        }
    }

    /// Writes `v` into a stack buffer (core has no `String`).
    fn text<'b>(buf: &'b mut [u8; 128], v: &dyn fmt::Display) -> &'b str {
        struct W<'b>(&'b mut [u8], usize);
        impl fmt::Write for W<'_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                let end = self.1.checked_add(s.len()).ok_or(fmt::Error)?;
                self.0
                    .get_mut(self.1..end)
                    .ok_or(fmt::Error)?
                    .copy_from_slice(s.as_bytes());
                self.1 = end;
                Ok(())
            }
        }
        let mut w = W(buf, 0);
        fmt::write(&mut w, format_args!("{v}")).unwrap();
        let n = w.1;
        core::str::from_utf8(&buf[..n]).unwrap()
    }

    #[test]
    fn severity_order_is_warning_hazard_refused() {
        assert!(Severity::Warning < Severity::Hazard);
        assert!(Severity::Hazard < Severity::Refused);
        assert_eq!(Severity::ALL.iter().max(), Some(&Severity::Refused));
        assert!(Severity::ALL.windows(2).all(|w| w[0] < w[1]));
        let mut buf = [0; 128];
        assert_eq!(text(&mut buf, &Severity::Refused), "refused");
        assert_eq!(text(&mut buf, &Severity::Hazard), "hazard");
        assert_eq!(text(&mut buf, &Severity::Warning), "warning");
    }

    #[test]
    fn engine_names_round_trip_and_match_the_cli() {
        let names = [
            "winquake",
            "glquake",
            "quakespasm",
            "quake2",
            "quake3",
            "ioq3",
            "doom3",
        ];
        assert_eq!(Engine::ALL.len(), names.len());
        for (e, n) in Engine::ALL.iter().zip(names) {
            assert_eq!(e.name(), n);
            assert_eq!(Engine::from_name(n), Some(*e));
            let mut buf = [0; 128];
            assert_eq!(text(&mut buf, e), n);
        }
        assert_eq!(Engine::from_name("quake4"), None);
        assert_eq!(Engine::from_name("GLQuake"), None);
    }

    #[test]
    fn every_engine_loads_one_family_and_every_read_format_has_engines() {
        for &e in Engine::ALL {
            assert!(!e.formats().is_empty());
            for &format in e.formats() {
                assert!(format.is_supported());
                assert!(e.loads(format));
            }
        }
        let count = |f| Engine::for_format(f).count();
        assert_eq!(count(Format::Mdl), 3);
        assert_eq!(count(Format::Md2), 1);
        assert_eq!(count(Format::Md3), 2);
        assert_eq!(count(Format::Md5Mesh), 1);
        assert_eq!(count(Format::Md5Anim), 1);
        assert_eq!(count(Format::Md5Camera), 1);
        assert_eq!(count(Format::Iqm), 0);
        assert!(Engine::for_format(Format::Md5Camera).eq([Engine::Doom3]));
    }

    #[test]
    fn a_finding_displays_engine_severity_message() {
        let mut buf = [0; 128];
        let f = Toy(Engine::Ioq3, Severity::Hazard);
        assert_eq!(text(&mut buf, &f), "ioq3: hazard: a toy");
        assert_eq!(text(&mut buf, &f.message()), "a toy");
    }

    #[test]
    fn first_keeps_n_counts_the_rest_and_the_worst() {
        let report = first::<_, 2>(|sink| {
            sink(Toy(Engine::Doom3, Severity::Warning));
            sink(Toy(Engine::Doom3, Severity::Refused));
            sink(Toy(Engine::Doom3, Severity::Hazard));
            sink(Toy(Engine::Doom3, Severity::Warning));
        });
        assert_eq!(report.findings.len(), 2);
        assert_eq!(report.findings[1].severity(), Severity::Refused);
        assert_eq!(report.more, 2);
        assert_eq!(report.total(), 4);
        assert_eq!(report.worst, Some(Severity::Refused));
        assert!(!report.is_clean());

        let none = first::<Toy, 2>(|_| {});
        assert!(none.is_clean() && none.findings.is_empty() && none.more == 0);

        // A zero capacity still counts and grades.
        let zero = first::<_, 0>(|sink| sink(Toy(Engine::Doom3, Severity::Hazard)));
        assert_eq!((zero.more, zero.worst), (1, Some(Severity::Hazard)));
    }
}
