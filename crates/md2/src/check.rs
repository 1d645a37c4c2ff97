//! Engine findings: what Quake II would refuse, overflow, or render differently. The
//! [`Severity`] and [`Engine`] are idmodel-core's, shared by every format.

use core::fmt;

use idmodel_core::findings::{Engine, Found, Severity};

use idmodel_core::anorms::NUM_VERTEX_NORMALS;

use crate::raw;
use crate::view::{FRAME_HEADER_SIZE, HEADER_SIZE, Md2};

/// `MAX_VERTS` (qfiles.h): Quake II refuses more vertices ("has too many vertices").
pub const MAX_VERTS: usize = 2048;
/// `MAX_TRIANGLES` (qfiles.h): not checked by the loader.
pub const MAX_TRIANGLES: usize = 4096;
/// `MAX_FRAMES` (qfiles.h): not checked by the loader.
pub const MAX_FRAMES: usize = 512;
/// `MAX_MD2SKINS` (qfiles.h): not checked; `mod->skins[32]` overflows beyond it.
pub const MAX_MD2SKINS: usize = 32;
/// `MAX_LBM_HEIGHT` (ref_gl/gl_local.h, ref_soft/r_local.h): taller skins are refused.
pub const MAX_LBM_HEIGHT: i32 = 480;
/// The hunk Quake II reserves for one alias model (`Hunk_Begin(0x200000)`); an `ofs_end`
/// beyond it is a fatal "Hunk_Alloc overflow".
pub const MODEL_HUNK_SIZE: usize = 0x20_0000;

/// The engines that load MD2: [`Md2::check`] reports nothing for any other.
pub const ENGINES: &[Engine] = &[Engine::Quake2];

/// What was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FindingKind {
    /// `num_xyz > MAX_VERTS`: "has too many vertices".
    TooManyVertices {
        /// `num_xyz`.
        count: usize,
    },
    /// `num_tris > MAX_TRIANGLES` (not checked by the engine).
    TooManyTriangles {
        /// `num_tris`.
        count: usize,
    },
    /// `num_frames > MAX_FRAMES` (not checked by the engine).
    TooManyFrames {
        /// `num_frames`.
        count: usize,
    },
    /// `num_skins > MAX_MD2SKINS`: the engine's skin array overflows.
    TooManySkins {
        /// `num_skins`.
        count: usize,
    },
    /// `skinheight > MAX_LBM_HEIGHT`: "has a skin taller than 480".
    SkinTooTall {
        /// `skinheight`.
        height: i32,
    },
    /// `skinwidth` or `skinheight` is not positive: UVs from st divide by it.
    BadSkinSize {
        /// `skinwidth`.
        width: i32,
        /// `skinheight`.
        height: i32,
    },
    /// A skin name fills its 64 bytes with no NUL: the engine reads on into the next field.
    UnterminatedSkinName {
        /// Which skin.
        skin: usize,
    },
    /// `ofs_end` exceeds the 2 MiB hunk Quake II reserves for a model.
    HunkOverflow {
        /// `ofs_end`.
        ofs_end: i64,
    },
    /// A block ends past `ofs_end`: the engine copies it past the buffer it allocated.
    BlockPastEnd {
        /// Which block (`"frames"`, …).
        block: &'static str,
        /// Where the block ends.
        block_end: u64,
        /// `ofs_end`.
        ofs_end: i64,
    },
    /// `num_glcmds = 0`: the GL renderer still walks a command list at `ofs_glcmds` and
    /// reads whatever words are there (the header when it is 0).
    NoGlCommands {
        /// `ofs_glcmds`.
        ofs_glcmds: i64,
    },
    /// The GL command list is unreadable (see [`Md2::gl_commands_error`]): the GL renderer
    /// reads out of bounds.
    GlCommandsInvalid {
        /// What is wrong, and where.
        error: idmodel_core::Error,
        /// The list is valid when read as `index, s, t` per vertex (a UFO:AI exporter bug).
        swapped_layout: bool,
    },
    /// The GL commands draw other triangles than the triangle list: the GL and software
    /// renderers show different meshes.
    GlMismatch {
        /// Triangles the GL commands draw.
        gl_triangles: usize,
        /// Triangles in the triangle list.
        triangles: usize,
        /// GL triangles (by vertex indices, any rotation) that the list lacks, counted with
        /// multiplicity; 0 when only the counts differ through duplicates.
        unmatched: usize,
    },
    /// `lightnormalindex` beyond the 162-entry table: the software renderer reads past
    /// `r_avertexnormals` (GL's dot table is padded to 256 and survives).
    NormalIndexOutOfRange {
        /// How many vertices over all frames.
        count: usize,
        /// The first frame with one.
        frame: usize,
        /// The first such vertex in that frame.
        vertex: usize,
        /// Its index.
        index: u8,
    },
    /// `framesize` is larger than `40 + 4·num_xyz` (the engine skips the padding).
    FramePadding {
        /// `framesize`.
        framesize: usize,
        /// The natural size.
        natural: usize,
    },
    /// Frames whose `scale` or `translate` holds a NaN or an infinity: their vertices
    /// are not finite, and the engine draws them nowhere or across the screen.
    NonFiniteFrame {
        /// How many frames.
        count: usize,
        /// The first one.
        frame: usize,
    },
    /// Every vertex of every frame uses the same `lightnormalindex` (degenerate normals,
    /// as exporters for UFO:AI write them: that engine computes its own): Quake II
    /// lights the model as one flat direction, which is right only for a flat model.
    OneNormalIndex {
        /// The one index.
        index: u8,
    },
}

/// One engine finding.
pub type Finding = Found<FindingKind>;

fn write_message(found: &Found<FindingKind>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match found.kind {
        FindingKind::TooManyVertices { count } => write!(
            f,
            "{count} vertices; Quake II refuses more than {MAX_VERTS} (\"has too many vertices\")"
        ),
        FindingKind::TooManyTriangles { count } => write!(
            f,
            "{count} triangles, above MAX_TRIANGLES {MAX_TRIANGLES}; the engine does not check and its tools' arrays overflow"
        ),
        FindingKind::TooManyFrames { count } => write!(
            f,
            "{count} frames, above MAX_FRAMES {MAX_FRAMES}; the engine does not check"
        ),
        FindingKind::TooManySkins { count } => write!(
            f,
            "{count} skins; Quake II keeps {MAX_MD2SKINS} and writes the rest past its skin array"
        ),
        FindingKind::SkinTooTall { height } => write!(
            f,
            "skin height {height}; Quake II refuses skins taller than {MAX_LBM_HEIGHT}"
        ),
        FindingKind::BadSkinSize { width, height } => write!(
            f,
            "skin size {width}x{height} is not positive; texture coordinates divide by it"
        ),
        FindingKind::UnterminatedSkinName { skin } => write!(
            f,
            "skin name {skin} fills all 64 bytes with no NUL; the engine reads on into the next name"
        ),
        FindingKind::HunkOverflow { ofs_end } => write!(
            f,
            "ofs_end {ofs_end} exceeds the {MODEL_HUNK_SIZE}-byte hunk Quake II reserves for a model (fatal \"Hunk_Alloc overflow\")"
        ),
        FindingKind::BlockPastEnd {
            block,
            block_end,
            ofs_end,
        } => write!(
            f,
            "the {block} end at byte {block_end}, past ofs_end {ofs_end}; the engine copies them past the buffer it allocated"
        ),
        FindingKind::NoGlCommands { ofs_glcmds } => write!(
            f,
            "no GL commands; Quake II's GL renderer still reads a command list at byte {ofs_glcmds} and draws garbage or crashes (ports that build their own lists are fine)"
        ),
        FindingKind::GlCommandsInvalid {
            error,
            swapped_layout,
        } => {
            write!(
                f,
                "the GL command list is unreadable ({error}); Quake II's GL renderer reads out of bounds"
            )?;
            if swapped_layout {
                f.write_str(" (its vertices are written as index, s, t instead of s, t, index)")?;
            }
            Ok(())
        }
        FindingKind::GlMismatch {
            gl_triangles,
            triangles,
            unmatched,
        } => write!(
            f,
            "the GL commands draw {gl_triangles} triangles and the triangle list has {triangles} ({unmatched} GL triangles not in the list); the GL and software renderers show different meshes"
        ),
        FindingKind::NormalIndexOutOfRange {
            count,
            frame,
            vertex,
            index,
        } => write!(
            f,
            "{count} vertex normals index past the 162-entry table (first: frame {frame}, vertex {vertex}, index {index}); the software renderer reads out of bounds"
        ),
        FindingKind::FramePadding { framesize, natural } => write!(
            f,
            "framesize {framesize} is larger than the natural {natural}; the padding is skipped"
        ),
        FindingKind::NonFiniteFrame { count, frame } => write!(
            f,
            "{count} frames have a non-finite scale or translate (first: frame {frame}); their vertices are NaN or infinite (converted, they are 0)"
        ),
        FindingKind::OneNormalIndex { index } => write!(
            f,
            "every vertex uses normal index {index}: one direction for the whole model, right only if it is flat (Quake II lights it so; UFO:AI computes its own normals; converted, smooth normals are computed from the triangles unless --keep-normals)"
        ),
    }
}

idmodel_core::finding_kind!(FindingKind, write_message, {
    TooManyVertices => "too-many-vertices",
    TooManyTriangles => "too-many-triangles",
    TooManyFrames => "too-many-frames",
    TooManySkins => "too-many-skins",
    SkinTooTall => "skin-too-tall",
    BadSkinSize => "bad-skin-size",
    UnterminatedSkinName => "unterminated-skin-name",
    HunkOverflow => "hunk-overflow",
    BlockPastEnd => "block-past-end",
    NoGlCommands => "no-gl-commands",
    GlCommandsInvalid => "gl-commands-invalid",
    GlMismatch => "gl-mismatch",
    NormalIndexOutOfRange => "normal-index-out-of-range",
    FramePadding => "frame-padding",
    NonFiniteFrame => "non-finite-frame",
    OneNormalIndex => "one-normal-index",
});

/// A triangle's xyz indices as the smallest of its three rotations (winding kept; also
/// right for degenerate triangles with a repeated index).
fn canonical(t: [i32; 3]) -> [i32; 3] {
    let [a, b, c] = t;
    let r1 = [a, b, c];
    let r2 = [b, c, a];
    let r3 = [c, a, b];
    r1.min(r2).min(r3)
}

impl Md2<'_> {
    /// Reports what `engine` would make of this model, without allocating; nothing for
    /// an engine that does not load MD2 (one not in [`ENGINES`]).
    ///
    /// For [`Engine::Quake2`]: more than 2048 vertices or a skin taller than 480
    /// (refused), an `ofs_end` over the 2 MiB model hunk (refused), more than 4096
    /// triangles / 512 frames / 32 skins (unchecked overflows), blocks past `ofs_end`,
    /// no GL commands, GL commands that disagree with the triangle list (compared as
    /// multisets of vertex-index triangles, any rotation, same winding), normal indices
    /// past the table, odd skin sizes and names, frame padding.
    ///
    /// The GL comparison is linear (an order-independent fingerprint of both triangle
    /// multisets); only when they differ are unmatched GL triangles counted, within a
    /// budget of 2^24 comparisons. Nothing allocates.
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use idmodel_md2::{Engine, FindingKind, Md2, Model};
    /// let mut model = Model::example();
    /// model.gl_commands = false;
    /// let bytes = idmodel_md2::write(&model).unwrap();
    /// let md2 = Md2::parse(&bytes).unwrap();
    /// let mut no_gl = 0;
    /// md2.check(Engine::Quake2, &mut |f| {
    ///     if let FindingKind::NoGlCommands { .. } = f.kind { no_gl += 1 }
    /// });
    /// assert_eq!(no_gl, 1);
    /// assert!(md2.findings(Engine::Quake3).is_empty()); // Quake III does not load MD2
    /// # }
    /// ```
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding)) {
        if !ENGINES.contains(&engine) {
            return;
        }
        let mut emit = |severity: Severity, kind: FindingKind| {
            sink(Finding::new(kind, severity, engine));
        };
        let nverts = self.vertex_count();
        if nverts > MAX_VERTS {
            emit(
                Severity::Refused,
                FindingKind::TooManyVertices { count: nverts },
            );
        }
        let height = self.skin_height();
        if height > MAX_LBM_HEIGHT {
            emit(Severity::Refused, FindingKind::SkinTooTall { height });
        }
        let ofs_end = self.header().ofs_end.get();
        let ofs_end_u = usize::try_from(ofs_end).unwrap_or(0);
        if ofs_end_u > MODEL_HUNK_SIZE {
            emit(
                Severity::Refused,
                FindingKind::HunkOverflow {
                    ofs_end: i64::from(ofs_end),
                },
            );
        }
        let ntris = self.triangles().len();
        if ntris > MAX_TRIANGLES {
            emit(
                Severity::Hazard,
                FindingKind::TooManyTriangles { count: ntris },
            );
        }
        if self.frame_count() > MAX_FRAMES {
            emit(
                Severity::Hazard,
                FindingKind::TooManyFrames {
                    count: self.frame_count(),
                },
            );
        }
        let nskins = self.skin_fields().len();
        if nskins > MAX_MD2SKINS {
            emit(
                Severity::Hazard,
                FindingKind::TooManySkins { count: nskins },
            );
        }
        if self.skin_width() <= 0 || height <= 0 {
            emit(
                Severity::Warning,
                FindingKind::BadSkinSize {
                    width: self.skin_width(),
                    height,
                },
            );
        }
        for (skin, field) in self.skin_fields().iter().enumerate() {
            if !field.name.contains(&0) {
                emit(Severity::Hazard, FindingKind::UnterminatedSkinName { skin });
            }
        }
        self.check_blocks(&mut emit);
        if let Some(error) = self.gl_commands_error() {
            emit(
                Severity::Hazard,
                FindingKind::GlCommandsInvalid {
                    error,
                    swapped_layout: self.gl_commands_look_swapped(),
                },
            );
        } else if self.has_gl_commands() {
            self.check_gl(&mut emit);
        } else {
            emit(
                Severity::Hazard,
                FindingKind::NoGlCommands {
                    ofs_glcmds: i64::from(self.header().ofs_glcmds.get()),
                },
            );
        }
        self.check_normals(&mut emit);
        if let Some(index) = self.single_normal_index() {
            emit(Severity::Warning, FindingKind::OneNormalIndex { index });
        }
        let natural = nverts
            .saturating_mul(size_of::<raw::TriVertex>())
            .saturating_add(FRAME_HEADER_SIZE);
        if self.frame_size() > natural {
            emit(
                Severity::Warning,
                FindingKind::FramePadding {
                    framesize: self.frame_size(),
                    natural,
                },
            );
        }
        let mut non_finite = self.frames().enumerate().filter(|(_, fr)| {
            !fr.scale()
                .iter()
                .chain(&fr.translate())
                .all(|x| x.is_finite())
        });
        if let Some((frame, _)) = non_finite.next() {
            emit(
                Severity::Hazard,
                FindingKind::NonFiniteFrame {
                    count: non_finite.count().saturating_add(1),
                    frame,
                },
            );
        }
    }

    fn check_blocks(&self, emit: &mut impl FnMut(Severity, FindingKind)) {
        let h = self.header();
        let ofs_end = h.ofs_end.get();
        let end = u64::try_from(ofs_end).unwrap_or(0);
        let size =
            |n: usize, each: usize| u64::try_from(n.saturating_mul(each)).unwrap_or(u64::MAX);
        let blocks = [
            ("header", 0, u64::try_from(HEADER_SIZE).unwrap_or(0)),
            (
                "skin names",
                h.ofs_skins.get(),
                size(self.skin_fields().len(), 64),
            ),
            ("st", h.ofs_st.get(), size(self.st().len(), 4)),
            (
                "triangles",
                h.ofs_tris.get(),
                size(self.triangles().len(), 12),
            ),
            (
                "frames",
                h.ofs_frames.get(),
                size(self.frame_count(), self.frame_size()),
            ),
            (
                "GL commands",
                h.ofs_glcmds.get(),
                size(self.gl_command_words(), 4),
            ),
        ];
        for (block, ofs, len) in blocks {
            if len == 0 {
                continue;
            }
            let block_end = u64::try_from(ofs).unwrap_or(0).saturating_add(len);
            if block_end > end {
                emit(
                    Severity::Hazard,
                    FindingKind::BlockPastEnd {
                        block,
                        block_end,
                        ofs_end: i64::from(ofs_end),
                    },
                );
            }
        }
    }

    fn check_gl(&self, emit: &mut impl FnMut(Severity, FindingKind)) {
        let tris = self.triangles();
        let list_key = |t: &raw::Triangle| {
            canonical([
                i32::from(t.index_xyz[0].get()),
                i32::from(t.index_xyz[1].get()),
                i32::from(t.index_xyz[2].get()),
            ])
        };
        let gl_key = |t: [&raw::GlVertex; 3]| {
            canonical([
                t[0].index_xyz.get(),
                t[1].index_xyz.get(),
                t[2].index_xyz.get(),
            ])
        };
        let gl_count = self.gl_triangle_count();
        // Multiset equality in linear time: an order-independent fingerprint (wrapping sum
        // of a 64-bit mix of each canonical triangle) of both lists. Equal multisets give
        // equal sums; different ones collide with probability about 2^-64.
        let fingerprint = |k: [i32; 3]| {
            let w = |x: i32| u64::from(u32::from_ne_bytes(x.to_ne_bytes()));
            mix64(
                w(k[0]) ^ w(k[1]).rotate_left(21) ^ w(k[2]).rotate_left(42) ^ 0x9e37_79b9_7f4a_7c15,
            )
        };
        let list_sum = tris
            .iter()
            .fold(0u64, |acc, t| acc.wrapping_add(fingerprint(list_key(t))));
        let gl_sum = self
            .gl_triangles()
            .fold(0u64, |acc, t| acc.wrapping_add(fingerprint(gl_key(t))));
        let differ = gl_count != tris.len() || list_sum != gl_sum;
        // Only when they differ: count GL triangles that are not in the list at all, with
        // at most 2^24 comparisons (every model within Quake II's 4096-triangle limit is
        // counted in full; past that, the count is a lower bound).
        let mut unmatched = 0usize;
        if differ {
            let mut budget: usize = 1 << 24;
            for g in self.gl_triangles() {
                let Some(left) = budget.checked_sub(tris.len()) else {
                    break;
                };
                budget = left;
                let k = gl_key(g);
                if !tris.iter().any(|t| list_key(t) == k) {
                    unmatched = unmatched.saturating_add(1);
                }
            }
        }
        if differ {
            emit(
                Severity::Hazard,
                FindingKind::GlMismatch {
                    gl_triangles: gl_count,
                    triangles: tris.len(),
                    unmatched,
                },
            );
        }
    }

    /// `Some(index)` when the model has at least two vertices and every vertex of every
    /// frame uses normal index `index` (degenerate normals, as exporters for UFO:AI
    /// write them, since that engine computes its own); `None` otherwise.
    ///
    /// ```
    /// let bytes = idmodel_md2::write(&idmodel_md2::Model::example())?;
    /// let md2 = idmodel_md2::Md2::parse(&bytes)?;
    /// assert_eq!(md2.single_normal_index(), None); // the example uses four indices
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn single_normal_index(&self) -> Option<u8> {
        if self.vertex_count() < 2 {
            return None;
        }
        let mut frames = self.frames();
        let index = frames.next()?.vertices().first()?.light_normal_index;
        let same = |f: crate::Frame<'_>| f.vertices().iter().all(|v| v.light_normal_index == index);
        (same(self.frame(0)?) && frames.all(same)).then_some(index)
    }

    fn check_normals(&self, emit: &mut impl FnMut(Severity, FindingKind)) {
        let limit = u8::try_from(NUM_VERTEX_NORMALS).unwrap_or(u8::MAX);
        let mut count = 0usize;
        let mut first = None;
        for (fi, frame) in self.frames().enumerate() {
            for (vi, v) in frame.vertices().iter().enumerate() {
                if v.light_normal_index >= limit {
                    count = count.saturating_add(1);
                    if first.is_none() {
                        first = Some((fi, vi, v.light_normal_index));
                    }
                }
            }
        }
        if let Some((frame, vertex, index)) = first {
            emit(
                Severity::Hazard,
                FindingKind::NormalIndexOutOfRange {
                    count,
                    frame,
                    vertex,
                    index,
                },
            );
        }
    }

    /// [`Md2::check`] collected into a vector.
    #[cfg(feature = "alloc")]
    pub fn findings(&self, engine: Engine) -> alloc::vec::Vec<Finding> {
        let mut out = alloc::vec::Vec::new();
        self.check(engine, &mut |f| out.push(f));
        out
    }
}

/// SplitMix64's finaliser: a cheap, well-mixed 64-bit hash.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
