//! Findings: what each engine would do with a file that parses (docs/formats.md §3.2).
//! Engine limits are reported, never refused by the parser. The [`Severity`] and
//! [`Engine`] are idmodel-core's, shared by every format.

use core::fmt;

use idmodel_core::Name;
use idmodel_core::findings::{Engine, Found, Severity};

use crate::view::Md3;

/// `MD3_MAX_LODS`.
pub const MAX_LODS: usize = 3;
/// `MD3_MAX_TRIANGLES` (per surface; declared, not enforced by the engines).
pub const MAX_TRIANGLES: usize = 8192;
/// `MD3_MAX_VERTS` (per surface; declared, not enforced).
pub const MAX_VERTS: usize = 4096;
/// `MD3_MAX_SHADERS` (per surface; declared, not enforced).
pub const MAX_SHADERS: usize = 256;
/// `MD3_MAX_FRAMES` (declared, not enforced).
pub const MAX_FRAMES: usize = 1024;
/// `MD3_MAX_SURFACES` (declared, not enforced).
pub const MAX_SURFACES: usize = 32;
/// `MD3_MAX_TAGS` (per frame; declared, not enforced).
pub const MAX_TAGS: usize = 16;
/// `SHADER_MAX_VERTEXES` (code/qcommon/qfiles.h, the same in Quake III 1.32 and
/// ioquake3): the size of the renderer's vertex batch (`tess`). Every per-surface vertex
/// limit below is derived from it.
pub const SHADER_MAX_VERTEXES: usize = 1000;
/// `SHADER_MAX_INDEXES` = 6 × `SHADER_MAX_VERTEXES` (code/qcommon/qfiles.h): the size of
/// the renderer's index batch, three indexes a triangle. Every per-surface triangle limit
/// below is derived from it.
pub const SHADER_MAX_INDEXES: usize = 6 * SHADER_MAX_VERTEXES;

/// The most vertices a surface may have for **either engine to draw it**: 999.
///
/// Quake III 1.32 code/renderer/tr_surface.c `RB_CheckOverflow` (reached from
/// `RB_SurfaceMesh` through `RB_CHECKOVERFLOW`) drops to the console ("RB_CheckOverflow:
/// verts > MAX") when one surface has `verts >= SHADER_MAX_VERTEXES`; ioquake3 refuses
/// such a surface at load ([`IOQ3_MAX_VERTS`]).
pub const DRAW_MAX_VERTS: usize = SHADER_MAX_VERTEXES - 1;
/// The most triangles a surface may have for **either engine to draw it**: 1999.
///
/// Quake III 1.32 code/renderer/tr_surface.c `RB_CheckOverflow` drops to the console
/// ("RB_CheckOverflow: indices > MAX") when one surface has
/// `3 · numTriangles >= SHADER_MAX_INDEXES`; ioquake3 refuses such a surface at load
/// ([`IOQ3_MAX_TRIANGLES`]).
pub const DRAW_MAX_TRIANGLES: usize = SHADER_MAX_INDEXES / 3 - 1;
/// The most vertices per surface Quake III 1.32 **loads**: 1000. Its
/// code/renderer/tr_model.c `R_LoadMD3` drops to the console (`ERR_DROP`) when
/// `numVerts > SHADER_MAX_VERTEXES`; a surface of exactly 1000 loads but cannot be drawn
/// ([`DRAW_MAX_VERTS`]).
pub const QUAKE3_LOAD_MAX_VERTS: usize = SHADER_MAX_VERTEXES;
/// The most triangles per surface Quake III 1.32 **loads**: 2000. Its
/// code/renderer/tr_model.c `R_LoadMD3` drops to the console (`ERR_DROP`) when
/// `numTriangles · 3 > SHADER_MAX_INDEXES`; a surface of exactly 2000 loads but cannot be
/// drawn ([`DRAW_MAX_TRIANGLES`]).
pub const QUAKE3_LOAD_MAX_TRIANGLES: usize = SHADER_MAX_INDEXES / 3;
/// The most vertices per surface ioquake3 loads: 999. Its code/renderergl1/tr_model.c
/// and code/renderergl2/tr_model.c `R_LoadMD3` refuse the model (a warning, `qfalse`)
/// when `numVerts >= SHADER_MAX_VERTEXES`.
pub const IOQ3_MAX_VERTS: usize = SHADER_MAX_VERTEXES - 1;
/// The most triangles per surface ioquake3 loads: 1999. Its code/renderergl1/tr_model.c
/// and code/renderergl2/tr_model.c `R_LoadMD3` refuse the model (a warning, `qfalse`)
/// when `numTriangles · 3 >= SHADER_MAX_INDEXES`.
pub const IOQ3_MAX_TRIANGLES: usize = SHADER_MAX_INDEXES / 3 - 1;

/// Tolerance for [`FindingKind::TagNotOrthonormal`]: row lengths within 1 ± this, and
/// row dot products within ± this.
pub const ORTHONORMAL_TOLERANCE: f32 = 1e-3;

/// Above this many surfaces the duplicate-name check is skipped (it is quadratic).
pub const DUPLICATE_CHECK_LIMIT: usize = 1024;

/// The engines that load MD3, in CLI order: [`Md3::check`], [`Skin::check`](crate::Skin::check)
/// and [`AnimationCfg::check`](crate::AnimationCfg::check) report nothing for any other.
pub const ENGINES: &[Engine] = &[Engine::Quake3, Engine::Ioq3];

/// The most vertices per surface `engine` both loads **and draws** (`None` for an engine
/// not in [`ENGINES`]): 999 for both ([`DRAW_MAX_VERTS`]). The limit a written file
/// keeps to; [`max_loaded_verts`] gives what the loader alone accepts.
///
/// ```
/// use idmodel_md3::{Engine, max_loaded_verts, max_verts};
/// assert_eq!(max_verts(Engine::Quake3), Some(999));
/// assert_eq!(max_loaded_verts(Engine::Quake3), Some(1000)); // loads, cannot draw
/// assert_eq!(max_verts(Engine::Ioq3), max_loaded_verts(Engine::Ioq3));
/// ```
pub const fn max_verts(engine: Engine) -> Option<usize> {
    match engine {
        Engine::Quake3 | Engine::Ioq3 => Some(DRAW_MAX_VERTS),
        _ => None,
    }
}

/// The most triangles per surface `engine` both loads **and draws** (`None` for an
/// engine not in [`ENGINES`]): 1999 for both ([`DRAW_MAX_TRIANGLES`]).
///
/// ```
/// use idmodel_md3::{Engine, max_loaded_triangles, max_triangles};
/// assert_eq!(max_triangles(Engine::Ioq3), Some(1999));
/// assert_eq!(max_loaded_triangles(Engine::Quake3), Some(2000)); // loads, cannot draw
/// ```
pub const fn max_triangles(engine: Engine) -> Option<usize> {
    match engine {
        Engine::Quake3 | Engine::Ioq3 => Some(DRAW_MAX_TRIANGLES),
        _ => None,
    }
}

/// The most vertices per surface `engine`'s loader accepts (`None` for an engine not in
/// [`ENGINES`]): Quake III 1.32 [`QUAKE3_LOAD_MAX_VERTS`] (1000), ioquake3
/// [`IOQ3_MAX_VERTS`] (999). Above it the model is refused.
pub const fn max_loaded_verts(engine: Engine) -> Option<usize> {
    match engine {
        Engine::Quake3 => Some(QUAKE3_LOAD_MAX_VERTS),
        Engine::Ioq3 => Some(IOQ3_MAX_VERTS),
        _ => None,
    }
}

/// The most triangles per surface `engine`'s loader accepts (`None` for an engine not in
/// [`ENGINES`]): Quake III 1.32 [`QUAKE3_LOAD_MAX_TRIANGLES`] (2000), ioquake3
/// [`IOQ3_MAX_TRIANGLES`] (1999). Above it the model is refused.
pub const fn max_loaded_triangles(engine: Engine) -> Option<usize> {
    match engine {
        Engine::Quake3 => Some(QUAKE3_LOAD_MAX_TRIANGLES),
        Engine::Ioq3 => Some(IOQ3_MAX_TRIANGLES),
        _ => None,
    }
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FindingKind<'a> {
    /// A surface has more vertices than the engine draws ([`max_verts`]). Refused when
    /// it is also more than the engine loads ([`max_loaded_verts`]; ioquake3 from 1000,
    /// Quake III 1.32 from 1001); a [`Severity::Hazard`] when the engine loads it but
    /// cannot draw it (Quake III 1.32 at exactly 1000: `RB_CheckOverflow` drops to the
    /// console at the surface's first draw).
    TooManyVerts {
        /// Surface index.
        surface: usize,
        /// Its `numVerts`.
        count: usize,
        /// The engine's maximum: the most it loads when refused, the most it draws for
        /// a hazard.
        max: usize,
    },
    /// A surface has more triangles than the engine draws ([`max_triangles`]). Refused
    /// when it is also more than the engine loads ([`max_loaded_triangles`]; ioquake3
    /// from 2000, Quake III 1.32 from 2001); a [`Severity::Hazard`] when the engine loads
    /// it but cannot draw it (Quake III 1.32 at exactly 2000 triangles, 6000 indexes).
    TooManyTriangles {
        /// Surface index.
        surface: usize,
        /// Its `numTriangles`.
        count: usize,
        /// The engine's maximum: the most it loads when refused, the most it draws for
        /// a hazard.
        max: usize,
    },
    /// A count is above a maximum declared in qfiles.h (not enforced by the engines,
    /// but other tools may refuse it).
    AboveDeclaredMax {
        /// The constant's name, for example `"MD3_MAX_SURFACES"`.
        what: &'static str,
        /// The surface, for per-surface limits.
        surface: Option<usize>,
        /// The count in the file.
        count: usize,
        /// The declared maximum.
        max: usize,
    },
    /// A surface's `numFrames` differs from the header's.
    SurfaceFrameCount {
        /// Surface index.
        surface: usize,
        /// The surface's count.
        surface_frames: usize,
        /// The header's count.
        header_frames: usize,
    },
    /// Two surfaces have the same engine name (a skin gives both the same shader).
    DuplicateSurfaceName {
        /// The earlier surface.
        first: usize,
        /// The later surface.
        second: usize,
        /// The shared engine name.
        name: crate::EngineName,
    },
    /// The engine renames the surface (lower-case, `_x` cut); skins must use the new name.
    SurfaceRenamed {
        /// Surface index.
        surface: usize,
        /// The name in the file.
        raw: Name<'a>,
        /// The name the engine uses.
        engine: crate::EngineName,
    },
    /// A shader name is empty: the engine uses its default shader.
    EmptyShaderName {
        /// Surface index.
        surface: usize,
        /// Shader index within the surface.
        shader: usize,
    },
    /// A surface has no shaders: without a skin the engine uses its default shader.
    NoShaders {
        /// Surface index.
        surface: usize,
    },
    /// A tag's axis is not orthonormal (first offending frame only).
    TagNotOrthonormal {
        /// Tag index.
        tag: usize,
        /// The frame.
        frame: usize,
        /// The tag's name.
        name: Name<'a>,
    },
    /// A tag's name differs between frame 0 and a later frame (the engine searches
    /// every frame by name, so the tag vanishes in that frame).
    TagNameChanges {
        /// Tag index.
        tag: usize,
        /// The first frame where it differs.
        frame: usize,
    },
    /// A lower LOD (`_1`, `_2`) has fewer frames than LOD 0: the renderer checks the
    /// frame number against LOD 0's count (`R_AddMD3Surfaces`) and then reads that frame
    /// of the LOD it draws, past the end of its frames. Reported by [`check_lod_frames`],
    /// never by [`Md3::check`] (one file does not know its LODs).
    LodFewerFrames {
        /// The LOD (1 or 2).
        lod: usize,
        /// Its `numFrames`.
        frames: usize,
        /// LOD 0's `numFrames`.
        lod0_frames: usize,
    },
    /// Bytes after `ofsEnd` (the engine ignores them).
    TrailingBytes {
        /// How many.
        count: usize,
    },
    /// Frame bounds, cull-sphere origins or radii, or tag origins or axes that hold a
    /// NaN or an infinity: the engine culls, lights and attaches with them (a model
    /// drawn nowhere or everywhere, attached parts lost).
    NonFinite {
        /// `"frame"` or `"tag"`.
        what: &'static str,
        /// How many frames (or tag entries, frame × tag) hold one.
        count: usize,
        /// The first: a frame index, or a tag entry index (frame × numTags + tag).
        first: usize,
    },
}

/// One thing an engine would do with the file.
pub type Finding<'a> = Found<FindingKind<'a>>;

/// A surface over a per-surface limit. Refused: ioquake3 quietly refuses the model,
/// Quake III 1.32 drops to the console. A hazard: loaded, but the first draw drops to
/// the console.
fn per_surface_limit(
    f: &mut fmt::Formatter<'_>,
    found: &Found<FindingKind<'_>>,
    surface: usize,
    count: usize,
    what: &str,
    max: usize,
) -> fmt::Result {
    let p = found.engine.display_name();
    if found.severity != Severity::Refused {
        return write!(
            f,
            "surface {surface} has {count} {what}; {p} loads it but cannot draw it: it draws at most {max} per surface and drops to the console at the first draw (RB_CheckOverflow)"
        );
    }
    let then = match found.engine {
        Engine::Ioq3 => "quietly refuses the model",
        _ => "drops to the console (ERR_DROP)",
    };
    write!(
        f,
        "surface {surface} has {count} {what}; {p} loads at most {max} per surface and {then}"
    )
}

fn write_message(found: &Found<FindingKind<'_>>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match found.kind {
        FindingKind::TooManyVerts {
            surface,
            count,
            max,
        } => per_surface_limit(f, found, surface, count, "vertices", max),
        FindingKind::TooManyTriangles {
            surface,
            count,
            max,
        } => per_surface_limit(f, found, surface, count, "triangles", max),
        FindingKind::AboveDeclaredMax {
            what,
            surface,
            count,
            max,
        } => {
            match surface {
                Some(s) => write!(f, "surface {s}: {count} is above {what} ({max})")?,
                None => write!(f, "{count} is above {what} ({max})")?,
            }
            f.write_str("; the engines do not check it, but other tools may refuse the file")
        }
        FindingKind::SurfaceFrameCount {
            surface,
            surface_frames,
            header_frames,
        } => {
            if surface_frames < header_frames {
                write!(
                    f,
                    "surface {surface} has {surface_frames} frames but the model has {header_frames}; the engine reads past the surface's vertices for the missing frames"
                )
            } else {
                write!(
                    f,
                    "surface {surface} has {surface_frames} frames but the model has {header_frames}; the extra frames are never shown"
                )
            }
        }
        FindingKind::DuplicateSurfaceName {
            first,
            second,
            name,
        } => write!(
            f,
            "surfaces {first} and {second} are both called '{name}' in the engine; a skin gives them the same shader"
        ),
        FindingKind::SurfaceRenamed {
            surface,
            raw,
            engine,
        } => write!(
            f,
            "surface {surface} '{raw}' is renamed '{engine}' by the engine; .skin files must use '{engine}'"
        ),
        FindingKind::EmptyShaderName { surface, shader } => write!(
            f,
            "surface {surface} shader {shader} has an empty name; the engine uses its default shader"
        ),
        FindingKind::NoShaders { surface } => write!(
            f,
            "surface {surface} has no shaders; without a .skin the engine uses its default shader"
        ),
        FindingKind::TagNotOrthonormal { tag, frame, name } => write!(
            f,
            "tag {tag} '{name}' has an axis that is not orthonormal in frame {frame}; attached models are skewed or scaled"
        ),
        FindingKind::TagNameChanges { tag, frame } => write!(
            f,
            "tag {tag} has a different name in frame {frame} than in frame 0; lookups by name fail in that frame"
        ),
        FindingKind::LodFewerFrames {
            lod,
            frames,
            lod0_frames,
        } => write!(
            f,
            "LOD {lod} has {frames} frames but LOD 0 has {lod0_frames}; the engine checks frame numbers against LOD 0 and reads past LOD {lod}'s frames when it draws frames {frames} to {} at that LOD",
            lod0_frames.saturating_sub(1)
        ),
        FindingKind::TrailingBytes { count } => {
            write!(f, "{count} bytes after ofsEnd are ignored by the engine")
        }
        FindingKind::NonFinite { what, count, first } => write!(
            f,
            "{count} {what} entries hold a NaN or an infinity (first: {what} {first}); the engine culls and places with them (converted, they are 0)"
        ),
    }
}

idmodel_core::finding_kind!(FindingKind<'_>, write_message, {
    TooManyVerts => "too-many-verts",
    TooManyTriangles => "too-many-triangles",
    AboveDeclaredMax => "above-declared-max",
    SurfaceFrameCount => "surface-frame-count",
    DuplicateSurfaceName => "duplicate-surface-name",
    SurfaceRenamed => "surface-renamed",
    EmptyShaderName => "empty-shader-name",
    NoShaders => "no-shaders",
    TagNotOrthonormal => "tag-not-orthonormal",
    TagNameChanges => "tag-name-changes",
    LodFewerFrames => "lod-fewer-frames",
    TrailingBytes => "trailing-bytes",
    NonFinite => "non-finite",
});

fn orthonormal(axis: &[[f32; 3]; 3]) -> bool {
    let dot = |a: &[f32; 3], b: &[f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let near = |v: f32, want: f32| {
        let d = v - want;
        (-ORTHONORMAL_TOLERANCE..=ORTHONORMAL_TOLERANCE).contains(&d)
    };
    let [x, y, z] = axis;
    near(dot(x, x), 1.0)
        && near(dot(y, y), 1.0)
        && near(dot(z, z), 1.0)
        && near(dot(x, y), 0.0)
        && near(dot(x, z), 0.0)
        && near(dot(y, z), 0.0)
}

impl<'a> Md3<'a> {
    /// Reports, without allocating, what `engine` would do with this model; nothing for
    /// an engine that does not load MD3 (one not in [`ENGINES`]).
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use idmodel_md3::{Engine, FindingKind, Md3, Model};
    /// let bytes = idmodel_md3::write(&Model::example()).unwrap();
    /// let md3 = Md3::parse(&bytes).unwrap();
    /// let mut renamed = 0;
    /// md3.check(Engine::Ioq3, &mut |f| {
    ///     if let FindingKind::SurfaceRenamed { .. } = f.kind { renamed += 1 }
    /// });
    /// assert_eq!(renamed, 1); // "arm_l" becomes "arm"
    /// assert!(md3.findings(Engine::Doom3).is_empty()); // Doom 3 does not load MD3
    /// # }
    /// ```
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding<'a>)) {
        let (Some(draw_verts), Some(draw_triangles), Some(load_verts), Some(load_triangles)) = (
            max_verts(engine),
            max_triangles(engine),
            max_loaded_verts(engine),
            max_loaded_triangles(engine),
        ) else {
            return;
        };
        // Over the drawing limit: refused above the loading limit, else loaded but not
        // drawable (a hazard). The maximum given is the limit that was crossed.
        let over = |count: usize, draw: usize, load: usize| {
            if count > load {
                Some((load, Severity::Refused))
            } else if count > draw {
                Some((draw, Severity::Hazard))
            } else {
                None
            }
        };
        let mut emit = |kind, severity| sink(Finding::new(kind, severity, engine));
        let declared = |what, surface, count, max| FindingKind::AboveDeclaredMax {
            what,
            surface,
            count,
            max,
        };
        let header_frames = self.num_frames();
        if header_frames > MAX_FRAMES {
            emit(
                declared("MD3_MAX_FRAMES", None, header_frames, MAX_FRAMES),
                Severity::Warning,
            );
        }
        if self.num_tags() > MAX_TAGS {
            emit(
                declared("MD3_MAX_TAGS", None, self.num_tags(), MAX_TAGS),
                Severity::Warning,
            );
        }
        if self.num_surfaces() > MAX_SURFACES {
            emit(
                declared("MD3_MAX_SURFACES", None, self.num_surfaces(), MAX_SURFACES),
                Severity::Warning,
            );
        }
        for s in self.surfaces() {
            let i = s.index();
            if let Some((max, severity)) = over(s.num_verts(), draw_verts, load_verts) {
                let kind = FindingKind::TooManyVerts {
                    surface: i,
                    count: s.num_verts(),
                    max,
                };
                emit(kind, severity);
            }
            let tris = s.triangles().len();
            if let Some((max, severity)) = over(tris, draw_triangles, load_triangles) {
                let kind = FindingKind::TooManyTriangles {
                    surface: i,
                    count: tris,
                    max,
                };
                emit(kind, severity);
            }
            if s.num_verts() > MAX_VERTS {
                emit(
                    declared("MD3_MAX_VERTS", Some(i), s.num_verts(), MAX_VERTS),
                    Severity::Warning,
                );
            }
            if tris > MAX_TRIANGLES {
                emit(
                    declared("MD3_MAX_TRIANGLES", Some(i), tris, MAX_TRIANGLES),
                    Severity::Warning,
                );
            }
            if s.shaders().len() > MAX_SHADERS {
                emit(
                    declared("MD3_MAX_SHADERS", Some(i), s.shaders().len(), MAX_SHADERS),
                    Severity::Warning,
                );
            }
            if s.num_frames() != header_frames {
                let severity = if s.num_frames() < header_frames && s.num_verts() > 0 {
                    Severity::Hazard
                } else {
                    Severity::Warning
                };
                let kind = FindingKind::SurfaceFrameCount {
                    surface: i,
                    surface_frames: s.num_frames(),
                    header_frames,
                };
                emit(kind, severity);
            }
            let raw_name = s.name();
            let engine = s.engine_name();
            if engine.is_shortened(raw_name.as_bytes()) {
                let kind = FindingKind::SurfaceRenamed {
                    surface: i,
                    raw: raw_name,
                    engine,
                };
                emit(kind, Severity::Warning);
            }
            // Quadratic in the surface count: skipped for absurd counts (fuzzed files).
            let dup = if self.num_surfaces() <= DUPLICATE_CHECK_LIMIT {
                self.surfaces().take(i).find(|o| o.engine_name() == engine)
            } else {
                None
            };
            if let Some(first) = dup {
                let kind = FindingKind::DuplicateSurfaceName {
                    first: first.index(),
                    second: i,
                    name: engine,
                };
                emit(kind, Severity::Warning);
            }
            if s.shaders().is_empty() {
                emit(FindingKind::NoShaders { surface: i }, Severity::Warning);
            }
            for (k, sh) in s.shaders().iter().enumerate() {
                if sh.name().is_empty() {
                    let kind = FindingKind::EmptyShaderName {
                        surface: i,
                        shader: k,
                    };
                    emit(kind, Severity::Warning);
                }
            }
        }
        let first_names = self.frame_tags(0).unwrap_or(&[]);
        for (t, first) in first_names.iter().enumerate() {
            let tag_in = |frame: usize| {
                frame
                    .checked_mul(self.num_tags())
                    .and_then(|s| s.checked_add(t))
                    .and_then(|k| self.all_tags().get(k))
            };
            if let Some(frame) = (0..header_frames)
                .find(|&fr| tag_in(fr).is_some_and(|tag| !orthonormal(&tag.axis())))
            {
                let kind = FindingKind::TagNotOrthonormal {
                    tag: t,
                    frame,
                    name: first.name(),
                };
                emit(kind, Severity::Warning);
            }
            if let Some(frame) = (0..header_frames)
                .find(|&fr| tag_in(fr).is_some_and(|tag| tag.name() != first.name()))
            {
                emit(
                    FindingKind::TagNameChanges { tag: t, frame },
                    Severity::Hazard,
                );
            }
        }
        let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
        // The first entry `ok` calls not finite, and how many there are, as one finding.
        let mut non_finite = |what, ok: &mut dyn Iterator<Item = bool>| {
            let mut bad = ok.enumerate().filter(|&(_, ok)| !ok);
            if let Some((first, _)) = bad.next() {
                let count = bad.count().saturating_add(1);
                emit(
                    FindingKind::NonFinite { what, count, first },
                    Severity::Hazard,
                );
            }
        };
        non_finite(
            "frame",
            &mut self.frames().iter().map(|fr| {
                finite(&fr.mins())
                    && finite(&fr.maxs())
                    && finite(&fr.local_origin())
                    && fr.radius().is_finite()
            }),
        );
        non_finite(
            "tag",
            &mut self.all_tags().iter().map(|t| {
                let a = t.axis();
                finite(&t.origin()) && finite(&a[0]) && finite(&a[1]) && finite(&a[2])
            }),
        );
        let trailing = self.trailing_bytes().len();
        if trailing > 0 {
            emit(
                FindingKind::TrailingBytes { count: trailing },
                Severity::Warning,
            );
        }
    }

    /// [`check`](Self::check) collected into a `Vec`.
    #[cfg(feature = "alloc")]
    pub fn findings(&self, engine: Engine) -> alloc::vec::Vec<Finding<'a>> {
        let mut out = alloc::vec::Vec::new();
        self.check(engine, &mut |f| out.push(f));
        out
    }
}

/// Reports, without allocating, the LODs of one model that have fewer frames than LOD 0
/// ([`FindingKind::LodFewerFrames`], a [`Severity::Hazard`]); nothing for an engine not
/// in [`ENGINES`].
///
/// `frames[k]` is the `numFrames` of LOD `k` as the caller parsed it ([`Md3::num_frames`]
/// of `x.md3`, `x_1.md3`, `x_2.md3`, named by [`lod_name`](crate::lod_name)), `None` when
/// that file is missing. Entries after [`MAX_LODS`] are ignored (the engines load no
/// more), and without LOD 0 there is nothing to compare.
///
/// Why it is a hazard: both engines' `R_AddMD3Surfaces` (tr_mesh.c) check the entity's
/// frame numbers against **LOD 0**'s `numFrames`, then cull and draw the LOD that
/// `R_ComputeLOD` picked with those frame numbers, reading past the end of a shorter
/// LOD's frames and vertices. A LOD with more frames than LOD 0 is harmless (its extra
/// frames are never shown) and reported by nothing.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use idmodel_md3::{Engine, FindingKind, Md3, Model, Severity, check_lod_frames};
/// let mut short = Model::example();
/// short.frames.truncate(2);
/// for s in &mut short.surfaces {
///     s.frames.truncate(2);
/// }
/// short.tags.truncate(2);
/// let lod0 = idmodel_md3::write(&Model::example()).unwrap();
/// let lod1 = idmodel_md3::write(&short).unwrap();
/// let (lod0, lod1) = (Md3::parse(&lod0).unwrap(), Md3::parse(&lod1).unwrap());
/// // LOD 0 and x_1.md3 exist, x_2.md3 does not.
/// let frames = [Some(lod0.num_frames()), Some(lod1.num_frames()), None];
/// let mut found = Vec::new();
/// check_lod_frames(Engine::Ioq3, &frames, &mut |f| found.push(f));
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].severity, Severity::Hazard);
/// assert_eq!(
///     found[0].kind,
///     FindingKind::LodFewerFrames { lod: 1, frames: 2, lod0_frames: 3 }
/// );
/// // Equal counts say nothing; nor does an engine that does not load MD3.
/// check_lod_frames(Engine::Quake3, &[Some(3), Some(3), Some(3)], &mut |_| unreachable!());
/// check_lod_frames(Engine::Doom3, &frames, &mut |_| unreachable!());
/// # }
/// ```
pub fn check_lod_frames<'a>(
    engine: Engine,
    frames: &[Option<usize>],
    sink: &mut dyn FnMut(Finding<'a>),
) {
    if !ENGINES.contains(&engine) {
        return;
    }
    let mut lods = frames.iter().copied().take(MAX_LODS).enumerate();
    let Some((_, Some(lod0_frames))) = lods.next() else {
        return;
    };
    for (lod, count) in lods {
        if let Some(count) = count.filter(|&n| n < lod0_frames) {
            let kind = FindingKind::LodFewerFrames {
                lod,
                frames: count,
                lod0_frames,
            };
            sink(Finding::new(kind, Severity::Hazard, engine));
        }
    }
}

/// [`check_lod_frames`] collected into a `Vec`.
///
/// ```
/// use idmodel_md3::{Engine, lod_frame_findings};
/// // OpenArena's gargoyle: lower.md3 has 215 frames, lower_1 214, lower_2 210.
/// let found = lod_frame_findings(Engine::Quake3, &[Some(215), Some(214), Some(210)]);
/// assert_eq!(found.len(), 2);
/// assert!(found[1].to_string().contains("LOD 2 has 210 frames but LOD 0 has 215"));
/// ```
#[cfg(feature = "alloc")]
pub fn lod_frame_findings(
    engine: Engine,
    frames: &[Option<usize>],
) -> alloc::vec::Vec<Finding<'static>> {
    let mut out = alloc::vec::Vec::new();
    check_lod_frames(engine, frames, &mut |f| out.push(f));
    out
}
