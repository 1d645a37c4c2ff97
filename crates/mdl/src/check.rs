//! Engine findings: what WinQuake, GLQuake and QuakeSpasm would do with a model that
//! [`Mdl::parse`] accepted. These are findings, not refusals (§1.2, §6.1). The
//! [`Severity`] and [`Engine`] are idmodel-core's, shared by every format.

use core::fmt;

use idmodel_core::findings::{Engine, Found, Severity};

use crate::raw::ALIAS_ONSEAM;
use crate::{Flags, Mdl};

/// `MAXALIASVERTS` of WinQuake and QuakeSpasm.
pub const MAX_VERTS_SOFTWARE: usize = 2000;
/// `MAXALIASVERTS` of GLQuake.
pub const MAX_VERTS_GLQUAKE: usize = 1024;
/// GLQuake's static `triangles[2048]` (not checked: more overflows it).
pub const MAX_TRIS_GLQUAKE: usize = 2048;
/// QuakeSpasm's checked `MAXALIASTRIS`.
pub const MAX_TRIS_QUAKESPASM: usize = 4096;
/// GLQuake's display-list `commands[8192]` overflows from this many triangles when the
/// triangles do not strip (1 + 2·(1 + 2) words each; docs/formats.md §1.3.9).
pub const GLQUAKE_COMMANDS_RISK_TRIS: usize = 1171;
/// GLQuake's `poseverts[256]` (not checked).
pub const MAX_POSES_GLQUAKE: usize = 256;
/// QuakeSpasm's checked `MAXALIASFRAMES`.
pub const MAX_POSES_QUAKESPASM: usize = 1024;
/// `MAX_SKINS` of GLQuake and QuakeSpasm.
pub const MAX_SKINS: usize = 32;
/// `MAX_LBM_HEIGHT`: the tallest skin.
pub const MAX_SKIN_HEIGHT: usize = 480;

/// The engines that load MDL, in CLI order: [`Mdl::check`] reports nothing for any other.
pub const ENGINES: &[Engine] = &[Engine::WinQuake, Engine::GlQuake, Engine::QuakeSpasm];

/// Whether an interval belongs to a skin group or a frame group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupKind {
    /// A skin group.
    Skin,
    /// A frame group.
    Frame,
}

impl fmt::Display for GroupKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GroupKind::Skin => "skin",
            GroupKind::Frame => "frame",
        })
    }
}

/// What was found.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FindingKind {
    /// More vertices than the engine's `MAXALIASVERTS`.
    TooManyVertices {
        /// `numverts`.
        count: usize,
        /// The engine's limit.
        max: usize,
    },
    /// More triangles than the engine's buffer (GLQuake, unchecked) or limit (QuakeSpasm).
    TooManyTriangles {
        /// `numtris`.
        count: usize,
        /// The engine's limit.
        max: usize,
    },
    /// Enough triangles that GLQuake's display-list command buffer can overflow.
    CommandBufferRisk {
        /// `numtris`.
        count: usize,
    },
    /// More poses (single frames plus group members) than the engine holds.
    TooManyPoses {
        /// Total poses.
        count: usize,
        /// The engine's limit.
        max: usize,
    },
    /// More skins than `MAX_SKINS`.
    TooManySkins {
        /// `numskins`.
        count: usize,
        /// The engine's limit.
        max: usize,
    },
    /// Skin taller than `MAX_LBM_HEIGHT` (480).
    SkinTooTall {
        /// `skinheight`.
        height: usize,
    },
    /// Skin width not a multiple of 4 (the software renderer refuses it).
    SkinWidthNotMultipleOf4 {
        /// `skinwidth`.
        width: usize,
    },
    /// A group interval that is zero, negative or not a number.
    BadInterval {
        /// Skin or frame group.
        group: GroupKind,
        /// Index of the skin or frame entry.
        entry: usize,
        /// Index of the interval in the group.
        index: usize,
        /// The value.
        value: f32,
    },
    /// Software-renderer intervals that do not increase, so some images or poses never show.
    IntervalsNotIncreasing {
        /// Skin or frame group.
        group: GroupKind,
        /// Index of the skin or frame entry.
        entry: usize,
    },
    /// Vertex normal indices ≥ 162 (past the end of the normal table).
    NormalIndexOutOfTable {
        /// The first bad index found.
        index: u8,
        /// Pose of the first bad index.
        pose: usize,
        /// Vertex of the first bad index.
        vertex: usize,
        /// How many vertices (over all poses) have one.
        count: usize,
    },
    /// `onseam` values other than 0 and 0x20, which the software renderer reads as clip flags.
    OddOnseam {
        /// First vertex with such a value.
        vertex: usize,
        /// Its value.
        value: i32,
        /// How many vertices have one.
        count: usize,
    },
    /// Texture coordinates outside the skin.
    TexcoordOutsideSkin {
        /// First vertex outside.
        vertex: usize,
        /// Its `s`.
        s: i32,
        /// Its `t`.
        t: i32,
        /// How many vertices are outside.
        count: usize,
    },
    /// A 16-byte frame name with no terminating NUL.
    UnterminatedFrameName {
        /// The pose whose name it is.
        pose: usize,
    },
    /// A `synctype` other than 0 and 1 (treated as 0).
    UnknownSyncType {
        /// The value.
        value: i32,
    },
    /// Flag bits without a meaning in this engine.
    UnknownFlags {
        /// The bits.
        bits: u32,
    },
    /// `MF_HOLEY` set, but this engine draws index 255 opaque.
    HoleyIgnored,
    /// A skin group with more than 4 images: GL engines keep only 4 texture slots.
    SkinGroupTooLong {
        /// Index of the skin entry.
        entry: usize,
        /// Number of images.
        images: usize,
    },
    /// Bytes after the last frame (an editor block, ignored by engines).
    TrailingData {
        /// Their length.
        len: usize,
    },
    /// The header's `scale` or `scale_origin` holds a NaN or an infinity: every vertex is
    /// not finite, and the engine draws the model nowhere or across the screen.
    NonFiniteScale,
}

/// One finding of [`Mdl::check`].
pub type Finding = Found<FindingKind>;

fn write_message(found: &Found<FindingKind>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match found.kind {
        FindingKind::TooManyVertices { count, max } => write!(
            f,
            "{count} vertices, more than the {max} it allows (MAXALIASVERTS); it stops with an error"
        ),
        FindingKind::TooManyTriangles { count, max } => match found.severity {
            Severity::Refused => write!(
                f,
                "{count} triangles, more than the {max} it allows (MAXALIASTRIS); it stops with an error"
            ),
            _ => write!(
                f,
                "{count} triangles overflow its fixed {max}-triangle buffer (no check): memory corruption or a crash"
            ),
        },
        FindingKind::CommandBufferRisk { count } => write!(
            f,
            "{count} triangles can overflow its 8192-word display-list buffer when the mesh does not form long strips (from 1171 triangles)"
        ),
        FindingKind::TooManyPoses { count, max } => match found.severity {
            Severity::Refused => write!(
                f,
                "{count} animation poses, more than the {max} it allows (MAXALIASFRAMES); it stops with an error"
            ),
            _ => write!(
                f,
                "{count} animation poses overflow its fixed {max}-pose table (no check): memory corruption or a crash"
            ),
        },
        FindingKind::TooManySkins { count, max } => {
            write!(
                f,
                "{count} skins, more than the {max} it allows; it stops with an error"
            )
        }
        FindingKind::SkinTooTall { height } => match found.severity {
            Severity::Refused => write!(
                f,
                "skin height {height} is over {MAX_SKIN_HEIGHT}; it stops with an error"
            ),
            _ => write!(
                f,
                "skin height {height} is over {MAX_SKIN_HEIGHT}; it only prints a developer warning"
            ),
        },
        FindingKind::SkinWidthNotMultipleOf4 { width } => write!(
            f,
            "skin width {width} is not a multiple of 4; the software renderer stops with an error"
        ),
        FindingKind::BadInterval {
            group,
            entry,
            index,
            value,
        } => match found.severity {
            Severity::Refused => write!(
                f,
                "{group} group {entry} has interval {index} = {value} (must be > 0); it stops with an error"
            ),
            _ => write!(
                f,
                "{group} group {entry} has interval {index} = {value}; the animation timing divides by it or compares with it (division by zero or a pose out of range)"
            ),
        },
        FindingKind::IntervalsNotIncreasing { group, entry } => write!(
            f,
            "{group} group {entry} has intervals that do not increase; they are end times, so some images or poses never show"
        ),
        FindingKind::NormalIndexOutOfTable {
            index,
            pose,
            vertex,
            count,
        } => write!(
            f,
            "{count} vertex normal indices are past the 162-entry normal table (first: {index} at pose {pose}, vertex {vertex}); it reads out of bounds (this library decodes them as straight up)"
        ),
        FindingKind::OddOnseam {
            vertex,
            value,
            count,
        } => write!(
            f,
            "{count} texture coordinates have onseam values other than 0 and 0x20 (first: vertex {vertex}, {value:#x}); the software renderer reads them as clip flags and may clip or cull the wrong triangles, and only bit 0x20 moves the seam"
        ),
        FindingKind::TexcoordOutsideSkin {
            vertex,
            s,
            t,
            count,
        } => match found.severity {
            Severity::Hazard => write!(
                f,
                "{count} texture coordinates lie outside the skin (first: vertex {vertex} at s={s}, t={t}); the software renderer reads texels out of bounds"
            ),
            _ => write!(
                f,
                "{count} texture coordinates lie outside the skin (first: vertex {vertex} at s={s}, t={t}); the texture wraps"
            ),
        },
        FindingKind::UnterminatedFrameName { pose } => match found.severity {
            Severity::Hazard => write!(
                f,
                "the name of pose {pose} fills all 16 bytes with no terminator; strcpy copies past the end of the name buffer"
            ),
            _ => write!(
                f,
                "the name of pose {pose} fills all 16 bytes with no terminator; it is cut to 15 characters"
            ),
        },
        FindingKind::UnknownSyncType { value } => write!(
            f,
            "synctype {value} is neither 0 (sync) nor 1 (random); it is treated as sync"
        ),
        FindingKind::UnknownFlags { bits } => match found.engine {
            Engine::QuakeSpasm => write!(
                f,
                "flag bits {bits:#x} have no meaning and are dropped at load"
            ),
            _ => write!(f, "flag bits {bits:#x} have no meaning and are ignored"),
        },
        FindingKind::HoleyIgnored => write!(
            f,
            "the model asks for transparent colour 255 (flag 0x4000), which only QuakeSpasm-family ports honour; it draws it opaque"
        ),
        FindingKind::SkinGroupTooLong { entry, images } => write!(
            f,
            "skin group {entry} has {images} images but only 4 texture slots; only the last image of each slot is shown, at a fixed 10 Hz"
        ),
        FindingKind::TrailingData { len } => write!(
            f,
            "{len} bytes follow the last frame (an editor block such as QMEX); they are ignored"
        ),
        FindingKind::NonFiniteScale => f.write_str(
            "the header's scale or origin is not finite; every vertex is NaN or infinite (converted, they are 0)",
        ),
    }
}

idmodel_core::finding_kind!(FindingKind, write_message, {
    TooManyVertices => "too-many-vertices",
    TooManyTriangles => "too-many-triangles",
    CommandBufferRisk => "command-buffer-risk",
    TooManyPoses => "too-many-poses",
    TooManySkins => "too-many-skins",
    SkinTooTall => "skin-too-tall",
    SkinWidthNotMultipleOf4 => "skin-width-not-multiple-of-4",
    BadInterval => "bad-interval",
    IntervalsNotIncreasing => "intervals-not-increasing",
    NormalIndexOutOfTable => "normal-index-out-of-table",
    OddOnseam => "odd-onseam",
    TexcoordOutsideSkin => "texcoord-outside-skin",
    UnterminatedFrameName => "unterminated-frame-name",
    UnknownSyncType => "unknown-sync-type",
    UnknownFlags => "unknown-flags",
    HoleyIgnored => "holey-ignored",
    SkinGroupTooLong => "skin-group-too-long",
    TrailingData => "trailing-data",
    NonFiniteScale => "non-finite-scale",
});

impl Mdl<'_> {
    /// Reports, without allocating, what `engine` would do with this model; nothing for
    /// an engine that does not load MDL (one not in [`ENGINES`]).
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use idmodel_mdl::{Engine, Mdl, Model, Severity};
    /// let mut model = Model::example();
    /// model.skin_width = 6; // not a multiple of 4
    /// for skin in &mut model.skins { skin.resize_images(6 * model.skin_height as usize); }
    /// let bytes = model.write().unwrap();
    /// let mdl = Mdl::parse(&bytes).unwrap();
    /// let mut refused = 0;
    /// mdl.check(Engine::WinQuake, &mut |f| if f.severity == Severity::Refused { refused += 1 });
    /// assert_eq!(refused, 1);
    /// assert!(mdl.findings(Engine::QuakeSpasm).is_empty());
    /// assert!(mdl.findings(Engine::Quake2).is_empty()); // Quake II does not load MDL
    ///
    /// // Without an allocator: the first 4 findings, the number of others, the worst.
    /// let first = idmodel_core::findings::first::<_, 4>(|sink| mdl.check(Engine::WinQuake, sink));
    /// assert_eq!((first.findings.len(), first.more), (1, 0));
    /// assert_eq!(first.worst, Some(Severity::Refused));
    /// # }
    /// ```
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding)) {
        if !ENGINES.contains(&engine) {
            return;
        }
        let mut emit = |kind, severity| sink(Finding::new(kind, severity, engine));
        let sw = engine == Engine::WinQuake;
        let gl = engine == Engine::GlQuake;
        let qs = engine == Engine::QuakeSpasm;

        let verts = self.vertex_count();
        let max_verts = if gl {
            MAX_VERTS_GLQUAKE
        } else {
            MAX_VERTS_SOFTWARE
        };
        if verts > max_verts {
            emit(
                FindingKind::TooManyVertices {
                    count: verts,
                    max: max_verts,
                },
                Severity::Refused,
            );
        }
        let tris = self.triangles().len();
        if gl && tris > MAX_TRIS_GLQUAKE {
            emit(
                FindingKind::TooManyTriangles {
                    count: tris,
                    max: MAX_TRIS_GLQUAKE,
                },
                Severity::Hazard,
            );
        } else if gl && tris >= GLQUAKE_COMMANDS_RISK_TRIS {
            emit(
                FindingKind::CommandBufferRisk { count: tris },
                Severity::Hazard,
            );
        }
        if qs && tris > MAX_TRIS_QUAKESPASM {
            emit(
                FindingKind::TooManyTriangles {
                    count: tris,
                    max: MAX_TRIS_QUAKESPASM,
                },
                Severity::Refused,
            );
        }
        let poses = self.pose_count();
        if gl && poses > MAX_POSES_GLQUAKE {
            emit(
                FindingKind::TooManyPoses {
                    count: poses,
                    max: MAX_POSES_GLQUAKE,
                },
                Severity::Hazard,
            );
        }
        if qs && poses > MAX_POSES_QUAKESPASM {
            emit(
                FindingKind::TooManyPoses {
                    count: poses,
                    max: MAX_POSES_QUAKESPASM,
                },
                Severity::Refused,
            );
        }
        if !sw && self.skin_count() > MAX_SKINS {
            emit(
                FindingKind::TooManySkins {
                    count: self.skin_count(),
                    max: MAX_SKINS,
                },
                Severity::Refused,
            );
        }
        if self.skin_height() > MAX_SKIN_HEIGHT {
            let severity = if qs {
                Severity::Warning
            } else {
                Severity::Refused
            };
            emit(
                FindingKind::SkinTooTall {
                    height: self.skin_height(),
                },
                severity,
            );
        }
        if sw && self.skin_width() % 4 != 0 {
            emit(
                FindingKind::SkinWidthNotMultipleOf4 {
                    width: self.skin_width(),
                },
                Severity::Refused,
            );
        }

        // Skin groups.
        for (entry, skin) in self.skins().enumerate() {
            if !skin.is_group() {
                continue;
            }
            if sw {
                check_sw_intervals(GroupKind::Skin, entry, skin.intervals(), &mut emit);
            } else if skin.image_count() > 4 {
                emit(
                    FindingKind::SkinGroupTooLong {
                        entry,
                        images: skin.image_count(),
                    },
                    Severity::Warning,
                );
            }
        }
        // Frame groups and frame names.
        for (entry, frame) in self.frames().enumerate() {
            if frame.is_group() {
                if sw {
                    check_sw_intervals(GroupKind::Frame, entry, frame.intervals(), &mut emit);
                } else if frame.pose_count() > 1 {
                    if let Some(first) = frame.intervals().next() {
                        if !(first > 0.0 && first.is_finite()) {
                            emit(
                                FindingKind::BadInterval {
                                    group: GroupKind::Frame,
                                    entry,
                                    index: 0,
                                    value: first,
                                },
                                Severity::Hazard,
                            );
                        }
                    }
                }
            }
            for (i, pose) in frame.poses().enumerate() {
                if pose.name_unterminated() {
                    let severity = if qs {
                        Severity::Warning
                    } else {
                        Severity::Hazard
                    };
                    emit(
                        FindingKind::UnterminatedFrameName {
                            pose: frame.first_pose().saturating_add(i),
                        },
                        severity,
                    );
                }
            }
        }

        // Normal indices past the table: software lighting and QuakeSpasm's VBO upload
        // index the 162-entry table directly; GLQuake's dot table is padded to 256.
        if !gl {
            let mut first = None;
            let mut count = 0usize;
            for (p, pose) in self.poses().enumerate() {
                for (v, tv) in pose.vertices().iter().enumerate() {
                    if usize::from(tv.light_normal_index) >= idmodel_core::anorms::ANORMS.len() {
                        count = count.saturating_add(1);
                        first.get_or_insert((tv.light_normal_index, p, v));
                    }
                }
            }
            if let Some((index, pose, vertex)) = first {
                emit(
                    FindingKind::NormalIndexOutOfTable {
                        index,
                        pose,
                        vertex,
                        count,
                    },
                    Severity::Hazard,
                );
            }
        }

        // Texture coordinates.
        let (w, h) = (self.skin_width(), self.skin_height());
        let mut odd = None;
        let mut odd_count = 0usize;
        let mut outside = None;
        let mut outside_count = 0usize;
        for (v, st) in self.texcoords().iter().enumerate() {
            let onseam = st.onseam.get();
            if onseam != 0 && onseam != ALIAS_ONSEAM {
                odd_count = odd_count.saturating_add(1);
                odd.get_or_insert((v, onseam));
            }
            let (s, t) = (st.s.get(), st.t.get());
            let s_ok = usize::try_from(s).is_ok_and(|s| s <= w);
            let t_ok = usize::try_from(t).is_ok_and(|t| t <= h);
            if !(s_ok && t_ok) {
                outside_count = outside_count.saturating_add(1);
                outside.get_or_insert((v, s, t));
            }
        }
        if sw {
            if let Some((vertex, value)) = odd {
                emit(
                    FindingKind::OddOnseam {
                        vertex,
                        value,
                        count: odd_count,
                    },
                    Severity::Hazard,
                );
            }
        }
        if let Some((vertex, s, t)) = outside {
            let severity = if sw {
                Severity::Hazard
            } else {
                Severity::Warning
            };
            emit(
                FindingKind::TexcoordOutsideSkin {
                    vertex,
                    s,
                    t,
                    count: outside_count,
                },
                severity,
            );
        }

        let sync = self.sync_type();
        if sync != 0 && sync != 1 {
            emit(
                FindingKind::UnknownSyncType { value: sync },
                Severity::Warning,
            );
        }
        let flags = self.flags();
        if flags.unknown_bits() != 0 {
            emit(
                FindingKind::UnknownFlags {
                    bits: flags.unknown_bits(),
                },
                Severity::Warning,
            );
        }
        if !qs && flags.contains(Flags::HOLEY) {
            emit(FindingKind::HoleyIgnored, Severity::Warning);
        }
        if !self.trailing().is_empty() {
            emit(
                FindingKind::TrailingData {
                    len: self.trailing().len(),
                },
                Severity::Warning,
            );
        }
        if !self
            .scale()
            .iter()
            .chain(&self.origin())
            .all(|x| x.is_finite())
        {
            emit(FindingKind::NonFiniteScale, Severity::Hazard);
        }
    }

    /// [`Mdl::check`] collected into a vector.
    #[cfg(feature = "alloc")]
    pub fn findings(&self, engine: Engine) -> alloc::vec::Vec<Finding> {
        let mut out = alloc::vec::Vec::new();
        self.check(engine, &mut |f| out.push(f));
        out
    }
}

/// WinQuake refuses any interval ≤ 0 (`"...interval<=0"`) and treats intervals as end
/// times, so they should increase.
fn check_sw_intervals(
    group: GroupKind,
    entry: usize,
    intervals: impl Iterator<Item = f32>,
    emit: &mut impl FnMut(FindingKind, Severity),
) {
    let mut prev = f32::NEG_INFINITY;
    let mut increasing = true;
    for (index, value) in intervals.enumerate() {
        if value <= 0.0 || value.is_nan() {
            // `<= 0` is the engine's own check; NaN passes it and breaks the timing.
            let severity = if value.is_nan() {
                Severity::Hazard
            } else {
                Severity::Refused
            };
            emit(
                FindingKind::BadInterval {
                    group,
                    entry,
                    index,
                    value,
                },
                severity,
            );
            return;
        }
        if value <= prev {
            increasing = false;
        }
        prev = value;
    }
    if !increasing {
        emit(
            FindingKind::IntervalsNotIncreasing { group, entry },
            Severity::Warning,
        );
    }
}
