//! Engine findings of a model: merged over the engines that share them, as text lines
//! or JSON Lines objects, and the summary a check of many files gates on.
//!
//! * A finding several engines share (same side file, severity, code and message) is
//!   printed once, with the engines listed: `x.mdl: glquake, quakespasm: hazard: …`.
//! * Folders are walked recursively (symlinked folders are not followed); every model
//!   under them is checked, and a one-line summary ends the output:
//!   `checked N files: X refused, Y hazards, Z warnings, W unreadable`.
//! * Archives (`.pk3`, `.pk4`, `.pak`) found in a folder are named as not checked yet,
//!   one line each on stderr; they do not fail the check.
//! * Exit status: 0 when no finding is at or above `--fail-on` (default `hazard`) and
//!   every file could be read; 1 when one is, or a file cannot be read or parsed; 2 for
//!   a usage error (an `--engine` that does not load a file named on the command line).

use std::path::Path;

use serde::Serialize;

use crate::failure::line;
use crate::formats::{Engine, Finding, Input, Location, Severity};
use crate::model::identify;

/// One finding, merged over the engines that share it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The engines, in the order the format's check reports them.
    pub engines: Vec<Engine>,
    /// The side file it is about (`lower_default.skin`), `None` for the model itself.
    pub file: Option<String>,
    /// How bad it is.
    pub severity: Severity,
    /// The library's code for the kind of finding.
    pub code: &'static str,
    /// The one-line message.
    pub message: String,
    /// Where, when the finding says.
    pub location: Option<Location>,
}

/// Merges findings that differ only in their engine, keeping the first one's place.
pub fn merge(findings: Vec<Finding>) -> Vec<Merged> {
    let mut out: Vec<Merged> = Vec::new();
    for f in findings {
        let message = f.message.replace(['\n', '\r'], " ");
        let same = out.iter_mut().find(|m| {
            m.file == f.file && m.severity == f.severity && m.code == f.code && m.message == message
        });
        match same {
            Some(m) => {
                if !m.engines.contains(&f.engine) {
                    m.engines.push(f.engine);
                }
            }
            None => out.push(Merged {
                engines: vec![f.engine],
                file: f.file,
                severity: f.severity,
                code: f.code,
                message,
                location: f.location,
            }),
        }
    }
    out
}

impl Merged {
    /// The text line: `path: engine, engine: [side file: ]severity: message`.
    pub fn text(&self, path: &Path) -> String {
        let engines: Vec<&str> = self.engines.iter().map(|e| e.name()).collect();
        let side = self
            .file
            .as_deref()
            .map(|f| format!("{f}: "))
            .unwrap_or_default();
        format!(
            "{}: {}: {side}{}: {}",
            path.display(),
            engines.join(", "),
            self.severity,
            self.message
        )
    }

    /// The `--json` object (one line).
    /// The `check --json` line of this finding of `model`.
    pub fn json(&self, model: &Path) -> String {
        let file = match &self.file {
            Some(side) => model.parent().unwrap_or(Path::new("")).join(side),
            None => model.to_path_buf(),
        };
        json_line(&JsonFinding {
            file: file.display().to_string(),
            model: model.display().to_string(),
            engines: self.engines.iter().map(|e| e.name()).collect(),
            severity: self.severity.name(),
            code: self.code,
            message: &self.message,
            location: self.location,
        })
    }
}

/// One line of `check --json` (schema in the crate README).
#[derive(Serialize)]
struct JsonFinding<'a> {
    /// The file the finding is in: the model, or the side file beside it.
    file: String,
    /// The model checked.
    model: String,
    /// The engines it is about (empty for a file that cannot be read).
    engines: Vec<&'static str>,
    /// `warning`, `hazard` or `refused`.
    severity: &'static str,
    /// The kind of finding; `unreadable` for a file that cannot be read or parsed.
    code: &'a str,
    /// The one-line message.
    message: &'a str,
    /// `{"offset", "line", "column"}` (each when known) or `null`.
    location: Option<Location>,
}

/// The `check --json` line of a file that cannot be read or parsed: `message` is its
/// one-line failure (naming `path`).
pub fn unreadable_json(path: &Path, message: &str) -> String {
    let prefix = format!("{}: ", path.display());
    let bare = message.strip_prefix(&prefix).unwrap_or(message);
    json_line(&JsonFinding {
        file: path.display().to_string(),
        model: path.display().to_string(),
        engines: Vec::new(),
        severity: Severity::Refused.name(),
        code: "unreadable",
        message: bare,
        location: Location::in_message(bare),
    })
}

fn json_line(value: &impl Serialize) -> String {
    // Serialising these plain structs cannot fail; an empty object keeps the stream valid.
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned())
}

/// The findings of one file.
#[derive(Debug)]
pub struct Checked {
    /// The engines that were checked.
    pub engines: Vec<Engine>,
    /// Its findings, merged over engines.
    pub findings: Vec<Merged>,
}

/// Why a file has no findings to show.
#[derive(Debug)]
pub enum CheckError {
    /// The engine does not load this format (exit 2 for a file named by the user).
    Usage(String),
    /// The file does not parse (exit 1); the line names the file.
    Refused(String),
}

impl From<CheckError> for String {
    fn from(e: CheckError) -> String {
        match e {
            CheckError::Usage(s) | CheckError::Refused(s) => s,
        }
    }
}

/// The findings of `bytes` read from `path`.
pub fn check_bytes(
    path: &Path,
    bytes: &[u8],
    engine: Option<Engine>,
) -> Result<Checked, CheckError> {
    let (format, module) = identify(bytes).map_err(|f| CheckError::Refused(line(path, f)))?;
    let all: Vec<Engine> = Engine::for_format(format).collect();
    if let Some(e) = engine
        && !e.loads(format)
    {
        let names: Vec<&str> = all.iter().map(|e| e.name()).collect();
        return Err(CheckError::Usage(format!(
            "engine '{}' does not load {} files; for this file choose one of: {}",
            e.name(),
            format.name(),
            names.join(", ")
        )));
    }
    let input = Input {
        path,
        format,
        bytes,
    };
    let findings = module
        .check(&input, engine)
        .map_err(|f| CheckError::Refused(line(path, format_args!("refused: {f}"))))?;
    Ok(Checked {
        engines: engine.map_or(all, |e| vec![e]),
        findings: merge(findings),
    })
}

/// The text `check` prints for one file: its finding lines, or `path: ok (engines)`.
pub fn text_report(path: &Path, checked: &Checked) -> String {
    if checked.findings.is_empty() {
        let names: Vec<&str> = checked.engines.iter().map(|e| e.name()).collect();
        return format!("{}: ok ({})", path.display(), names.join(", "));
    }
    let lines: Vec<String> = checked.findings.iter().map(|m| m.text(path)).collect();
    lines.join("\n")
}

/// What a run of `check` found, for the summary line and the exit status.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Model files checked (readable or not).
    pub files: usize,
    /// Findings (merged over engines) by severity.
    pub refused: usize,
    /// Hazard findings.
    pub hazards: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Files that could not be read, identified or parsed, and entries skipped in a walk.
    pub unreadable: usize,
    /// Archives found in folders and not checked.
    pub archives: usize,
    /// Files found in folders whose format `--engine` does not load.
    pub skipped: usize,
    /// Findings at or above `--fail-on` that `--allow` let pass.
    pub allowed: usize,
    /// Whether anything reached `--fail-on` or was unreadable.
    pub failed: bool,
}

impl Summary {
    /// `checked N files: X refused, Y hazards, Z warnings, W unreadable` (and the
    /// archives and files skipped, when there are any).
    pub fn line(&self) -> String {
        let mut s = format!(
            "checked {} files: {} refused, {} hazards, {} warnings, {} unreadable",
            self.files, self.refused, self.hazards, self.warnings, self.unreadable
        );
        if self.archives > 0 {
            s.push_str(&format!(", {} archives not checked", self.archives));
        }
        if self.skipped > 0 {
            s.push_str(&format!(
                ", {} files skipped (not loaded by --engine)",
                self.skipped
            ));
        }
        if self.allowed > 0 {
            s.push_str(&format!(", {} allowed by --allow", self.allowed));
        }
        s
    }

    /// Counts `findings`; one at or above `fail_on` fails the check unless `allow`
    /// names its code.
    pub fn count(&mut self, findings: &[Merged], fail_on: Severity, allow: &[String]) {
        for m in findings {
            match m.severity {
                Severity::Refused => self.refused = self.refused.saturating_add(1),
                Severity::Hazard => self.hazards = self.hazards.saturating_add(1),
                Severity::Warning => self.warnings = self.warnings.saturating_add(1),
            }
            if m.severity >= fail_on {
                if allow.iter().any(|a| a == m.code) {
                    self.allowed = self.allowed.saturating_add(1);
                } else {
                    self.failed = true;
                }
            }
        }
    }

    /// Counts a file that cannot be read, which fails the check.
    pub fn unreadable(&mut self) {
        self.unreadable = self.unreadable.saturating_add(1);
        self.failed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(engine: Engine, severity: Severity, code: &'static str, msg: &str) -> Finding {
        Finding {
            engine,
            file: None,
            severity,
            code,
            location: None,
            message: msg.to_owned(),
        }
    }

    #[test]
    fn shared_findings_are_merged_with_their_engines() {
        let merged = merge(vec![
            finding(Engine::GlQuake, Severity::Hazard, "a", "same"),
            finding(Engine::WinQuake, Severity::Warning, "b", "other"),
            finding(Engine::QuakeSpasm, Severity::Hazard, "a", "same"),
            // Same message, different severity: kept apart.
            finding(Engine::WinQuake, Severity::Refused, "a", "same"),
        ]);
        assert_eq!(merged.len(), 3);
        assert_eq!(merged[0].engines, [Engine::GlQuake, Engine::QuakeSpasm]);
        assert_eq!(
            merged[0].text(Path::new("x.mdl")),
            "x.mdl: glquake, quakespasm: hazard: same"
        );
        assert_eq!(merged[1].engines, [Engine::WinQuake]);
        assert_eq!(merged[2].severity, Severity::Refused);
    }

    #[test]
    fn json_objects_name_the_side_file_and_location() {
        let mut f = finding(Engine::Ioq3, Severity::Warning, "c", "line 3: x");
        f.file = Some("lower_default.skin".to_owned());
        f.location = Location::in_message(&f.message);
        let m = &merge(vec![f])[0];
        let v: serde_json::Value = serde_json::from_str(&m.json(Path::new("p/lower.md3"))).unwrap();
        assert_eq!(v["file"], "p/lower_default.skin");
        assert_eq!(v["model"], "p/lower.md3");
        assert_eq!(v["engines"], serde_json::json!(["ioq3"]));
        assert_eq!(v["location"], serde_json::json!({"line": 3}));
    }

    #[test]
    fn locations_in_messages() {
        let at = |s| Location::in_message(s);
        assert_eq!(at("bad (at byte 84)").unwrap().offset, Some(84));
        let lc = at("x (line 3, column 7)").unwrap();
        assert_eq!((lc.line, lc.column, lc.offset), (Some(3), Some(7), None));
        assert_eq!(at("line 12: odd").unwrap().line, Some(12));
        assert_eq!(at("nothing here"), None);
        assert_eq!(at("(at byte x)"), None);
        assert_eq!(at("lines: 3"), None);
    }

    #[test]
    fn summary_counts_and_gates() {
        let findings = merge(vec![
            finding(Engine::Quake2, Severity::Warning, "w", "w"),
            finding(Engine::Quake2, Severity::Hazard, "h", "h"),
        ]);
        let mut s = Summary::default();
        s.count(&findings, Severity::Refused, &[]);
        assert!(!s.failed);
        s.count(&findings, Severity::Hazard, &[]);
        assert!(s.failed);
        assert_eq!(
            s.line(),
            "checked 0 files: 0 refused, 2 hazards, 2 warnings, 0 unreadable"
        );
        let mut w = Summary::default();
        w.count(&findings[..1], Severity::Hazard, &[]);
        assert!(!w.failed);
        w.count(&findings[..1], Severity::Warning, &[]);
        assert!(w.failed);
    }
}
