#![no_main]
//! md5anim: parsing never panics; whatever parses has every accessor walked and is
//! evaluated (frames, blended times with both root-motion modes, model space); the lexer
//! always makes progress.

use idmodel::md5::Profile;
use idmodel::md5::anim::{self, Anim};
use idmodel::md5::lexer::{CommentRule, Lexer};
use idmodel::md5::pose::{self, JointPose, RootMotion};
use idmodel_core::quat::JointMat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut lex = Lexer::new(data, false, CommentRule::Engine);
    let mut last = 0usize;
    while let Ok(Some(_)) = lex.next_token() {
        assert!(lex.pos() > last, "no progress at byte {last}");
        last = lex.pos();
    }
    let Ok(file) = anim::parse(data) else {
        return;
    };
    let _ = file.findings(Profile::Doom3);
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
    let _ = a.findings(Profile::Doom3);
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
});
