//! Prints a summary of MD3 files and what each engine would do with them; `.skin` and
//! `animation.cfg` files are parsed and checked too.
//!
//! `cargo run -p idmodel-md3 --example md3info -- FILE...`
// Example code: a panic on a bad command line is fine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use idmodel_md3::{AnimationCfg, ENGINES, Engine, Md3, Skin};

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).expect("readable file");
        println!("{path}:");
        if path.ends_with(".skin") {
            match Skin::parse(&bytes) {
                Ok(skin) => {
                    for e in skin.entries() {
                        println!(
                            "  line {}: {:?} {} -> {}",
                            e.line,
                            e.kind,
                            e.name(),
                            e.shader()
                        );
                    }
                    for f in skin.findings(None, Engine::Ioq3) {
                        println!("  {f}");
                    }
                }
                Err(e) => println!("  error: {e}"),
            }
            continue;
        }
        if path.ends_with(".cfg") {
            match AnimationCfg::parse(&bytes) {
                Ok(cfg) => {
                    println!(
                        "  {:?} {:?} head offset {:?}",
                        cfg.gender(),
                        cfg.footsteps(),
                        cfg.head_offset()
                    );
                    match cfg.q3() {
                        Ok(q3) => {
                            for (id, a) in q3.iter() {
                                println!("  {:<18} {:?}", id.name(), a);
                            }
                        }
                        Err(e) => println!("  quake3: {e}"),
                    }
                    for f in cfg.findings(None, Engine::Ioq3) {
                        println!("  {f}");
                    }
                }
                Err(e) => println!("  error: {e}"),
            }
            continue;
        }
        match Md3::parse(&bytes) {
            Ok(m) => {
                println!(
                    "  name '{}', {} frames, {} tags, {} surfaces, {} trailing bytes",
                    m.name(),
                    m.num_frames(),
                    m.num_tags(),
                    m.num_surfaces(),
                    m.trailing_bytes().len()
                );
                for t in m.tag_names() {
                    println!("  tag '{t}'");
                }
                for s in m.surfaces() {
                    println!(
                        "  surface {} '{}' (engine '{}'): {} verts, {} tris, {} frames, shader '{}'",
                        s.index(),
                        s.name(),
                        s.engine_name(),
                        s.num_verts(),
                        s.triangles().len(),
                        s.num_frames(),
                        s.shaders().first().map(|sh| sh.name()).unwrap_or_default()
                    );
                }
                for p in ENGINES {
                    for f in m.findings(*p) {
                        println!("  {f}");
                    }
                }
            }
            Err(e) => println!("  error: {e}"),
        }
    }
}
