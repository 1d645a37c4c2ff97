/* The C API's test program, run by examples/c/test.sh on every corpus file (and again
 * under AddressSanitizer and UndefinedBehaviorSanitizer):
 *
 *   test_capi MODEL            exercise every call on a valid model; exit 0 when all hold
 *   test_capi --error MODEL    the model must be refused with an error (not a crash)
 *   test_capi --self           argument checks that need no file (null, short, bad handle)
 *
 * Every failed expectation prints "FAIL file:line: what" and makes the exit status 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmodel.h"

static int failures = 0;
#define EXPECT(cond, ...)                                            \
  do {                                                               \
    if (!(cond)) {                                                   \
      failures++;                                                    \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
      fprintf(stderr, __VA_ARGS__);                                  \
      fprintf(stderr, "\n");                                         \
    }                                                                \
  } while (0)

static unsigned char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  *len = n > 0 ? (size_t)n : 0;
  return buf;
}

static void on_finding(void *user, const idmodel_finding *f) {
  size_t *n = user;
  (*n)++;
  EXPECT(f->engine >= 0 && f->engine <= IDMODEL_ENGINE_DOOM3, "engine %d", f->engine);
  EXPECT(f->severity >= IDMODEL_SEVERITY_WARNING && f->severity <= IDMODEL_SEVERITY_REFUSED,
         "severity %d", f->severity);
  EXPECT(f->code && strlen(f->code) > 0, "finding without a code");
  EXPECT(f->message && strlen(f->message) > 0, "finding without a message");
}

/* A too-short array must give BUFFER_TOO_SMALL with the size needed, and leave the
 * bytes past the given length alone. */
#define CHECK_SHORT(call_with_len, needed)                                            \
  do {                                                                                \
    if ((needed) > 0) {                                                               \
      idmodel_error e_;                                                               \
      int rc_ = (call_with_len);                                                      \
      EXPECT(rc_ == IDMODEL_E_BUFFER_TOO_SMALL, "short array: code %d (%s)", rc_,     \
             e_.message);                                                             \
      EXPECT(e_.required == (uint64_t)(needed), "required %llu, expected %llu",       \
             (unsigned long long)e_.required, (unsigned long long)(needed));          \
    }                                                                                 \
  } while (0)

static void exercise_mesh(const idmodel_model *m, const idmodel_info_t *info, uint64_t mesh) {
  idmodel_error err;
  idmodel_mesh_info_t mi;
  int rc = idmodel_mesh_info(m, mesh, &mi, &err);
  EXPECT(rc == IDMODEL_OK, "mesh_info %llu: %s", (unsigned long long)mesh, err.message);
  if (rc != IDMODEL_OK) return;
  size_t nv = (size_t)mi.vertices, nt = (size_t)mi.triangles;

  /* Indices: in range of the vertices. */
  uint32_t *idx = malloc((nt * 3 + 1) * sizeof *idx);
  rc = idmodel_indices(m, mesh, idx, nt * 3, &err);
  EXPECT(rc == IDMODEL_OK, "indices: %s", err.message);
  if (rc == IDMODEL_OK && info->format != IDMODEL_FORMAT_MD5MESH)
    for (size_t i = 0; i < nt * 3; i++)
      EXPECT(idx[i] < nv, "index %zu = %u >= %zu vertices", i, idx[i], nv);
  CHECK_SHORT(idmodel_indices(m, mesh, idx, nt * 3 - 1, &e_), nt * 3);
  free(idx);

  /* Frames: first, last, and halfway between them; finite values. */
  float *pos = malloc((nv * 3 + 1) * sizeof *pos), *nrm = malloc((nv * 3 + 1) * sizeof *nrm);
  if (info->format == IDMODEL_FORMAT_MD5MESH) {
    rc = idmodel_frame(m, mesh, 0, 0, 0.0f, pos, nrm, nv * 3, &err);
    EXPECT(rc == IDMODEL_E_UNSUPPORTED, "md5mesh frame: code %d", rc);
  } else if (mi.frames > 0) {
    uint64_t last = mi.frames - 1;
    rc = idmodel_frame(m, mesh, 0, last, 0.5f, pos, nrm, nv * 3, &err);
    EXPECT(rc == IDMODEL_OK, "frame lerp: %s", err.message);
    rc = idmodel_frame(m, mesh, last, last, 0.0f, pos, nrm, nv * 3, &err);
    EXPECT(rc == IDMODEL_OK, "frame last: %s", err.message);
    rc = idmodel_frame(m, mesh, 0, mi.frames, 0.0f, pos, nrm, nv * 3, &err);
    EXPECT(rc == IDMODEL_E_RANGE, "frame past the end: code %d", rc);
    if (nv > 0) {
      CHECK_SHORT(idmodel_frame(m, mesh, 0, 0, 0.0f, pos, nrm, nv * 3 - 1, &e_), nv * 3);
      rc = idmodel_frame(m, mesh, 0, 0, 0.0f, pos, pos, nv * 3, &err);
      EXPECT(rc == IDMODEL_E_OVERLAP, "positions == normals: code %d", rc);
      rc = idmodel_frame(m, mesh, 0, 0, 0.0f, NULL, nrm, nv * 3, &err);
      EXPECT(rc == IDMODEL_E_NULL, "null positions: code %d", rc);
      rc = idmodel_frame(m, mesh, 0, 0, 0.0f, (float *)((char *)pos + 1), nrm, nv * 3 - 1, &err);
      EXPECT(rc == IDMODEL_E_MISALIGNED, "misaligned positions: code %d", rc);
    }
  }

  /* Texture coordinates: per vertex (MD3, md5mesh) or per corner (MDL, MD2, MD3). */
  float *uv = malloc((nt * 6 + nv * 2 + 1) * sizeof *uv);
  if (info->format == IDMODEL_FORMAT_MD3 || info->format == IDMODEL_FORMAT_MD5MESH) {
    rc = idmodel_uvs(m, mesh, uv, nv * 2, &err);
    EXPECT(rc == IDMODEL_OK, "uvs: %s", err.message);
    CHECK_SHORT(idmodel_uvs(m, mesh, uv, nv * 2 - 1, &e_), nv * 2);
  } else {
    rc = idmodel_uvs(m, mesh, uv, nv * 2, &err);
    EXPECT(rc == IDMODEL_E_UNSUPPORTED, "per-vertex uvs of MDL/MD2: code %d", rc);
  }
  if (info->format != IDMODEL_FORMAT_MD5MESH) {
    rc = idmodel_corner_uvs(m, mesh, uv, nt * 6, &err);
    EXPECT(rc == IDMODEL_OK, "corner uvs: %s", err.message);
    CHECK_SHORT(idmodel_corner_uvs(m, mesh, uv, nt * 6 - 1, &e_), nt * 6);
  }
  free(uv);

  /* md5mesh: bind pose, then skinning. */
  if (info->format == IDMODEL_FORMAT_MD5MESH) {
    size_t nj = (size_t)info->joints;
    idmodel_joint *joints = malloc((nj + 1) * sizeof *joints);
    rc = idmodel_md5_pose(m, 0, NULL, 0, joints, nj, &err);
    EXPECT(rc == IDMODEL_OK, "md5 bind pose: %s", err.message);
    CHECK_SHORT(idmodel_md5_pose(m, 0, NULL, 0, joints, nj - 1, &e_), nj);
    rc = idmodel_md5_skin(m, mesh, joints, nj, pos, nv * 3, &err);
    EXPECT(rc == IDMODEL_OK, "md5 skin: %s", err.message);
    CHECK_SHORT(idmodel_md5_skin(m, mesh, joints, nj, pos, nv * 3 - 1, &e_), nv * 3);
    rc = idmodel_md5_skin(m, mesh, joints, nj, (float *)joints, nv * 3, &err);
    EXPECT(nv == 0 || rc == IDMODEL_E_OVERLAP || rc == IDMODEL_E_BUFFER_TOO_SMALL,
           "skin output over the joints: code %d", rc);
    free(joints);
  }
  free(pos);
  free(nrm);
}

static int exercise(const char *path) {
  size_t len = 0;
  unsigned char *data = read_file(path, &len);
  if (!data) { perror(path); return 1; }
  idmodel_model m;
  idmodel_error err;
  int rc = idmodel_parse(data, len, &m, sizeof m, &err);
  EXPECT(rc == IDMODEL_OK, "%s: parse: %s", path, err.message);
  if (rc != IDMODEL_OK) { free(data); return 1; }
  EXPECT(idmodel_detect(data, len) != IDMODEL_FORMAT_NONE, "detect");

  idmodel_info_t info;
  rc = idmodel_info(&m, &info, &err);
  EXPECT(rc == IDMODEL_OK, "info: %s", err.message);
  uint64_t vertices = 0, triangles = 0;
  for (uint64_t i = 0; i < info.meshes; i++) {
    idmodel_mesh_info_t mi;
    if (idmodel_mesh_info(&m, i, &mi, &err) == IDMODEL_OK) {
      vertices += mi.vertices;
      triangles += mi.triangles;
    }
    exercise_mesh(&m, &info, i);
  }
  EXPECT(vertices == info.vertices && triangles == info.triangles,
         "mesh counts add up to %llu/%llu, info says %llu/%llu", (unsigned long long)vertices,
         (unsigned long long)triangles, (unsigned long long)info.vertices,
         (unsigned long long)info.triangles);
  idmodel_mesh_info_t mi;
  rc = idmodel_mesh_info(&m, info.meshes, &mi, &err);
  EXPECT(rc == IDMODEL_E_RANGE || rc == IDMODEL_E_UNSUPPORTED, "mesh past the end: code %d", rc);

  /* MD3 tags: every tag, lerped halfway between the first and last frame. */
  for (uint64_t t = 0; t < info.tags; t++) {
    idmodel_tag_t tag;
    rc = idmodel_tag(&m, t, 0, info.frames - 1, 0.5f, &tag, &err);
    EXPECT(rc == IDMODEL_OK, "tag %llu: %s", (unsigned long long)t, err.message);
  }
  if (info.format != IDMODEL_FORMAT_MD3) {
    idmodel_tag_t tag;
    EXPECT(idmodel_tag(&m, 0, 0, 0, 0.0f, &tag, &err) == IDMODEL_E_UNSUPPORTED, "tags");
  }

  /* md5anim: every frame's pose; a short scratch array is refused. */
  if (info.format == IDMODEL_FORMAT_MD5ANIM) {
    size_t nj = (size_t)info.joints, nc = (size_t)info.components;
    idmodel_joint *joints = malloc((nj + 1) * sizeof *joints);
    float *comps = malloc((nc + 1) * sizeof *comps);
    for (uint64_t f = 0; f < info.frames; f++) {
      rc = idmodel_md5_pose(&m, f, comps, nc, joints, nj, &err);
      EXPECT(rc == IDMODEL_OK, "md5anim pose %llu: %s", (unsigned long long)f, err.message);
    }
    EXPECT(idmodel_md5_pose(&m, info.frames, comps, nc, joints, nj, &err) == IDMODEL_E_RANGE,
           "md5anim frame past the end");
    CHECK_SHORT(idmodel_md5_pose(&m, 0, comps, nc - 1, joints, nj, &e_), nc);
    free(joints);
    free(comps);
  }

  /* check: through the callback, for all engines and for each one. */
  size_t all = 0, each = 0;
  rc = idmodel_check(&m, IDMODEL_ENGINE_ALL, on_finding, &all, &err);
  EXPECT(rc == IDMODEL_OK, "check: %s", err.message);
  for (int e = IDMODEL_ENGINE_WINQUAKE; e <= IDMODEL_ENGINE_DOOM3; e++)
    EXPECT(idmodel_check(&m, e, on_finding, &each, &err) == IDMODEL_OK, "check %d", e);
  EXPECT(all == each, "all engines: %zu findings, one by one: %zu", all, each);
  EXPECT(idmodel_check(&m, 99, on_finding, &each, &err) == IDMODEL_E_RANGE, "engine 99");
  EXPECT(idmodel_check(&m, IDMODEL_ENGINE_ALL, NULL, NULL, &err) == IDMODEL_E_NULL,
         "null callback");

  /* Outputs may not overlap the model's own bytes. */
  if (len >= 64 && info.meshes > 0 && info.format != IDMODEL_FORMAT_MD5MESH) {
    idmodel_mesh_info(&m, 0, &mi, &err);
    size_t aligned = (4 - ((uintptr_t)data & 3)) & 3;
    if (mi.triangles * 12 + aligned <= len) {
      rc = idmodel_indices(&m, 0, (uint32_t *)(data + aligned), (size_t)mi.triangles * 3, &err);
      EXPECT(rc == IDMODEL_E_OVERLAP, "indices into the model's bytes: code %d", rc);
    }
  }

  /* A copy of the handle works; a released one does not. */
  idmodel_model copy;
  memcpy(&copy, &m, sizeof m);
  idmodel_info_t again;
  EXPECT(idmodel_info(&copy, &again, &err) == IDMODEL_OK && again.vertices == info.vertices,
         "copied handle");
  idmodel_release(&m);
  EXPECT(idmodel_info(&m, &again, &err) == IDMODEL_E_BAD_HANDLE, "released handle");

  /* Every prefix of the file (stepped for big files): an answer, never a crash. */
  size_t step = len / 512 + 1;
  for (size_t n = 0; n < len; n += step) {
    idmodel_model p;
    if (idmodel_parse(data, n, &p, sizeof p, &err) == IDMODEL_OK) {
      idmodel_info_t pi;
      EXPECT(idmodel_info(&p, &pi, NULL) == IDMODEL_OK, "info of a prefix that parsed");
    } else {
      EXPECT(err.code < 0 && err.message[0] != 0, "prefix %zu: error without a message", n);
    }
  }
  free(data);
  return failures ? 1 : 0;
}

static void worst_finding(void *user, const idmodel_finding *f) {
  int *worst = user;
  if (f->severity > *worst) *worst = f->severity;
}

/* A malformed file: refused by idmodel_parse with a message, or -- where idmodel reads it
 * because the engine loads it (ARCHITECTURE.md rule 1: only what cannot be read safely is
 * refused) -- parsed, with idmodel_check reporting at least a hazard for it. Prints which. */
static int expect_error(const char *path) {
  size_t len = 0;
  unsigned char *data = read_file(path, &len);
  if (!data && len > 0) { perror(path); return 1; }
  idmodel_model m;
  idmodel_error err;
  int rc = idmodel_parse(data ? data : (const unsigned char *)"", len, &m, sizeof m, &err);
  EXPECT(rc == err.code, "%s: code %d, err.code %d", path, rc, err.code);
  idmodel_info_t info;
  if (rc != IDMODEL_OK) {
    EXPECT(err.message[0] != 0, "%s: code %d without a message", path, rc);
    printf("refused: %s\n", err.message);
    EXPECT(idmodel_info(&m, &info, &err) == IDMODEL_E_BAD_HANDLE,
           "a failed parse leaves a bad handle");
  } else {
    int worst = -1;
    EXPECT(idmodel_check(&m, IDMODEL_ENGINE_ALL, worst_finding, &worst, &err) == IDMODEL_OK,
           "check");
    EXPECT(worst >= IDMODEL_SEVERITY_HAZARD, "%s: parsed, and check reports no hazard", path);
    printf("parsed; check reports a %s\n", worst == IDMODEL_SEVERITY_REFUSED ? "refusal" : "hazard");
  }
  free(data);
  return failures ? 1 : 0;
}

static int self_checks(void) {
  idmodel_model m;
  idmodel_error err;
  idmodel_info_t info;
  const unsigned char junk[8] = "IDP3\x0f";
  EXPECT(idmodel_handle_size() == sizeof(idmodel_model), "handle size");
  EXPECT(idmodel_parse(NULL, 0, &m, sizeof m, &err) == IDMODEL_E_NULL, "null data");
  EXPECT(idmodel_parse(junk, sizeof junk, NULL, sizeof m, &err) == IDMODEL_E_NULL, "null out");
  EXPECT(idmodel_parse(junk, sizeof junk, &m, sizeof m - 1, &err) == IDMODEL_E_BUFFER_TOO_SMALL &&
             err.required == sizeof m,
         "short handle storage: required %llu", (unsigned long long)err.required);
  EXPECT(idmodel_parse(junk, sizeof junk, &m, sizeof m, NULL) == IDMODEL_E_PARSE, "null err");
  EXPECT(idmodel_parse(junk, sizeof junk, &m, sizeof m, &err) == IDMODEL_E_PARSE &&
             err.offset != IDMODEL_NO_OFFSET,
         "truncated md3: an offset");
  EXPECT(idmodel_parse(junk, (size_t)-1, &m, sizeof m, &err) == IDMODEL_E_TOO_LARGE, "huge len");
  EXPECT(idmodel_parse((const unsigned char *)"hello", 5, &m, sizeof m, &err) ==
             IDMODEL_E_UNKNOWN_FORMAT,
         "not a model");
  memset(&m, 0, sizeof m);
  EXPECT(idmodel_info(&m, &info, &err) == IDMODEL_E_BAD_HANDLE, "zeroed handle");
  memset(&m, 0xAB, sizeof m);
  EXPECT(idmodel_info(&m, &info, &err) == IDMODEL_E_BAD_HANDLE, "garbage handle");
  EXPECT(idmodel_info(NULL, &info, &err) == IDMODEL_E_NULL, "null model");
  EXPECT(idmodel_info((const idmodel_model *)((const char *)&m + 1), &info, &err) ==
             IDMODEL_E_MISALIGNED,
         "misaligned model");
  EXPECT(idmodel_detect(NULL, 4) == IDMODEL_FORMAT_NONE, "detect null");
  EXPECT(idmodel_detect(junk, 4) == IDMODEL_FORMAT_MD3, "detect md3");
  EXPECT(strcmp(idmodel_format_id(IDMODEL_FORMAT_MD5ANIM), "md5anim") == 0, "format id");
  EXPECT(strcmp(idmodel_format_id(1234), "") == 0, "unknown format id");
  EXPECT(strcmp(idmodel_engine_name(IDMODEL_ENGINE_IOQ3), "ioq3") == 0, "engine name");
  EXPECT(strcmp(idmodel_engine_name(-5), "") == 0, "unknown engine name");
  idmodel_release(NULL);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--self") == 0) return self_checks();
  if (argc == 3 && strcmp(argv[1], "--error") == 0) return expect_error(argv[2]);
  if (argc == 2) return exercise(argv[1]);
  fprintf(stderr, "usage: %s MODEL | --error MODEL | --self\n", argv[0]);
  return 2;
}
