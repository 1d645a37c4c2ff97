"""The idmodel Blender add-on, headless, on corpus models (run by ci/blender-addon.sh).

    blender -b --factory-startup --python-exit-code 1 --python blender/tests/run_addon.py -- CORPUS OUT
    python blender/tests/run_addon.py CORPUS OUT        # with the `bpy` module (4.x)

The add-on is installed from IDMODEL_ADDON_ZIP (blender/build.py's extension zip in
Blender 4.2+, its plain add-on zip in 3.x), else imported from IDMODEL_ADDON_PATH (a
folder holding `idmodel_blender/`), else from this repository's blender/ with
`idmodel` from PYTHONPATH.

For each model: register the add-on, import through its operator, check what Blender
made (shape keys per frame, actions per clip, empties per MD3 tag, an armature and an
action per md5anim), export through its operator to the same format for the format's
default engine, and compare with the original: `idmodel.check` finds nothing the engine
refuses, frames, triangles and tags are the same, and the bytes are identical where
EXPECT_IDENTICAL says so. Then a UV sphere over Quake II's vertex limit: refused with
the check's message, written and accepted with "Fit to engine limits".

IDMODEL_ADDON_IMPORT_OPTIONS (JSON, e.g. '{"file_normals": true}') adds import options to
every model, for measuring them. Prints one line per model and `summary:`; exits 1 when anything failed. Writes the
measurements to OUT/measurements.json.
"""

import json
import os
import sys
import time
import traceback
import zipfile

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))

# Models, relative to the corpus, and the import options they need.
CASES = (
    ("mdl/armor.mdl", {}),  # one frame
    ("mdl/ogre.mdl", {}),  # 147 frames in clips
    ("md2/horse.md2", {}),  # 12 frames
    ("md2/flag.md2", {}),  # 10 frames
    ("md3/watercan.md3", {}),  # one frame, no tags
    ("md3/nailgun.md3", {}),  # two tags, two surfaces
    ("md3/turret_barrel.md3", {}),  # two frames, an animated tag
    ("md3/oa_kyonshi/upper.md3", {"whole_player": True}),  # a Quake III player
    ("md3/trem_human_base/upper.md3", {"whole_player": True}),  # Tremulous: its own clips
    ("md5/blaster_view.md5mesh", {"md5_anims": True}),  # with two md5anims beside it
)

# Where an unedited import → export gives the original bytes back (a player: its three
# .md3 parts), measured on Blender 3.4 and 4.5 with the default options. The others keep
# frames, frame names, triangles, positions, UVs and tags exactly, not every byte:
# Blender reorders vertices, so idmodel's record (raw normals, byte patches) no longer
# applies, and the normals are Blender's. Checked only with the default import options.
EXPECT_IDENTICAL = {"md3/watercan.md3", "md3/turret_barrel.md3", "md3/oa_kyonshi/upper.md3"}

# Players whose animation.cfg idmodel rebuilds wrongly after Blender (measured, not
# asserted): Tremulous' animation.cfg has more clips than Quake III's, idmodel reads it as
# two clips "lower" and "upper", and Blender's resampled key times no longer match the
# record's clip fingerprint, so idmodel writes a Quake III cfg with every clip "0 1 0 15".
KNOWN_CFG_LOSS = {"md3/trem_human_base/upper.md3"}


def arguments():
    argv = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else sys.argv[1:]
    if len(argv) < 2:
        sys.exit("usage: run_addon.py CORPUS OUT")
    return os.path.abspath(argv[0]), os.path.abspath(argv[1])


def load_addon():
    """The add-on's package and its `common` and `limits_panel` modules: installed from
    IDMODEL_ADDON_ZIP as Blender installs it (an extension zip through the extensions
    system, a plain add-on zip through Preferences ▸ Add-ons ▸ Install; point
    BLENDER_USER_RESOURCES / BLENDER_USER_SCRIPTS at a scratch folder), else imported
    from IDMODEL_ADDON_PATH or this repository and registered."""
    zip_path = os.environ.get("IDMODEL_ADDON_ZIP")
    if zip_path:
        with zipfile.ZipFile(zip_path) as z:
            extension = "blender_manifest.toml" in z.namelist()
        if extension:
            res = bpy.ops.extensions.package_install_files(
                filepath=zip_path, repo="user_default", enable_on_install=True)
            name = "bl_ext.user_default.idmodel"
        else:
            import addon_utils

            res = bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
            addon_utils.enable("idmodel_blender", default_set=True, handle_error=None)
            name = "idmodel_blender"
        if res != {"FINISHED"} or name not in sys.modules:
            sys.exit(f"run_addon.py: installing {zip_path} failed ({res})")
        return sys.modules[name], sys.modules[name + ".common"], sys.modules[name + ".limits_panel"]
    path = os.environ.get("IDMODEL_ADDON_PATH") or os.path.dirname(HERE)
    sys.path.insert(0, os.path.abspath(path))
    import idmodel_blender

    idmodel_blender.register()
    from idmodel_blender import common, limits_panel

    return idmodel_blender, common, limits_panel


def reset():
    """An empty scene (factory settings would also disable an installed add-on)."""
    bpy.ops.wm.read_homefile(use_empty=True)


def triangles(model):
    return sum(int(m.triangles.shape[0]) for m in model.meshes)


def tags(model):
    names = getattr(model, "tag_names", None)
    if names is None:
        names = getattr(model, "tags", [])
    return sorted(names)


def frames(model):
    n = getattr(model, "frame_count", None)
    if n is None:
        n = max((m.positions.shape[0] for m in model.meshes), default=0)
    return n


def refused(idm, path, engine):
    return [f.message for f in idm.check(path, engine) if f.severity == "refused"]


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


class Case:
    def __init__(self, rel):
        self.rel = rel
        self.problems = []
        self.m = {"file": rel}

    def expect(self, ok, what):
        if not ok:
            self.problems.append(what)


def blender_made():
    """What the import left in the scene."""
    obs = list(bpy.context.scene.objects)
    meshes = [o for o in obs if o.type == "MESH" and not o.name.startswith("frames of tag_")]
    keys = [len(o.data.shape_keys.key_blocks) if o.data.shape_keys else 0 for o in meshes]
    return {
        "meshes": len(meshes),
        "shape_keys": max(keys, default=0),
        "actions": len(bpy.data.actions),
        "empties": sorted(o.name for o in obs if o.type == "EMPTY"),
        "armatures": sum(o.type == "ARMATURE" for o in obs),
    }


def run_case(idm, common, corpus, out, rel, options):
    c = Case(rel)
    src = os.path.join(corpus, rel)
    fmt = common.format_of_path(src)
    engine = common.DEFAULT_ENGINE[fmt]
    player = options.get("whole_player", False)
    options = dict(options, **json.loads(os.environ.get("IDMODEL_ADDON_IMPORT_OPTIONS") or "{}"))
    reset()
    t = time.perf_counter()
    res = bpy.ops.import_scene.idmodel(filepath=src, **options)
    c.m["import_s"] = round(time.perf_counter() - t, 3)
    c.expect(res == {"FINISHED"}, f"import returned {res}")
    made = blender_made()
    c.m["blender"] = made

    if player:
        folder = os.path.dirname(src)
        originals = {p: idm.load(os.path.join(folder, p + ".md3")) for p in ("lower", "upper", "head")}
        c.expect(made["meshes"] >= 3, f"{made['meshes']} meshes, a player has 3")
        for p, m in originals.items():
            missing = set(tags(m)) - set(made["empties"])
            c.expect(not missing, f"{p}: no empty for tags {sorted(missing)}")
        c.expect(made["actions"] >= 1, "no action")
    elif fmt == "md5mesh":
        anims = [a for a in os.listdir(os.path.dirname(src)) if a.startswith("blaster_view_")
                 and a.endswith(".md5anim")]
        c.expect(made["armatures"] == 1, f"{made['armatures']} armatures")
        c.expect(made["actions"] >= len(anims), f"{made['actions']} actions for {len(anims)} md5anims")
    else:
        orig = idm.load(src)
        n = frames(orig)
        if n > 1:
            c.expect(made["shape_keys"] == n, f"{made['shape_keys']} shape keys for {n} frames")
            c.expect(made["actions"] >= 1, "no action")
        missing = set(tags(orig)) - set(made["empties"])
        c.expect(not missing, f"no empty for tags {sorted(missing)}")

    # Export, unedited, for the format's default engine.
    stem = os.path.splitext(rel.replace("/", "_"))[0]
    if player:
        dest_dir = os.path.join(out, stem + "_player")
        dest = os.path.join(dest_dir, "upper.md3")
    else:
        dest = os.path.join(out, stem + os.path.splitext(src)[1])
    t = time.perf_counter()
    res = bpy.ops.export_scene.idmodel(filepath=dest, format=fmt, player_folder=player)
    c.m["export_s"] = round(time.perf_counter() - t, 3)
    c.expect(res == {"FINISHED"}, f"export returned {res}")
    if res != {"FINISHED"}:
        return c

    if player:
        folder = os.path.dirname(src)
        identical, same = True, []
        for p, m in originals.items():
            back_path = os.path.join(dest_dir, p + ".md3")
            back = idm.load(back_path)
            c.expect(not refused(idm, back_path, engine), f"{p}: {engine} refuses it")
            c.expect(frames(back) == frames(m), f"{p}: frames {frames(m)} → {frames(back)}")
            c.expect(triangles(back) == triangles(m), f"{p}: triangles {triangles(m)} → {triangles(back)}")
            c.expect(tags(back) == tags(m), f"{p}: tags {tags(m)} → {tags(back)}")
            if same_bytes(back_path, os.path.join(folder, p + ".md3")):
                same.append(p)
            else:
                identical = False
        c.m["identical"] = identical
        clips_a, clips_b = idm.load(folder).clips, idm.load(dest_dir).clips
        c.m["clips"] = f"{len(clips_a)} → {len(clips_b)}" + ("" if clips_a == clips_b else " (differ)")
        if rel not in KNOWN_CFG_LOSS:
            c.expect(clips_a == clips_b, f"clips {clips_a} → {clips_b}")
        c.m["compared"] = (f"frames, triangles, tags of lower, upper, head, clips {c.m['clips']}; "
                           f"identical: {', '.join(same) or 'none'}")
    elif fmt == "md5mesh":
        # Blender makes one primitive per material, so md5 meshes that share a shader
        # come back as one mesh: compare triangles, shaders and the anims' frames.
        orig, back = idm.load(src), idm.load(dest)
        c.expect(not refused(idm, dest, engine), f"{engine} refuses it")
        c.expect(triangles(back) == triangles(orig), f"triangles {triangles(orig)} → {triangles(back)}")
        shaders = sorted({m.shader for m in orig.meshes})
        c.expect(sorted({m.shader for m in back.meshes}) == shaders, "shaders differ")
        folder = os.path.dirname(src)
        for a in anims:
            written = os.path.join(out, a)
            if not os.path.exists(written):
                c.expect(False, f"{a} not written")
                continue
            fa, fb = idm.load(os.path.join(folder, a)), idm.load(written)
            c.expect(not refused(idm, written, engine), f"{engine} refuses {a}")
            c.expect(fb.frame_count == fa.frame_count, f"{a}: frames {fa.frame_count} → {fb.frame_count}")
        c.m["identical"] = same_bytes(dest, src)
        c.m["compared"] = (f"triangles {triangles(orig)}, meshes {len(orig.meshes)} → "
                           f"{len(back.meshes)}, {len(anims)} md5anims' frames")
    else:
        back = idm.load(dest)
        c.expect(not refused(idm, dest, engine), f"{engine} refuses it: {refused(idm, dest, engine)}")
        c.expect(frames(back) == frames(orig), f"frames {frames(orig)} → {frames(back)}")
        c.expect(triangles(back) == triangles(orig), f"triangles {triangles(orig)} → {triangles(back)}")
        c.expect(tags(back) == tags(orig), f"tags {tags(orig)} → {tags(back)}")
        c.m["identical"] = same_bytes(dest, src)
        c.m["compared"] = (f"frames {frames(orig)}, triangles {triangles(orig)}, "
                           f"tags {len(tags(orig))}")
    if rel in EXPECT_IDENTICAL and not os.environ.get("IDMODEL_ADDON_IMPORT_OPTIONS"):
        c.expect(c.m["identical"], "bytes differ from the original")
    return c


class Layout:
    """Enough of `bpy.types.UILayout` to record what `draw_counts` shows."""

    def __init__(self, labels=None):
        self.labels = [] if labels is None else labels
        self.alert = False

    def box(self):
        return Layout(self.labels)

    def row(self):
        return Layout(self.labels)

    def label(self, text="", icon="NONE"):
        self.labels.append((text, self.alert))

    def prop(self, *args, **kwargs):
        pass


def run_check_extension(package):
    """The export dialog's `check`: a changed format changes the extension, a typed known
    extension changes the format, a name without one gets the format's."""
    c = Case("export dialog: format and extension in step")
    op = package.export_op.EXPORT_SCENE_OT_idmodel
    for before, fmt, last, after, after_fmt in (
        ("/x/a.md3", "md2", "md3", "/x/a.md2", "md2"),  # format changed
        ("/x/a.mdl", "md3", "md3", "/x/a.mdl", "mdl"),  # extension typed
        ("/x/a", "md5mesh", "md5mesh", "/x/a.md5mesh", "md5mesh"),  # no extension
        ("/x/a.glb", "md2", "md2", "/x/a.glb.md2", "md2"),  # another extension
    ):
        fake = type("Op", (), {})()
        fake.filepath, fake.format, fake.last_format = before, fmt, last
        op.check(fake, None)
        c.expect((fake.filepath, fake.format) == (after, after_fmt),
                 f"{before} ({fmt}, was {last}) → {fake.filepath} ({fake.format})")
    return c


def run_limit(idm, common, limits_panel, out):
    """A UV sphere over Quake II's 2,048 vertices: refused with the check's message; fit."""
    c = Case("uv sphere 64 × 64 → md2 (quake2)")
    reset()
    bpy.ops.mesh.primitive_uv_sphere_add(segments=64, ring_count=64)
    ob = bpy.context.active_object
    verts, tris = limits_panel.mesh_counts(ob.data)
    positions = limits_panel.positions_count(ob.data)
    lim = idm.limits("quake2")
    c.m["counted"] = {"vertex_uv_pairs": int(verts.sum()), "positions": positions,
                      "triangles": int(tris.sum()), "limits": lim}
    c.expect(positions == len(ob.data.vertices), f"{positions} positions, {len(ob.data.vertices)} vertices")
    c.expect(positions > lim["vertices"], f"{positions} vertices, not over the limit")

    # The panel's rows (drawn into a stand-in layout): the sphere in red for Quake II.
    layout = Layout()
    ob.select_set(True)
    limits_panel.draw_counts(layout, bpy.context, "quake2")
    red = [text for text, alert in layout.labels if alert]
    c.expect(any(ob.name in t and f"{positions} vertices" in t for t in red),
             f"the panel does not show {ob.name} in red: {layout.labels}")
    c.m["panel"] = [t for t, _ in layout.labels]

    dest = os.path.join(out, "sphere.md2")
    message = None
    try:
        res = bpy.ops.export_scene.idmodel(filepath=dest, format="md2", engine="quake2")
        c.expect(False, f"export not refused: {res}")
    except RuntimeError as e:  # an operator's ERROR report raises from bpy.ops
        message = str(e)
    c.expect(not os.path.exists(dest), "a refused export wrote a file")
    c.m["refusal"] = message

    forced = os.path.join(out, "sphere_unchecked.md2")
    res = bpy.ops.export_scene.idmodel(filepath=forced, format="md2", engine="quake2", unchecked=True)
    c.expect(res == {"FINISHED"}, f"unchecked export returned {res}")
    found = refused(idm, forced, "quake2")
    c.expect(bool(found), "the check finds nothing refused in the unchecked file")
    c.expect(message is not None and any(f in message for f in found),
             f"refusal {message!r} does not carry the check's message {found}")

    fitted = os.path.join(out, "sphere_fit.md2")
    t = time.perf_counter()
    res = bpy.ops.export_scene.idmodel(filepath=fitted, format="md2", engine="quake2", fit=True)
    c.m["fit_s"] = round(time.perf_counter() - t, 3)
    c.expect(res == {"FINISHED"}, f"fit export returned {res}")
    if res == {"FINISHED"}:
        left = refused(idm, fitted, "quake2")
        c.expect(not left, f"fitted file refused: {left}")
        m = idm.load(fitted)
        c.m["fitted"] = {"triangles": triangles(m), "vertices": sum(int(x.positions.shape[1]) for x in m.meshes)}
    return c


def run_md5_problems(package, out):
    """An md5mesh export of a mesh bound to no armature, with a transform not applied: one
    line each, and the export stops; a mesh weighted to a bone of an armature: no line."""
    c = Case("md5 export problems")
    reset()
    bpy.ops.mesh.primitive_cube_add(location=(1.0, 0.0, 0.0))
    cube = bpy.context.active_object
    dest = os.path.join(out, "cube.md5mesh")
    message = None
    try:
        bpy.ops.export_scene.idmodel(filepath=dest, format="md5mesh", engine="doom3")
        c.expect(False, "an md5 export of a mesh without an armature was not stopped")
    except RuntimeError as e:
        message = str(e)
    c.expect(message is not None and "bound to no armature" in message, f"stopped with {message!r}")
    c.expect(not os.path.exists(dest), "a stopped export wrote a file")
    lines = [line for _, line in package.export_op.md5_problems(bpy.context, False)]
    c.expect(any("unapplied transform" in x for x in lines), f"no transform line in {lines}")
    # Bound and weighted, transform applied: nothing to say.
    bpy.ops.object.transform_apply(location=True, rotation=True, scale=True)
    bpy.ops.object.armature_add()
    arm = bpy.context.active_object
    group = cube.vertex_groups.new(name=arm.data.bones[0].name)
    group.add(list(range(len(cube.data.vertices))), 1.0, "REPLACE")
    mod = cube.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    lines = [line for _, line in package.export_op.md5_problems(bpy.context, False)]
    c.expect(not lines, f"a bound, weighted cube still has problems: {lines}")
    c.m["lines"] = lines
    return c


def main():
    corpus, out = arguments()
    os.makedirs(out, exist_ok=True)
    started = time.perf_counter()
    package, common, limits_panel = load_addon()
    idm = common.idmodel()
    print(f"blender {bpy.app.version_string}, idmodel from {os.path.dirname(idm.__file__)}")
    results = []
    for rel, options in CASES:
        try:
            c = run_case(idm, common, corpus, out, rel, options)
        except Exception:
            c = Case(rel)
            c.problems.append(traceback.format_exc().strip().splitlines()[-1])
            traceback.print_exc()
        results.append(c)
        m = c.m
        status = "ok" if not c.problems else "FAIL"
        print(f"{status} {rel}: import {m.get('import_s')} s, export {m.get('export_s')} s, "
              f"{m.get('compared', '')}, bytes {'identical' if m.get('identical') else 'differ'}"
              + ("" if not c.problems else ": " + "; ".join(c.problems)), flush=True)
    try:
        c = run_limit(idm, common, limits_panel, out)
    except Exception:
        c = Case("uv sphere")
        c.problems.append(traceback.format_exc().strip().splitlines()[-1])
        traceback.print_exc()
    results.append(c)
    print(f"{'ok' if not c.problems else 'FAIL'} {c.rel}: counted {c.m.get('counted')}, "
          f"refused: {(c.m.get('refusal') or '').strip()[:110]!r}…, fit {c.m.get('fitted')}"
          + ("" if not c.problems else ": " + "; ".join(c.problems)), flush=True)

    c = run_check_extension(package)
    results.append(c)
    print(f"{'ok' if not c.problems else 'FAIL'} {c.rel}" + ("" if not c.problems else ": " + "; ".join(c.problems)))

    c = run_md5_problems(package, out)
    results.append(c)
    print(f"{'ok' if not c.problems else 'FAIL'} {c.rel}" + ("" if not c.problems else ": " + "; ".join(c.problems)))

    failed = [r for r in results if r.problems]
    with open(os.path.join(out, "measurements.json"), "w") as f:
        json.dump({"blender": bpy.app.version_string, "results": [dict(r.m, problems=r.problems)
                                                               for r in results]}, f, indent=1)
    print(f"summary: {len(results) - len(failed)} of {len(results)} passed in "
          f"{time.perf_counter() - started:.1f} s (blender {bpy.app.version_string})", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    code = main()
    if not bpy.app.binary_path:
        # The `bpy` module (4.x) can hang in its exit handlers after operators ran; the
        # results are printed and written, so leave at once.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
