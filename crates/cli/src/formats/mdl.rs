//! Quake MDL.
// wired when idmodel-mdl lands: parse with `idmodel::mdl`, fill in the four answers.

use idmodel_gltf::Scene;

use super::{Engine, Finding, FrameMesh, Info, Input, ModelFormat, Request};
use crate::failure::Failure;

/// The Quake MDL module.
pub struct Mdl;

impl ModelFormat for Mdl {
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
