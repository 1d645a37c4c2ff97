//! Reading and decoding image files for the resolvers, with the Quake II palette.

use std::collections::BTreeMap;

use idmodel_scene::{Image, Mime};

use crate::Files;
use crate::images::{self, Indexed, Kind, TgaOrigin};

/// An image found and decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The image for the material (PNG and JPEG kept as they are).
    pub image: Image,
    /// The game path it was read from.
    pub path: String,
    /// An 8-bit image uses index 255 (transparent in Quake II).
    pub holes: bool,
}

/// Reads images from a [`Files`], caching them by path, with Quake II's palette
/// (`pics/colormap.pcx`) loaded once when an 8-bit image needs it.
pub struct Loader<'a> {
    files: &'a dyn Files,
    origin: TgaOrigin,
    q2_palette: Option<Option<Box<[[u8; 3]; 256]>>>,
    own_palette_warned: bool,
    cache: BTreeMap<String, Option<Loaded>>,
    warnings: Vec<String>,
}

/// Where Quake II's palette lives.
pub const COLORMAP: &str = "pics/colormap.pcx";

impl<'a> Loader<'a> {
    /// A loader over `files`, reading TGA origin bits as `origin` says.
    pub fn new(files: &'a dyn Files, origin: TgaOrigin) -> Self {
        Self {
            files,
            origin,
            q2_palette: None,
            own_palette_warned: false,
            cache: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    /// The files read.
    pub fn files(&self) -> &'a dyn Files {
        self.files
    }

    /// The warnings so far (decoding problems, palette fallbacks), emptied.
    pub fn take_warnings(&mut self) -> Vec<String> {
        core::mem::take(&mut self.warnings)
    }

    /// Adds a warning line.
    pub fn warn(&mut self, line: String) {
        self.warnings.push(line);
    }

    /// The first of `candidates` that exists and decodes.
    pub fn first(&mut self, candidates: &[String]) -> Option<Loaded> {
        candidates.iter().find_map(|c| self.load(c))
    }

    /// [`Loader::first`]; when none loads, the "texture not found" warning for `what`
    /// `name`, naming the `candidates` tried, is pushed to `warnings`.
    pub(crate) fn first_or_warn(
        &mut self,
        candidates: &[String],
        warnings: &mut Vec<String>,
        (what, name): (&str, &str),
    ) -> Option<Loaded> {
        let found = self.first(candidates);
        if found.is_none() {
            warnings.push(super::not_found(what, name, candidates));
        }
        found
    }

    /// The image at game path `path`: `None` when no file is there, or when it does not
    /// decode (then with a warning naming the file).
    pub fn load(&mut self, path: &str) -> Option<Loaded> {
        let key = path.to_ascii_lowercase();
        if let Some(hit) = self.cache.get(&key) {
            return hit.clone();
        }
        let got = match self.files.read(path) {
            Ok(Some(bytes)) => match self.decode(path, bytes) {
                Ok(l) => Some(l),
                Err(e) => {
                    self.warnings.push(format!("{path}: {e}"));
                    None
                }
            },
            Ok(None) => None,
            Err(e) => {
                self.warnings.push(e);
                None
            }
        };
        if got.is_some() {
            self.warn_case(path);
        }
        self.cache.insert(key, got.clone());
        got
    }

    /// Warns when `path` was found under a name of another case (an archive compares
    /// names as the engine's pk3/pak lookup does, without case; the same file loose in a
    /// folder would need `path`'s exact case on a case-sensitive file system).
    fn warn_case(&mut self, path: &str) {
        let wanted = path.trim_start_matches(['/', '\\']).replace('\\', "/");
        if let Some(stored) = self.files.stored_name(path) {
            let stored_norm = stored.trim_start_matches(['/', '\\']).replace('\\', "/");
            if stored_norm != wanted && stored_norm.eq_ignore_ascii_case(&wanted) {
                self.warnings.push(format!(
                    "{wanted}: found as {stored}, a match only without case (archives match names so; a loose file of that name would not be found on a case-sensitive file system)"
                ));
            }
        }
    }

    fn q2_palette(&mut self) -> Option<Box<[[u8; 3]; 256]>> {
        if self.q2_palette.is_none() {
            let pal = match self.files.read(COLORMAP) {
                Ok(Some(bytes)) => match images::pcx(&bytes) {
                    Ok((img, _)) => img.palette,
                    Err(e) => {
                        self.warnings.push(format!("{COLORMAP}: {e}"));
                        None
                    }
                },
                _ => None,
            };
            self.q2_palette = Some(pal);
        }
        self.q2_palette.clone().flatten()
    }

    fn indexed(&mut self, path: &str, img: &Indexed) -> Result<Loaded, String> {
        let palette = match self.q2_palette() {
            Some(p) => p,
            None => match &img.palette {
                Some(own) => {
                    if !self.own_palette_warned {
                        self.own_palette_warned = true;
                        self.warnings.push(format!(
                            "{COLORMAP} not found: {path} is drawn with its own palette (Quake II uses the colormap's)"
                        ));
                    }
                    own.clone()
                }
                None => {
                    return Err(format!(
                        "an 8-bit image without a palette, and {COLORMAP} is not found"
                    ));
                }
            },
        };
        if !img.indices.contains(&255) {
            // Without index 255 (whose texels take a neighbour's colour) every texel is
            // its entry's opaque colour: the image stays indices, which the exporter
            // writes as an indexed PNG directly.
            let mut colours = Box::new([[0u8, 0, 0, 255]; 256]);
            for (c, &[r, g, b]) in colours.iter_mut().zip(palette.iter()) {
                *c = [r, g, b, 255];
            }
            return Ok(Loaded {
                image: Image::Indexed8 {
                    width: img.width,
                    height: img.height,
                    palette: colours,
                    indices: img.indices.clone(),
                },
                path: path.to_owned(),
                holes: false,
            });
        }
        let (rgba, holes) = img.to_rgba(&palette);
        Ok(Loaded {
            image: rgba.into_image(),
            path: path.to_owned(),
            holes,
        })
    }

    fn decode(&mut self, path: &str, bytes: Vec<u8>) -> Result<Loaded, String> {
        let kind = Kind::of(path, &bytes).ok_or("not an image type that is read")?;
        match kind {
            Kind::Pcx => {
                let (img, warnings) = images::pcx(&bytes)?;
                self.warnings
                    .extend(warnings.into_iter().map(|w| format!("{path}: {w}")));
                self.indexed(path, &img)
            }
            Kind::Wal => {
                let img = images::wal(&bytes)?;
                self.indexed(path, &img)
            }
            Kind::Tga => {
                let (rgba, warnings) = images::tga(&bytes, self.origin)?;
                self.warnings
                    .extend(warnings.into_iter().map(|w| format!("{path}: {w}")));
                Ok(Loaded {
                    image: rgba.into_image(),
                    path: path.to_owned(),
                    holes: false,
                })
            }
            Kind::Png | Kind::Jpeg => {
                let mime = if kind == Kind::Png {
                    Mime::Png
                } else {
                    Mime::Jpeg
                };
                images::check_encoded(&bytes, mime)?;
                Ok(Loaded {
                    image: Image::Encoded { mime, bytes },
                    path: path.to_owned(),
                    holes: false,
                })
            }
        }
    }
}
