// Validates .glb / .gltf files with the Khronos glTF validator and prints, per file, a
// one-line summary `errors: N warnings: N infos: N hints: N FILE`, then one line per error.
//
// Usage: node crates/gltf/tests/validate.mjs FILE... [--json] [--strict-images]
//   --json           print the validator's full report instead of the summary.
//   --strict-images  a missing external image file is an error (by default a notice).
//
// The validator is found at $IDMODEL_GLTF_VALIDATOR (a path to the package folder), else at
// <workspace>/.validator/node_modules/gltf-validator, installed by
//   npm install --prefix .validator gltf-validator
//
// External resources (.bin buffers, image files) are loaded relative to FILE. A missing
// buffer is an IO_ERROR; a missing image (MD2/MD3 skins are referenced by their game
// path) only prints a notice unless --strict-images is given.
//
// Exit status: 0 when no file has errors, 1 when one has, 2 when the validator or a file
// cannot be loaded.
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg =
  process.env.IDMODEL_GLTF_VALIDATOR ||
  path.join(here, "..", "..", "..", ".validator", "node_modules", "gltf-validator");

const args = process.argv.slice(2);
const json = args.includes("--json");
const strictImages = args.includes("--strict-images");
const files = args.filter((a) => !a.startsWith("--"));
if (files.length === 0) {
  console.error("usage: node validate.mjs FILE... [--json]");
  process.exit(2);
}

let validator;
try {
  validator = createRequire(import.meta.url)(pkg);
} catch (e) {
  console.error(`validate.mjs: cannot load gltf-validator from ${pkg}: ${e.message}`);
  process.exit(2);
}

let status = 0;
for (const file of files) {
  let bytes;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    console.error(`validate.mjs: cannot read ${file}: ${e.message}`);
    status = 2;
    continue;
  }
  const dir = path.dirname(path.resolve(file));
  let report;
  try {
    report = await validator.validateBytes(bytes, {
      uri: path.basename(file),
      maxIssues: 0,
      writeTimestamp: false,
      externalResourceFunction: async (uri) => {
        const full = path.resolve(dir, decodeURIComponent(uri));
        try {
          return new Uint8Array(await readFile(full));
        } catch (e) {
          // Skins named by MD2/MD3 files live in the game's folders, not beside the
          // output: a missing image is a notice (the validator then warns that it cannot
          // recognise the image), a missing buffer an error.
          if (strictImages || /\.bin$/i.test(uri)) throw e;
          console.error(`notice: ${file}: image ${uri} not found; not validated`);
          return new Uint8Array(0);
        }
      },
    });
  } catch (e) {
    console.error(`validate.mjs: validator refused ${file}: ${e}`);
    status = 2;
    continue;
  }
  const i = report.issues;
  if (json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(
      `errors: ${i.numErrors} warnings: ${i.numWarnings} infos: ${i.numInfos} hints: ${i.numHints} ${file}`,
    );
    for (const m of i.messages) {
      if (m.severity === 0) console.log(`  error ${m.code} at ${m.pointer ?? "?"}: ${m.message}`);
    }
  }
  if (i.numErrors !== 0 && status === 0) status = 1;
}
process.exit(status);
