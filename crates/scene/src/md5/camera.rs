//! md5camera → an animated perspective camera on one node ([`scene`]). See the
//! [parent module](super).

use alloc::borrow::ToOwned;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::quat::{self, Quat, Vec3};
use idmodel_core::vec::{finite_or_zero, quat_continuous};
use idmodel_md5::camera::{Camera as CameraFile, CameraFrame, USERCMD_HZ};

use super::{seconds, standard};
use crate::axes::yfov_from_xfov;
use crate::{
    Animation, Camera, Channel, ChannelValues, Interpolation, Node, Options, Result, Scene,
    frame_out_of_range,
};

/// The view aspect ratio used to turn Doom's horizontal fov into a vertical one (Doom 3's
/// default 640×480 view).
pub const CAMERA_ASPECT: f32 = 4.0 / 3.0;

/// Doom 3's near clip distance (`r_znear`).
pub const CAMERA_ZNEAR: f32 = 3.0;

/// The vertical fov (radians) for Doom's horizontal fov in degrees (90° for a fov outside
/// (0°, 180°)).
pub fn yfov(fov_x: f32) -> f32 {
    let fov = if fov_x.is_finite() && fov_x > 0.0 && fov_x < 180.0 {
        fov_x
    } else {
        90.0
    };
    yfov_from_xfov(fov, CAMERA_ASPECT)
}

/// A time strictly between `t0` and `t1`, just before `t1`.
fn just_before(t1: f32, t0: f32) -> Option<f32> {
    let c = t1 - (t1 - t0) * 0.001;
    if c > t0 && c < t1 {
        return Some(c);
    }
    let c = f32::from_bits(t1.to_bits().checked_sub(1)?);
    (c > t0 && c < t1).then_some(c)
}

/// The camera's keys: times and the stored frame shown at each, and the interpolation.
fn camera_keys(cam: &CameraFile) -> (Vec<f32>, Vec<usize>, Interpolation) {
    let last = cam.frames.len().saturating_sub(1);
    let step = cam.frame_rate == USERCMD_HZ;
    let per_second = if step {
        1000.0 / 16.0 // USERCMD_MSEC: one frame per 16 ms tick
    } else {
        f64::from(cam.frame_rate.max(1))
    };
    let cuts: Vec<usize> = cam
        .cuts
        .iter()
        .map(|&c| usize::try_from(c).unwrap_or(usize::MAX))
        .collect();
    // GetViewParms: frame = k, then every cut (in file order) ≤ frame adds one; a cut
    // passed at k is passed at k + 1 too, so the walk resumes where it stopped.
    let mut passed = 0usize;
    let mut shown = |k: usize| {
        let mut frame = k.saturating_add(passed);
        while let Some(&c) = cuts.get(passed) {
            if frame < c {
                break;
            }
            frame = frame.saturating_add(1);
            passed = passed.saturating_add(1);
        }
        frame.min(last)
    };
    let mut times = Vec::new();
    let mut frames = Vec::new();
    let mut k = 0usize;
    let mut current = shown(0);
    loop {
        let t = seconds(k, per_second);
        times.push(t);
        frames.push(current);
        if current >= last {
            break;
        }
        let next_k = k.saturating_add(1);
        let next = shown(next_k);
        let target = current.saturating_add(1);
        if !step && next != target {
            // A cut: Doom lerps towards the frame before the cut, then jumps.
            if let Some(before) = just_before(seconds(next_k, per_second), t) {
                times.push(before);
                frames.push(target);
            }
        }
        k = next_k;
        current = next;
    }
    let interpolation = if step {
        Interpolation::Step
    } else {
        Interpolation::Linear
    };
    (times, frames, interpolation)
}

fn camera_pose(f: &CameraFrame) -> (Vec3, Quat) {
    (finite_or_zero(f.position), standard(f.quat()))
}

/// The camera path as a scene named `name`: one camera node in stored frame
/// [`Options::frame`] (default 0) and, without a frame, its animation.
pub fn scene(cam: &CameraFile, name: &str, options: &Options) -> Result<Scene> {
    let n = options.frame.unwrap_or(0);
    let Some(first) = cam.frames.get(n) else {
        return Err(frame_out_of_range(
            n,
            cam.frames.len(),
            "camera",
            "frames",
            "",
        ));
    };
    let mut node = Node::new(name.to_owned());
    (node.translation, node.rotation) = camera_pose(first);
    node.camera = Some(0);
    let mut animations = Vec::new();
    if options.frame.is_none() && cam.frames.len() > 1 {
        let (times, frames, interpolation) = camera_keys(cam);
        let poses: Vec<(Vec3, Quat)> = frames
            .iter()
            .map(|&i| {
                cam.frames
                    .get(i)
                    .map_or(([0.0; 3], quat::IDENTITY), camera_pose)
            })
            .collect();
        let mut rotations: Vec<Quat> = poses.iter().map(|p| p.1).collect();
        quat_continuous(&mut rotations);
        animations.push(Animation {
            name: name.to_owned(),
            channels: vec![
                Channel {
                    node: 0,
                    times: times.clone(),
                    interpolation,
                    values: ChannelValues::Translation(poses.iter().map(|p| p.0).collect()),
                },
                Channel {
                    node: 0,
                    times,
                    interpolation,
                    values: ChannelValues::Rotation(rotations),
                },
            ],
        });
    }
    Ok(Scene {
        name: name.to_owned(),
        nodes: vec![node],
        animations,
        cameras: vec![Camera {
            name: name.to_owned(),
            yfov: yfov(first.fov),
            aspect_ratio: Some(CAMERA_ASPECT),
            znear: CAMERA_ZNEAR,
            zfar: None,
        }],
        ..Scene::default()
    })
}
