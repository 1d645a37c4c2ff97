//! The owned layer of `.md5camera` (feature `alloc`): [`Camera`], built in the parser's
//! one pass, and the writer that gives the same camera back.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::*;
use crate::write::{Dyn, WriteError, as_i32, invalid, write_f32, write_vec};

/// An owned md5camera.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Camera {
    /// The `commandline` text.
    pub commandline: String,
    /// `frameRate` (≥ 1).
    pub frame_rate: u32,
    /// Cuts, each in `1..frames.len()`.
    pub cuts: Vec<u32>,
    /// Frames (at least one).
    pub frames: Vec<CameraFrame>,
}

struct Builder(Camera);

impl<'a> Sink<'a> for Builder {
    fn header(&mut self, commandline: Text<'a>, frame_rate: u32) {
        self.0.commandline = commandline.to_string_lossy();
        self.0.frame_rate = frame_rate;
    }
    fn cut(&mut self, c: u32) {
        self.0.cuts.push(c);
    }
    fn frame(&mut self, f: CameraFrame) {
        self.0.frames.push(f);
    }
}

impl Camera {
    /// Parses an md5camera into an owned camera in one pass.
    pub fn parse(bytes: &[u8]) -> Result<Camera> {
        Self::parse_with(bytes, ParseOptions::default())
    }

    /// [`Camera::parse`] with options.
    pub fn parse_with(bytes: &[u8], opts: ParseOptions) -> Result<Camera> {
        let mut b = Builder(Camera::default());
        parse_into(bytes, opts, &mut b)?;
        Ok(b.0)
    }

    /// The camera at `time_ms` (see [`sample`]).
    pub fn sample(&self, time_ms: i64) -> CameraSample {
        sample(&self.frames, &self.cuts, self.frame_rate, time_ms)
    }

    /// The playing time in ms (see [`duration_ms`]).
    pub fn duration_ms(&self) -> i64 {
        duration_ms(self.frames.len(), self.cuts.len(), self.frame_rate)
    }

    /// Findings on the data.
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding)) {
        if !ENGINES.contains(&engine) {
            return;
        }
        check_camera(
            self.frame_rate,
            self.cuts.iter().copied(),
            self.frames.iter().copied(),
            sink,
        );
    }

    /// [`Camera::check`] into a `Vec`.
    pub fn findings(&self, engine: Engine) -> Vec<Finding> {
        crate::check::collect(|sink| self.check(engine, sink))
    }
}

impl From<&CameraFile<'_>> for Camera {
    fn from(f: &CameraFile<'_>) -> Camera {
        Camera {
            commandline: f.commandline().to_string_lossy(),
            frame_rate: f.frame_rate(),
            cuts: f.cuts().collect(),
            frames: f.frames().collect(),
        }
    }
}

impl From<CameraFile<'_>> for Camera {
    fn from(f: CameraFile<'_>) -> Camera {
        Camera::from(&f)
    }
}

fn validate(c: &Camera) -> core::result::Result<(), WriteError> {
    let n = c.frames.len();
    if n == 0 {
        return Err(invalid("numFrames", 0, 0));
    }
    as_i32(n, "numFrames", 0)?;
    if c.frame_rate == 0 || i32::try_from(c.frame_rate).is_err() {
        return Err(invalid("frameRate", 0, i64::from(c.frame_rate)));
    }
    if c.cuts.len() > n {
        return Err(invalid(
            "numCuts",
            0,
            i64::try_from(c.cuts.len()).unwrap_or(i64::MAX),
        ));
    }
    for (i, &cut) in c.cuts.iter().enumerate() {
        if cut == 0 || usize::try_from(cut).map_or(true, |x| x >= n) {
            return Err(invalid("camera cut", i, i64::from(cut)));
        }
    }
    Ok(())
}

/// Writes `c` as md5camera text; refuses what the reader would refuse;
/// `Camera::parse(written) == c` bit for bit.
pub fn write_fmt<W: Write + ?Sized>(c: &Camera, w: &mut W) -> core::result::Result<(), WriteError> {
    validate(c)?;
    let mut w = Dyn(w);
    crate::write::write_header(&mut w, &c.commandline)?;
    write!(
        w,
        "\n\nnumFrames {}\nframeRate {}\nnumCuts {}\n\ncuts {{\n",
        c.frames.len(),
        c.frame_rate,
        c.cuts.len()
    )?;
    for cut in &c.cuts {
        writeln!(w, "\t{cut}")?;
    }
    w.write_str("}\n\ncamera {\n")?;
    for f in &c.frames {
        w.write_char('\t')?;
        write_vec(&mut w, &f.position, "camera position")?;
        w.write_char(' ')?;
        write_vec(&mut w, &f.orientation, "camera orientation")?;
        w.write_char(' ')?;
        write_f32(&mut w, f.fov, "camera fov")?;
        w.write_char('\n')?;
    }
    w.write_str("}\n")?;
    Ok(())
}

crate::write::entry_points!(Camera);
