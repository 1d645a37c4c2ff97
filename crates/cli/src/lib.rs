//! The `idmodel` command: inspect, check, convert and render id Software models.
//!
//! This library is the whole command; `src/main.rs` only calls [`main_entry`]. The
//! [`info_report`] and [`check_report`] functions are the `info` and `check` paths
//! without the file system, for fuzzing and tests. **It is not a library API**: its
//! items may change in any release (versions follow the command's behaviour). To convert
//! from a program, use `idmodel-convert`, the call this command makes.
//!
//! Exit status: 0 success; 1 a refused file, engine findings at or above
//! `check --fail-on` (default `hazard`) or a failed conversion;
//! 2 a usage error or a refusal to write (an output that is an input, an existing side
//! file, …: nothing the user has is ever lost). Every error is one line naming the file, what is wrong and where.
//! See `crates/cli/README.md` for the commands and the `info --json` schema.
#![forbid(unsafe_code)]
// A std binary: `std::` paths are the natural ones here (core/alloc re-exports buy a
// command-line tool nothing). The panic-freedom lints stay on.
#![allow(clippy::std_instead_of_core, clippy::std_instead_of_alloc)]
// Unit tests (`#[cfg(test)] mod tests` in each module) may index, unwrap and compute
// freely: a panic there is a failed assertion. Said once here; the library build keeps
// every lint.
#![cfg_attr(
    test,
    allow(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::as_conversions,
        clippy::unwrap_used
    )
)]

mod check;
mod commands;
mod output;
mod usage;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use idmodel_scene::render;

pub use idmodel_convert::Engine;

/// `check --engine`: a core [`Engine`] as a clap value (help text per engine).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EngineArg(Engine);

impl ValueEnum for EngineArg {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            EngineArg(Engine::WinQuake),
            EngineArg(Engine::GlQuake),
            EngineArg(Engine::QuakeSpasm),
            EngineArg(Engine::Quake2),
            EngineArg(Engine::Quake3),
            EngineArg(Engine::Ioq3),
            EngineArg(Engine::Doom3),
        ]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let help = match self.0 {
            Engine::WinQuake => "WinQuake (software renderer)",
            Engine::Quake2 => "Quake II (ref_soft and ref_gl)",
            Engine::Quake3 => "Quake III Arena",
            Engine::Doom3 => "Doom 3 (and dhewm3)",
            e => e.display_name(),
        };
        Some(clap::builder::PossibleValue::new(self.0.name()).help(help))
    }
}

/// Inspect, check, convert and render Quake MDL, Quake II MD2, Quake III MD3 and Doom 3
/// MD5 models.
#[derive(Debug, Parser)]
#[command(name = "idmodel", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Tell what a file is and what it holds.
    Info {
        /// The model file, a Quake III player folder, or a side file (.skin,
        /// animation.cfg, .shader, .mtr, .anm, md5.cfg/md3.cfg); an archive (.pak, .pk3, .pk4) lists what it
        /// holds; ARCHIVE:ENTRY names one entry (a real file named so wins).
        file: PathBuf,
        /// Print one JSON object (schema in the README) instead of text.
        #[arg(long)]
        json: bool,
        /// A game folder or archive (.pak, .pk3, .pk4) to find the model's files in, below
        /// the model's own game root; repeatable, a later one overrides an earlier.
        #[arg(long = "game", value_name = "DIR|ARCHIVE")]
        game: Vec<PathBuf>,
    },
    /// List what the engines that load the files or folders refuse, mishandle or warn
    /// about; exit 1 at --fail-on (a CI gate).
    #[command(
        after_help = "Exit status: 0 nothing at or above --fail-on; 1 a finding at or above it, or a file that cannot be read or parsed; 2 a usage error."
    )]
    Check {
        /// Model files, folders to check every model under (recursively), archives
        /// (.pak, .pk3, .pk4) to check every model inside, or ARCHIVE:ENTRY.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// A game folder or archive (.pak, .pk3, .pk4) to find the model's files in, below
        /// the model's own game root; repeatable, a later one overrides an earlier.
        #[arg(long = "game", value_name = "DIR|ARCHIVE")]
        game: Vec<PathBuf>,
        /// Only this engine's profile.
        #[arg(long, value_enum)]
        engine: Option<EngineArg>,
        /// The mildest severity that fails the check (exit 1); milder findings are
        /// printed and exit 0.
        #[arg(long, value_enum, value_name = "SEVERITY", default_value = "hazard")]
        fail_on: FailOn,
        /// Print one JSON object per finding per line (JSON Lines; schema in the README);
        /// the summary goes to stderr.
        #[arg(long)]
        json: bool,
        /// Let findings of this code pass the gate (still printed), e.g. `no-gl-commands`
        /// for MD2s made for an engine that builds its own GL commands; repeatable.
        #[arg(long, value_name = "CODE")]
        allow: Vec<String>,
    },
    /// Convert a model (or every model under a folder or in an archive) to glTF 2.0 or
    /// OBJ, or a glTF/OBJ back to MD3, MD2, MDL or md5.
    Convert(ConvertArgs),
    /// Draw a picture of the model with a small software renderer (a still, an animated
    /// PNG of a clip or a turntable, or a contact sheet of a folder or archive).
    Render {
        /// The model file, a Quake III player folder, or ARCHIVE:ENTRY; a folder or an
        /// archive (.pak, .pk3, .pk4) draws a contact sheet: a thumbnail of every model
        /// in it (at most 400) with its file name under it.
        file: PathBuf,
        /// The PNG file to write.
        #[arg(short, long)]
        output: PathBuf,
        /// The frame to draw (default 0, a Quake III player standing idle; md5mesh: bind
        /// pose).
        #[arg(long, value_name = "N")]
        frame: Option<usize>,
        /// Draw the first frame of this animation clip (with --animate: all its frames).
        #[arg(long, value_name = "NAME")]
        clip: Option<String>,
        /// The skin: Quake III <part>_NAME.skin (default: default); MD2/MDL: skin index.
        #[arg(long, value_name = "NAME")]
        skin: Option<String>,
        /// md5anim to pose an md5mesh with (with --frame).
        #[arg(long = "anim", value_name = "A.md5anim")]
        anims: Vec<PathBuf>,
        /// Picture size (default 512x512); for a contact sheet, the size of one thumbnail
        /// (default 128x128).
        #[arg(long, value_name = "WxH", value_parser = parse_size)]
        size: Option<(u32, u32)>,
        /// Background colour, RRGGBB or RRGGBBAA hex.
        #[arg(long, value_name = "HEX", default_value = "303038", value_parser = parse_colour)]
        background: [u8; 4],
        /// Replace the output even when it is read-only. Never an input.
        #[arg(long)]
        force: bool,
        /// Draw untextured (light grey), without reading any image.
        #[arg(long)]
        no_textures: bool,
        /// MD2: keep the file's normals even when every vertex uses one normal index
        /// (default: smooth normals computed from the triangles).
        #[arg(long)]
        keep_normals: bool,
        /// A game folder or archive (.pak, .pk3, .pk4) to find the model's files in, below
        /// the model's own game root; repeatable, a later one overrides an earlier.
        #[arg(long = "game", value_name = "DIR|ARCHIVE")]
        game: Vec<PathBuf>,
        /// Write an animated PNG (APNG) of every frame of the --clip (or of the whole
        /// model) at the clip's rate, framed alike so the model does not jump; at most
        /// 1000 frames.
        #[arg(long, conflicts_with_all = ["frame", "turntable"])]
        animate: bool,
        /// Write an animated PNG of N views turning once about the up axis (4 seconds a
        /// turn); frame 0 is the still picture. 1 to 1000.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1000))]
        turntable: Option<u16>,
        /// --animate, --turntable: the most bytes the frames' pixels may take (width ×
        /// height × 4 × frames; K, M or G for KiB, MiB, GiB; default 1G).
        #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
        max_output: Option<u64>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) of idmodel, or of one of its commands.
    Man {
        /// The command (`check`, …); the whole of idmodel when left out.
        command: Option<String>,
    },
}

/// `convert`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ConvertArgs {
    /// A model file, a folder to convert every model under, an archive (.pak, .pk3,
    /// .pk4) to convert every model inside (Quake III players assembled), or
    /// ARCHIVE:ENTRY for one entry or folder of it, e.g.
    /// kyonshi.pk3:models/players/kyonshi (a real file named so wins).
    pub(crate) input: PathBuf,
    /// The output file (.glb, .gltf or .obj), or the output folder for a folder.
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    /// md5anim files to add as animation clips to an md5mesh.
    #[arg(long = "anim", value_name = "A.md5anim")]
    pub(crate) anims: Vec<PathBuf>,
    /// Export only this frame (no animation); for .obj, the frame to write.
    #[arg(long, value_name = "N")]
    pub(crate) frame: Option<usize>,
    /// Export only this animation clip; for .obj, its first frame.
    #[arg(long, value_name = "NAME")]
    pub(crate) clip: Option<String>,
    /// The skin: Quake III <part>_NAME.skin (default: default); MD2/MDL: skin index.
    #[arg(long, value_name = "NAME")]
    pub(crate) skin: Option<String>,
    /// Print nothing on success (a folder: no progress and no summary).
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// A folder or archive: print every warning (by default the first two of a kind,
    /// and then how many more there were).
    #[arg(long, short, conflicts_with = "quiet")]
    pub(crate) verbose: bool,
    /// Keep the file's Z-up axes instead of converting to Y-up.
    #[arg(long)]
    pub(crate) keep_axes: bool,
    /// Output format (default: from the output file's extension; glb for a folder).
    #[arg(long, value_enum)]
    pub(crate) to: Option<OutKindArg>,
    /// Also replace existing side files (.bin, .mtl, _N.png), batch outputs and a
    /// read-only output. Never an input.
    #[arg(long)]
    pub(crate) force: bool,
    /// The most bytes an animated model's morph targets and keys may take (suffix K,
    /// M or G for KiB, MiB, GiB; default 1G); a model over it is refused before
    /// anything is built.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub(crate) max_output: Option<u64>,
    /// Write morph weights as plain keys × targets floats instead of glTF sparse
    /// accessors (grows with frames²; for clients without sparse accessors).
    #[arg(long)]
    pub(crate) dense_weights: bool,
    /// Write compact meshes (KHR_mesh_quantization): integer positions on the model's
    /// grid and byte normals, about half the size for animated models. Blender,
    /// three.js, Babylon.js and the viewer read them; Godot 4 and Assimp do not.
    #[arg(long)]
    pub(crate) quantize: bool,
    /// Compress the GLB with EXT_meshopt_compression (for the web: three.js with its
    /// MeshoptDecoder, Babylon.js); Blender and Assimp cannot read it. Every byte comes
    /// back when idmodel reads the file.
    #[arg(long)]
    pub(crate) meshopt: bool,
    /// Write no images: materials keep their names and factors only.
    #[arg(long)]
    pub(crate) no_textures: bool,
    /// MD2: keep the file's normals even when every vertex uses one normal index
    /// (default: smooth normals computed from the triangles).
    #[arg(long)]
    pub(crate) keep_normals: bool,
    /// A game folder or archive (.pak, .pk3, .pk4) to find the model's files in, below
    /// the model's own game root; repeatable, a later one overrides an earlier.
    #[arg(long = "game", value_name = "DIR|ARCHIVE")]
    pub(crate) game: Vec<PathBuf>,
    /// .md5mesh output: where to write the md5anims, one per animation in order
    /// (default: beside the mesh, named after each clip).
    #[arg(long = "anim-out", value_name = "A.md5anim")]
    pub(crate) anim_out: Vec<PathBuf>,
    /// glTF → id: the frame rate of the written frames (md5anim, md5camera: resampled;
    /// MD3: node or skin animation sampled at it instead of at its key times; default:
    /// the key times' rate, else 24).
    #[arg(long, value_name = "FPS", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub(crate) fps: Option<u32>,
    /// glTF → id: the engine the written file is for (default: quakespasm for .mdl,
    /// quake2 for .md2, ioq3 for .md3, doom3 for md5): a file it would refuse is not
    /// written; MD3 surfaces over 999 vertices or 1,999 triangles are split.
    #[arg(long, value_enum)]
    pub(crate) engine: Option<EngineArg>,
    /// glTF → MD3: put this in front of every shader name made from a material.
    #[arg(long, value_name = "PREFIX", default_value = "")]
    pub(crate) shader_prefix: String,
    /// glTF → id: refuse a surface over the --engine limits instead of splitting it.
    #[arg(long)]
    pub(crate) no_split: bool,
    /// glTF → MD2: reference this skin (a game path such as models/x/skin.pcx)
    /// instead of writing the material's image as NAME.pcx beside the MD2.
    #[arg(long, value_name = "NAME")]
    pub(crate) skin_name: Option<String>,
    /// glTF → MD2: Quake II's palette for the written PCX skin (pics/colormap.pcx, or
    /// 768 bytes of RGB); default: pics/colormap.pcx of the output's game root.
    #[arg(long, value_name = "FILE")]
    pub(crate) palette: Option<PathBuf>,
    /// glTF → MDL: make every clip one frame group with its key intervals.
    #[arg(long)]
    pub(crate) groups: bool,
    /// glTF → id: write the file even when its target engine would refuse it (the target
    /// is --engine, else QuakeSpasm for .mdl, quake2 for .md2, ioq3 for .md3, doom3 for
    /// md5).
    #[arg(long)]
    pub(crate) unchecked: bool,
    /// glTF → .mdl / .md2: simplify a model over the target engine's vertex or triangle
    /// limits until it fits (every frame, UV and weight follows); the report says what
    /// changed.
    #[arg(long)]
    pub(crate) fit: bool,
    /// glTF → MD3: the LODs (--lods, --lod1, --lod2).
    #[command(flatten)]
    pub(crate) lods: LodArgs,
}

impl ConvertArgs {
    /// The library's options for these arguments.
    fn options(&self) -> idmodel_convert::Options {
        idmodel_convert::Options {
            anims: self.anims.clone(),
            frame: self.frame,
            clip: self.clip.clone(),
            skin: self.skin.clone(),
            keep_axes: self.keep_axes,
            to: self.to.map(|t| t.0),
            max_output: self.max_output,
            dense_weights: self.dense_weights,
            quantize: self.quantize,
            meshopt: self.meshopt,
            no_textures: self.no_textures,
            keep_normals: self.keep_normals,
            game: self.game.clone(),
            anim_out: self.anim_out.clone(),
            fps: self.fps,
            engine: self.engine.map(|e| e.0),
            shader_prefix: self.shader_prefix.clone(),
            no_split: self.no_split,
            skin_name: self.skin_name.clone(),
            palette: self.palette.clone(),
            groups: self.groups,
            lods: idmodel_convert::Lods {
                count: self.lods.lods,
                lod1: self.lods.lod1.clone(),
                lod2: self.lods.lod2.clone(),
            },
            unchecked: self.unchecked,
            fit: self.fit,
        }
    }
}

/// `--lods`, `--lod1`, `--lod2`: the LODs of an MD3 output (Quake III loads `x_1.md3` and
/// `x_2.md3` beside `x.md3`).
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct LodArgs {
    /// glTF → MD3: also write N lower-detail models, `x_1.md3` (half the triangles) and
    /// `x_2.md3` (a quarter), simplified with meshoptimizer unless --lod1/--lod2 gives
    /// one; a player gets them per part (`lower_1.md3` …).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=2))]
    pub(crate) lods: Option<u8>,
    /// glTF → MD3: LOD 1 from this .glb/.gltf, used as given (for a player, a player GLB).
    #[arg(long, value_name = "A.glb")]
    pub(crate) lod1: Option<PathBuf>,
    /// glTF → MD3: LOD 2 from this .glb/.gltf, used as given.
    #[arg(long, value_name = "B.glb")]
    pub(crate) lod2: Option<PathBuf>,
}

/// `check --fail-on`: the mildest severity that makes `check` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FailOn {
    /// Only what an engine refuses to load.
    Refused,
    /// Refusals and hazards (out-of-bounds reads, crashes, misrendering).
    Hazard,
    /// Every finding, warnings included.
    Warning,
}

impl FailOn {
    fn severity(self) -> idmodel_convert::Severity {
        match self {
            FailOn::Refused => idmodel_convert::Severity::Refused,
            FailOn::Hazard => idmodel_convert::Severity::Hazard,
            FailOn::Warning => idmodel_convert::Severity::Warning,
        }
    }
}

/// `convert --to`: a library output kind as a clap value (help text per kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutKindArg(pub idmodel_convert::OutKind);

impl ValueEnum for OutKindArg {
    fn value_variants<'a>() -> &'a [Self] {
        use idmodel_convert::OutKind as K;
        &[
            OutKindArg(K::Glb),
            OutKindArg(K::Gltf),
            OutKindArg(K::Obj),
            OutKindArg(K::Md3),
            OutKindArg(K::Md2),
            OutKindArg(K::Mdl),
            OutKindArg(K::Md5mesh),
            OutKindArg(K::Player),
        ]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        use idmodel_convert::OutKind as K;
        let (name, help) = match self.0 {
            K::Glb => ("glb", "Binary glTF, one file"),
            K::Gltf => ("gltf", "glTF JSON with a .bin beside it"),
            K::Obj => (
                "obj",
                "Wavefront OBJ (one frame) with .mtl and PNG skins beside it",
            ),
            K::Md3 => ("md3", "Quake III MD3 (from a .glb or .gltf)"),
            K::Md2 => ("md2", "Quake II MD2 (from a .glb or .gltf)"),
            K::Mdl => ("mdl", "Quake MDL (from a .glb or .gltf)"),
            K::Md5mesh => ("md5mesh", "Doom 3 md5mesh (from a .glb or .gltf)"),
            K::Player => (
                "player",
                "A Quake III player folder: lower/upper/head.md3, animation.cfg, skins (from a player .glb or .gltf)",
            ),
        };
        Some(clap::builder::PossibleValue::new(name).help(help))
    }
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!(
            "expected WIDTHxHEIGHT, each 1 to {}, e.g. 640x480",
            render::MAX_SIDE
        )
    };
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let side = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=render::MAX_SIDE).contains(v))
            .ok_or_else(bad)
    };
    Ok((side(w)?, side(h)?))
}

/// A byte count with an optional binary suffix: `1000`, `64K`, `512M`, `2G`.
fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (t.get(..i), 10),
        Some((i, 'm' | 'M')) => (t.get(..i), 20),
        Some((i, 'g' | 'G')) => (t.get(..i), 30),
        _ => (Some(t), 0),
    };
    digits
        .and_then(|d| d.parse::<u64>().ok())
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| "expected a byte count such as 1000, 64K, 512M or 2G".to_owned())
}

fn parse_colour(s: &str) -> Result<[u8; 4], String> {
    let hex = s.trim_start_matches('#');
    let byte = |i: usize| {
        hex.get(i..i.saturating_add(2))
            .and_then(|b| u8::from_str_radix(b, 16).ok())
    };
    let bad = || "expected RRGGBB or RRGGBBAA hex, e.g. 303038".to_owned();
    match hex.len() {
        6 => Ok([
            byte(0).ok_or_else(bad)?,
            byte(2).ok_or_else(bad)?,
            byte(4).ok_or_else(bad)?,
            255,
        ]),
        8 => Ok([
            byte(0).ok_or_else(bad)?,
            byte(2).ok_or_else(bad)?,
            byte(4).ok_or_else(bad)?,
            byte(6).ok_or_else(bad)?,
        ]),
        _ => Err(bad()),
    }
}

/// How the command ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0.
    Ok,
    /// 1: refused file, findings, failed conversion.
    Failed,
    /// 2: usage error, or a refusal to write over a file (nothing was written).
    Usage,
}

/// Prints one error line to stderr (never panics, even on a closed pipe).
pub fn error_line(line: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr().lock(), "idmodel: {line}");
}

/// Prints one line to stdout, ignoring a closed pipe (`idmodel info x | head`).
pub fn out_line(line: impl std::fmt::Display) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Runs the command on the process's arguments: what `idmodel` does. Never panics; an
/// internal error is reported in one line with exit status 1.
pub fn main_entry() -> ExitCode {
    // Designed never to panic; should it happen anyway, say so in one line (no
    // backtrace) and exit 1 rather than 101.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_owned());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        error_line(format_args!(
            "internal error: {what}{at} (a bug in idmodel; please report it with the input file)"
        ));
    }));
    let exit = match Cli::try_parse() {
        Ok(cli) => std::panic::catch_unwind(|| commands::run(cli.command)).unwrap_or(Exit::Failed),
        // Help and version (exit 0), or a usage error in two lines (exit 2).
        Err(e) => usage::clap_error(&e),
    };
    match exit {
        Exit::Ok => ExitCode::SUCCESS,
        Exit::Failed => ExitCode::from(1),
        Exit::Usage => ExitCode::from(2),
    }
}

/// Writes a conversion's files as `idmodel convert` does: never over an input, each
/// file staged and renamed into place, a side file that exists replaced only with
/// `force`, and the player folder made first. For front ends that convert through
/// `idmodel-convert` and must write like the command (the Python package). Each call
/// is a run of its own: it refuses to write over this conversion's inputs only.
///
/// # Errors
/// The one line the command prints, naming the file.
pub fn write_converted(
    done: idmodel_convert::Converted,
    force: bool,
) -> Result<idmodel_convert::Report, String> {
    output::new_run();
    commands::write(done, force).map_err(String::from)
}

/// What `idmodel info [--json]` prints for a file named `path` holding `bytes`: the
/// text report, or with `json` the one-line JSON object. `Err` is the one-line message
/// `idmodel` prints for a refused file. `path` is used in messages and to find Quake III
/// sidecar files (`.skin`, `animation.cfg`) beside an MD3; nothing is written.
///
/// ```
/// let text = idmodel_cli::info_report(std::path::Path::new("x.md3"), b"IDP3 too short", false);
/// assert!(text.unwrap_err().starts_with("x.md3: "));
/// ```
pub fn info_report(path: &Path, bytes: &[u8], json: bool) -> Result<String, String> {
    idmodel_convert::info_report(path, bytes, json)
}

/// What `idmodel check [--engine E]` prints for a file named `path` holding `bytes`:
/// `Ok((report, clean))` with `clean` false when an engine has findings of any severity
/// (`--fail-on warning` exits 1), `Err` the one-line message for a refused file or an
/// engine that does not load the format. Findings shared by several engines are one
/// line naming them all.
///
/// ```
/// let r = idmodel_cli::check_report(std::path::Path::new("x.mdl"), b"IDPO", None);
/// assert!(r.is_err());
/// ```
pub fn check_report(
    path: &Path,
    bytes: &[u8],
    engine: Option<Engine>,
) -> Result<(String, bool), String> {
    use idmodel_convert::check;
    let checked = check::check_bytes(path, bytes, engine).map_err(String::from)?;
    Ok((
        check::text_report(path, &checked),
        checked.findings.is_empty(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn byte_counts_take_binary_suffixes() {
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("64K"), Ok(64 << 10));
        assert_eq!(parse_bytes("512m"), Ok(512 << 20));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        assert!(parse_bytes("G").is_err());
        assert!(parse_bytes("-1").is_err());
        assert!(parse_bytes("99999999999999999999G").is_err());
    }

    #[test]
    fn engine_values_are_the_core_engines() {
        let values: Vec<Engine> = EngineArg::value_variants().iter().map(|e| e.0).collect();
        assert_eq!(values, Engine::ALL);
        for e in Engine::ALL {
            let v = EngineArg(*e).to_possible_value().unwrap();
            assert_eq!(v.get_name(), e.name());
            assert_eq!(EngineArg::from_str(e.name(), false), Ok(EngineArg(*e)));
        }
        assert!(EngineArg::from_str("quake4", false).is_err());
    }

    #[test]
    fn sizes_and_colours() {
        assert_eq!(parse_size("640x480"), Ok((640, 480)));
        assert_eq!(parse_size("1X1"), Ok((1, 1)));
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("10x99999").is_err());
        assert!(parse_size("10").is_err());
        assert!(parse_size("-1x5").is_err());
        assert_eq!(parse_colour("#102030"), Ok([16, 32, 48, 255]));
        assert_eq!(parse_colour("10203040"), Ok([16, 32, 48, 64]));
        assert!(parse_colour("12345").is_err());
        assert!(parse_colour("zz2030").is_err());
        assert!(parse_colour("ééé").is_err());
    }
}
