//! Findings: what each engine would do with a file that parses (FORMATS.md §3.2).
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
/// `SHADER_MAX_VERTEXES`: ioq3 refuses `numVerts >= 1000`, Quake III `> 1000`.
pub const SHADER_MAX_VERTEXES: usize = 1000;
/// `SHADER_MAX_INDEXES`: ioq3 refuses `3·numTriangles >= 6000`, Quake III `> 6000`.
pub const SHADER_MAX_INDEXES: usize = 6000;

/// Tolerance for [`FindingKind::TagNotOrthonormal`]: row lengths within 1 ± this, and
/// row dot products within ± this.
pub const ORTHONORMAL_TOLERANCE: f32 = 1e-3;

/// Above this many surfaces the duplicate-name check is skipped (it is quadratic).
pub const DUPLICATE_CHECK_LIMIT: usize = 1024;

/// The engines that load MD3, in CLI order: [`Md3::check`], [`Skin::check`](crate::Skin::check)
/// and [`AnimationCfg::check`](crate::AnimationCfg::check) report nothing for any other.
pub const ENGINES: &[Engine] = &[Engine::Quake3, Engine::Ioq3];

/// The most vertices per surface `engine` loads (`None` for an engine not in [`ENGINES`]).
pub const fn max_verts(engine: Engine) -> Option<usize> {
    match engine {
        Engine::Quake3 => Some(SHADER_MAX_VERTEXES),
        Engine::Ioq3 => Some(SHADER_MAX_VERTEXES.saturating_sub(1)),
        _ => None,
    }
}

/// The most triangles per surface `engine` loads (`None` for an engine not in
/// [`ENGINES`]).
pub const fn max_triangles(engine: Engine) -> Option<usize> {
    match engine {
        Engine::Quake3 => Some(SHADER_MAX_INDEXES / 3),
        Engine::Ioq3 => Some(SHADER_MAX_INDEXES / 3 - 1),
        _ => None,
    }
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FindingKind<'a> {
    /// A surface has more vertices than the engine loads.
    TooManyVerts {
        /// Surface index.
        surface: usize,
        /// Its `numVerts`.
        count: usize,
        /// The engine's maximum.
        max: usize,
    },
    /// A surface has more triangles than the engine loads.
    TooManyTriangles {
        /// Surface index.
        surface: usize,
        /// Its `numTriangles`.
        count: usize,
        /// The engine's maximum.
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

/// A surface over a per-surface limit: ioquake3 quietly refuses the model, the others
/// drop to the console.
fn per_surface_limit(
    f: &mut fmt::Formatter<'_>,
    engine: Engine,
    surface: usize,
    count: usize,
    what: &str,
    max: usize,
) -> fmt::Result {
    let p = engine.display_name();
    let then = match engine {
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
        } => per_surface_limit(f, found.engine, surface, count, "vertices", max),
        FindingKind::TooManyTriangles {
            surface,
            count,
            max,
        } => per_surface_limit(f, found.engine, surface, count, "triangles", max),
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
        let (Some(max_verts), Some(max_triangles)) = (max_verts(engine), max_triangles(engine))
        else {
            return;
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
            if s.num_verts() > max_verts {
                let kind = FindingKind::TooManyVerts {
                    surface: i,
                    count: s.num_verts(),
                    max: max_verts,
                };
                emit(kind, Severity::Refused);
            }
            let tris = s.triangles().len();
            if tris > max_triangles {
                let kind = FindingKind::TooManyTriangles {
                    surface: i,
                    count: tris,
                    max: max_triangles,
                };
                emit(kind, Severity::Refused);
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
