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
        let fovs: Vec<f32> = frames
            .iter()
            .map(|&i| cam.frames.get(i).map_or(yfov(90.0), |f| yfov(f.fov)))
            .collect();
        // The zoom, only where the fov changes (a constant one is the camera's yfov).
        let zoom = fovs
            .iter()
            .any(|&f| f.to_bits() != yfov(first.fov).to_bits());
        let zoom = zoom.then(|| Channel {
            node: 0,
            times: times.clone(),
            interpolation,
            values: ChannelValues::CameraYfov {
                camera: 0,
                yfov: fovs,
            },
        });
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
            ]
            .into_iter()
            .chain(zoom)
            .collect(),
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

#[cfg(test)]
mod tests {
    use super::*;

    const CAMERA: &[u8] = include_bytes!("../../../../samples/sample.md5camera");

    #[test]
    fn a_cut_is_keyed_just_before_it_and_never_interpolated_across() {
        let cam = CameraFile::parse(CAMERA).unwrap();
        let (times, frames, interpolation) = camera_keys(&cam);
        assert_eq!(interpolation, Interpolation::Linear);
        assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
        // The cut at 2: Doom shows stored frames 0, 1, 3, 4, 5 at ticks 0 to 4 (the cut
        // skips frame 2); frame 2, the one before the cut, is keyed just before tick 2,
        // where frame 3 takes over, so nothing is interpolated across the cut.
        assert_eq!(frames, vec![0, 1, 2, 3, 4, 5]);
        let tick = 1.0 / 30.0;
        assert!((times[1] - tick).abs() < 1e-6 && (times[3] - 2.0 * tick).abs() < 1e-6);
        assert!(times[3] - times[2] < tick * 0.01, "{times:?}");
        assert!((times[5] - 4.0 * tick).abs() < 1e-6);
        let s = scene(&cam, "shots", &Options::default()).unwrap();
        assert_eq!(s.animations[0].channels[0].times, times);
        assert_eq!(s.cameras[0].aspect_ratio, Some(CAMERA_ASPECT));
    }

    #[test]
    fn the_zoom_is_a_yfov_channel_where_the_fov_changes() {
        // The sample zooms from 90° to 50° after its cut.
        let cam = CameraFile::parse(CAMERA).unwrap();
        let s = scene(&cam, "c", &Options::default()).unwrap();
        let zoom = s.animations[0]
            .channels
            .iter()
            .find(|c| matches!(c.values, ChannelValues::CameraYfov { .. }))
            .unwrap();
        let ChannelValues::CameraYfov { camera, yfov: v } = &zoom.values else {
            unreachable!()
        };
        assert_eq!(*camera, 0);
        assert_eq!(v.len(), zoom.times.len());
        let (_, frames, _) = camera_keys(&cam);
        for (k, &f) in frames.iter().enumerate() {
            assert_eq!(v[k], yfov(cam.frames[f].fov));
        }
        assert!(v[5] < v[0]);
        // The static first-frame yfov stays on the camera.
        assert_eq!(s.cameras[0].yfov, yfov(90.0));
        // A constant fov: no channel.
        let mut flat = cam.clone();
        for f in &mut flat.frames {
            f.fov = 90.0;
        }
        let s = scene(&flat, "c", &Options::default()).unwrap();
        assert!(
            s.animations[0]
                .channels
                .iter()
                .all(|c| !matches!(c.values, ChannelValues::CameraYfov { .. }))
        );
    }

    #[test]
    fn fovs_outside_the_open_half_turn_are_90_degrees() {
        assert_eq!(yfov(0.0), yfov(90.0));
        assert_eq!(yfov(f32::NAN), yfov(90.0));
        assert_eq!(yfov(180.0), yfov(90.0));
        assert!(yfov(60.0) < yfov(90.0));
        assert_eq!(just_before(1.0, 1.0), None);
        let c = just_before(1.0, 0.0).unwrap();
        assert!((0.999..1.0).contains(&c));
    }
}
