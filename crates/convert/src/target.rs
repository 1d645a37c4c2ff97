//! Files written for an engine are checked against it before they are handed back: a
//! file the target engine would refuse is not written (the conversion fails with the
//! engine's reason and the ways out), and what loads but misbehaves comes back as
//! warnings. The target is [`Options::engine`] when it loads the format, else the engine
//! a format's users expect: QuakeSpasm for MDL, Quake II for MD2, ioquake3 for MD3,
//! Doom 3 for md5.

use std::path::Path;

use crate::formats::{Input, Severity, module};
use crate::idmodel::{Engine, Format, detect};
use crate::options::Options;
use crate::outcome::Error;

/// The engine a format's files are checked against by default.
pub fn default_engine(format: Format) -> Option<Engine> {
    match format {
        Format::Mdl => Some(Engine::QuakeSpasm),
        Format::Md2 => Some(Engine::Quake2),
        Format::Md3 => Some(Engine::Ioq3),
        Format::Md5Mesh | Format::Md5Anim | Format::Md5Camera => Some(Engine::Doom3),
        _ => None,
    }
}

/// The engine `bytes` (a model of `format`) is written for under `options`.
fn target(format: Format, options: &Options) -> Option<Engine> {
    options
        .engine
        .filter(|e| e.loads(format))
        .or_else(|| default_engine(format))
}

/// Checks the model file `bytes` written to `path` against its target engine: the
/// warning lines of hazards and warnings, or (unless [`Options::unchecked`]) the failure
/// naming the first finding the engine refuses the file for.
pub(crate) fn check_written(
    path: &Path,
    bytes: &[u8],
    options: &Options,
) -> Result<Vec<String>, Error> {
    let Some(format) = detect(bytes) else {
        return Ok(Vec::new());
    };
    let (Some(engine), Some(m)) = (target(format, options), module(format)) else {
        return Ok(Vec::new());
    };
    let input = Input {
        path,
        format,
        bytes,
    };
    // The model alone: the side files beside `path` are the old ones this conversion is
    // about to replace (a player's `.skin` and `animation.cfg` are checked as written).
    let findings = if format == Format::Md3 {
        crate::idmodel::md3::Md3::parse(bytes)
            .map(|md3| {
                md3.findings(engine)
                    .iter()
                    .map(|f| crate::findings::Finding::of(f, None))
                    .collect()
            })
            .map_err(crate::failure::Failure::from)
    } else {
        m.check(&input, Some(engine))
    };
    let findings = match findings {
        Ok(f) => f,
        // Our own writer's output that does not parse is a bug worth stopping on.
        Err(f) => {
            return Err(Error::Failed(format!(
                "{}: the written file does not read back: {f}",
                path.display()
            )));
        }
    };
    let mut warnings = Vec::new();
    for f in findings {
        let line = format!("{}: {f}", path.display());
        if f.severity == Severity::Refused && !options.unchecked {
            let fit = if matches!(format, Format::Mdl | Format::Md2) {
                "--fit to simplify it to the limits, "
            } else {
                ""
            };
            return Err(Error::Failed(format!(
                "{line}; nothing was written: {fit}another --engine, or --unchecked to write it anyway"
            )));
        }
        // The one hazard the way back mends when asked: an exact copy of an MD2 without GL
        // commands keeps the original's bytes; written for Quake II it gets a list.
        if format == Format::Md2 && options.engine.is_none() && line.contains("no GL commands") {
            warnings.push(format!("{line}; --engine quake2 writes one"));
            continue;
        }
        warnings.push(line);
    }
    Ok(warnings)
}
