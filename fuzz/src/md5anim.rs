//! md5anim: parsing never panics; whatever parses has every accessor walked and is
//! evaluated (frames, blended times with both root-motion modes, model space); the lexer
//! always makes progress.

use idmodel::md5::Engine;
use idmodel::md5::anim::{self, Anim};
use idmodel::md5::lexer::CommentRule;
use idmodel::md5::pose::{self, JointPose, RootMotion};
use idmodel_core::quat::JointMat;

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    super::md5mesh::progress(data, false, CommentRule::Engine);
    let Ok(file) = anim::parse(data) else {
        return;
    };
    let _ = file.findings(Engine::Doom3);
    assert_eq!(file.hierarchy().count(), file.num_joints());
    assert_eq!(file.bounds().count(), file.num_frames());
    assert_eq!(file.base_frame().count(), file.num_joints());
    let mut frames = 0;
    for f in file.frames() {
        frames += 1;
        assert_eq!(f.components().count(), file.num_animated_components());
    }
    assert_eq!(frames, file.num_frames());
    let a = Anim::from(&file);
    let _ = a.findings(Engine::Doom3);
    let _ = a.length_ms();
    let n = a.hierarchy.len();
    let mut local = vec![JointPose::IDENTITY; n];
    let mut scratch = local.clone();
    let mut model = vec![JointMat::IDENTITY; n];
    for f in 0..a.num_frames().min(8) {
        a.local_pose(f, &mut local);
        pose::model_space(&a.hierarchy, &local, &mut model);
    }
    for t in [-1, 0, 1, 17, 999, 123_456, i32::MAX] {
        for root in [RootMotion::Raw, RootMotion::Extract] {
            a.local_pose_at(t, root, &mut scratch, &mut local);
        }
    }
}
