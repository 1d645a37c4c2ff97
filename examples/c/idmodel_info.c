/* idmodel_info: load a model file of any format idmodel reads through the C API and
 * print one JSON line with the keys `idmodel info --json` prints for it:
 *
 *   {"format":"md3","frames":1,"vertices":785,"triangles":1208}
 *
 * Exit status 0 on success, 1 when the file cannot be read or is not a valid model (the
 * error, with its byte offset, goes to stderr). No allocation happens inside idmodel: the
 * file buffer and the handle are this program's. */
#include <stdio.h>
#include <stdlib.h>

#include "idmodel.h"

static unsigned char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    unsigned char *bigger = realloc(buf, cap * 2);
    if (!bigger) { free(buf); buf = NULL; break; }
    buf = bigger;
    cap *= 2;
  }
  if (ferror(f)) { free(buf); buf = NULL; }
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  unsigned char *data = read_file(argv[1], &len);
  if (!data) {
    perror(argv[1]);
    return 1;
  }
  idmodel_model model; /* caller storage: the handle borrows `data` */
  idmodel_error err;
  idmodel_info_t info;
  if (idmodel_parse(data, len, &model, sizeof model, &err) != IDMODEL_OK ||
      idmodel_info(&model, &info, &err) != IDMODEL_OK) {
    if (err.offset != IDMODEL_NO_OFFSET)
      fprintf(stderr, "%s: %s (byte %llu)\n", argv[1], err.message,
              (unsigned long long)err.offset);
    else
      fprintf(stderr, "%s: %s\n", argv[1], err.message);
    free(data);
    return 1;
  }
  printf("{\"format\":\"%s\",\"frames\":%llu,\"vertices\":%llu,\"triangles\":%llu}\n",
         idmodel_format_id(info.format), (unsigned long long)info.frames,
         (unsigned long long)info.vertices, (unsigned long long)info.triangles);
  idmodel_release(&model);
  free(data);
  return 0;
}
