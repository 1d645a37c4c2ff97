"""idmodel for Blender: import and export Quake MDL, Quake II MD2, Quake III MD3 (and
player folders) and Doom 3 md5mesh/md5anim through the `idmodel` Python package and
Blender's own glTF importer and exporter. See docs/blender.md.

A legacy add-on for Blender 3.4+ (`bl_info`, the `idmodel` package bundled in `vendor/`)
and an extension for Blender 4.2+ (`blender_manifest.toml`, the package as a wheel).
"""

bl_info = {
    "name": "idmodel: Quake MDL, MD2, MD3, Doom 3 md5",
    "author": "The idmodel developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import/Export; 3D View > Sidebar > idmodel",
    "description": "Import and export Quake MDL, Quake II MD2, Quake III MD3 and Doom 3 "
    "md5 models, checked against the engines' limits",
    "category": "Import-Export",
}

import bpy  # noqa: E402

from . import export_op, import_op, limits_panel  # noqa: E402

_classes = (import_op.IMPORT_SCENE_OT_idmodel, export_op.EXPORT_SCENE_OT_idmodel)


def register():
    for cls in _classes:
        bpy.utils.register_class(cls)
    limits_panel.register()
    bpy.types.TOPBAR_MT_file_import.append(import_op.menu_import)
    bpy.types.TOPBAR_MT_file_export.append(export_op.menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(export_op.menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(import_op.menu_import)
    limits_panel.unregister()
    for cls in reversed(_classes):
        bpy.utils.unregister_class(cls)
