//! What a conversion gives back: the files to write (nothing is written here) and a
//! report of what was made, resolved and missed, as values.

use std::fmt;
use std::path::{Path, PathBuf};

use idmodel_scene::{Image, Scene};

/// Whether the caller named a file, or the conversion derived it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The output the caller named (`-o`): a tool replaces it when it exists.
    Named,
    /// A file the conversion adds or derives (`.bin`, `.mtl`, `_N.png`, an md5anim beside
    /// an md5mesh, a player written into a folder): a tool keeps an existing one unless
    /// told otherwise.
    Side,
}

/// One file a conversion produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFile {
    /// Where it goes: the output path the caller gave, or a path beside it.
    pub path: PathBuf,
    /// Named by the caller, or derived.
    pub role: Role,
    /// The bytes, as pieces to write one after the other (a GLB's JSON front and its
    /// binary buffer are two pieces, so the buffer is never copied to join them).
    pub pieces: Vec<Vec<u8>>,
}

impl OutFile {
    /// The file's size in bytes.
    pub fn len(&self) -> u64 {
        self.pieces
            .iter()
            .map(|p| len(p))
            .fold(0, u64::saturating_add)
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.pieces.iter().all(Vec::is_empty)
    }

    /// The file's bytes in one buffer (the pieces joined).
    pub fn bytes(&self) -> Vec<u8> {
        self.pieces.concat()
    }
}

/// A byte count as a `u64`.
pub(crate) fn len(bytes: &[u8]) -> u64 {
    u64::try_from(bytes.len()).unwrap_or(u64::MAX)
}

/// The files of one conversion, in writing order: the named output first where there
/// is one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outputs {
    /// False when the main output's name was derived (a batch, a player into a folder).
    pub(crate) named: bool,
    pub(crate) files: Vec<OutFile>,
}

impl Outputs {
    /// No files yet; the main output is `named` by the caller or derived.
    pub(crate) fn new(named: bool) -> Outputs {
        Outputs {
            named,
            files: Vec::new(),
        }
    }

    /// Adds the main output.
    pub(crate) fn output(&mut self, path: &Path, bytes: Vec<u8>) {
        self.output_pieces(path, vec![bytes]);
    }

    /// [`Outputs::output`] of a file given as pieces.
    pub(crate) fn output_pieces(&mut self, path: &Path, pieces: Vec<Vec<u8>>) {
        let role = if self.named { Role::Named } else { Role::Side };
        self.files.push(OutFile {
            path: path.to_owned(),
            role,
            pieces,
        });
    }

    /// Adds a side file.
    pub(crate) fn side(&mut self, path: &Path, bytes: Vec<u8>) {
        self.files.push(OutFile {
            path: path.to_owned(),
            role: Role::Side,
            pieces: vec![bytes],
        });
    }
}

/// What one conversion made: the main output, its size, and the textures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The main output file.
    pub path: PathBuf,
    /// Its size in bytes (without side files).
    pub bytes: u64,
    /// Materials whose image is embedded (OBJ: written beside it as PNG).
    pub embedded: usize,
    /// Materials that name an image that was not found.
    pub missing: usize,
}

impl Written {
    /// Nothing made yet for `path`.
    pub fn new(path: &Path) -> Written {
        Written {
            path: path.to_owned(),
            bytes: 0,
            embedded: 0,
            missing: 0,
        }
    }

    /// Counts the textures of the written scene.
    pub fn count_textures(&mut self, scene: &Scene) {
        for m in &scene.materials {
            match &m.image {
                Some(Image::Rgba8 { .. } | Image::Indexed8 { .. } | Image::Encoded { .. }) => {
                    self.embedded = self.embedded.saturating_add(1)
                }
                Some(Image::Uri(_)) => self.missing = self.missing.saturating_add(1),
                None => {}
            }
        }
    }

    /// `123 KB, 2 textures embedded, 0 missing`.
    pub fn what(&self) -> String {
        format!(
            "{}, {} texture{} embedded, {} missing",
            size(self.bytes),
            self.embedded,
            if self.embedded == 1 { "" } else { "s" },
            self.missing
        )
    }
}

/// `wrote out.glb (123 KB, 2 textures embedded, 0 missing)`.
impl fmt::Display for Written {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wrote {} ({})", self.path.display(), self.what())
    }
}

/// A size for people: `512 bytes`, `123 KB`, `4.5 MB` (decimal units, rounded).
pub fn size(bytes: u64) -> String {
    let div = |n: u64, d: u64| n.checked_div(d).unwrap_or(0);
    if bytes < 1000 {
        format!("{bytes} bytes")
    } else if bytes < 999_500 {
        format!("{} KB", div(bytes.saturating_add(500), 1000))
    } else {
        let tenths = div(bytes.saturating_add(50_000), 100_000);
        format!(
            "{}.{} MB",
            div(tenths, 10),
            tenths.checked_rem(10).unwrap_or(0)
        )
    }
}

/// What a conversion says about itself, as values: a tool prints it, a library user
/// reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The main output: its path, size and texture counts.
    pub written: Written,
    /// What a command line tool says on success, one line each (`wrote out.glb (…)`).
    pub lines: Vec<String>,
    /// Warnings, one line each, naming their file (`x.md3: warning: texture not found
    /// …`): textures not found, side files that did not parse, images that did not
    /// decode.
    pub warnings: Vec<String>,
    /// The files read (models, side files, archives): a tool that writes the outputs
    /// refuses to write over any of them.
    pub inputs: Vec<PathBuf>,
    /// A folder the files go into that the caller asked for and that may not exist yet
    /// (a Quake III player folder): a tool makes it before writing.
    pub folder: Option<PathBuf>,
}

impl Report {
    /// An empty report for the main output `path`.
    pub(crate) fn new(path: &Path) -> Report {
        Report {
            written: Written::new(path),
            lines: Vec::new(),
            warnings: Vec::new(),
            inputs: Vec::new(),
            folder: None,
        }
    }
}

/// The outcome of a conversion: the files to write and the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    /// The files, in writing order (the named output first where there is one).
    pub files: Vec<OutFile>,
    /// What was made, resolved and missed.
    pub report: Report,
}

impl Converted {
    /// The main output's bytes (the first file's), for callers that want one buffer.
    pub fn main_bytes(&self) -> Vec<u8> {
        self.files.first().map(OutFile::bytes).unwrap_or_default()
    }
}

/// Why a conversion gave no files, in one line that names the file and says what is
/// wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The request does not make sense (an option that does not apply, an output format
    /// that cannot be told): a command line tool shows its usage.
    Usage(String),
    /// An input was refused or the conversion failed.
    Failed(String),
    /// The conversion cannot be made from this kind of input (an id format written from
    /// anything but glTF), or an output would replace an input.
    Refused(String),
}

impl Error {
    /// The one line.
    pub fn line(&self) -> &str {
        match self {
            Error::Usage(s) | Error::Failed(s) | Error::Refused(s) => s,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.line())
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(line: String) -> Self {
        Error::Failed(line)
    }
}

impl From<Error> for String {
    fn from(e: Error) -> String {
        match e {
            Error::Usage(s) | Error::Failed(s) | Error::Refused(s) => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(999), "999 bytes");
        assert_eq!(size(1000), "1 KB");
        assert_eq!(size(123_456), "123 KB");
        assert_eq!(size(999_499), "999 KB");
        assert_eq!(size(999_500), "1.0 MB");
        assert_eq!(size(4_550_000), "4.6 MB");
    }

    #[test]
    fn pieces_join_in_order() {
        let f = OutFile {
            path: PathBuf::from("x.glb"),
            role: Role::Named,
            pieces: vec![vec![1, 2], vec![], vec![3]],
        };
        assert_eq!(f.bytes(), [1, 2, 3]);
        assert_eq!(f.len(), 3);
        assert!(!f.is_empty());
    }
}
