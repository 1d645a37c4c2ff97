//! Doom 3 MD5 (md5mesh, md5anim, md5camera).
// wired when idmodel-md5 lands: parse with `idmodel::md5`, fill in the four answers.

use idmodel_gltf::Scene;

use super::{Engine, Finding, FrameMesh, Info, Input, ModelFormat, Request};
use crate::failure::Failure;

/// The Doom 3 MD5 (md5mesh, md5anim, md5camera) module.
pub struct Md5;

impl ModelFormat for Md5 {
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure> {
        Err(Failure::not_wired(input.format))
    }

    fn check(&self, input: &Input<'_>, _engine: Option<Engine>) -> Result<Vec<Finding>, Failure> {
        Err(Failure::not_wired(input.format))
    }

    fn scene(&self, input: &Input<'_>, _request: &Request<'_>) -> Result<Scene, Failure> {
        Err(Failure::not_wired(input.format))
    }

    fn frame(&self, input: &Input<'_>, _request: &Request<'_>) -> Result<FrameMesh, Failure> {
        Err(Failure::not_wired(input.format))
    }
}
