/*
** kvec.h — the .kvec file: word vectors for the built-in embedder
** (embed_local.c), written by tools/kvec_convert.c, memory-mapped read-only.
** Little-endian, every section 8-byte aligned, in this order:
**
**   kvec_header
**   float  common[dim]        the common component removed from every sentence vector (unit length)
**   uint32 slots[nslots]      open-addressing table: word index + 1, 0 = empty (FNV-1a of the word)
**   uint32 str_off[nwords]    offset of each word in strings
**   float  scale[nwords]      the word's vector is vec[i] * scale[i]
**   float  weight[nwords]     its SIF weight a / (a + p(w))
**   int8   vec[nwords * dim]
**   char   strings[strings_bytes]   NUL-terminated words
*/
#ifndef KIP_KVEC_H
#define KIP_KVEC_H
#include <stdint.h>

#define KVEC_MAGIC "KIPVEC1"

typedef struct kvec_header {
  char magic[8];
  uint32_t dim, nwords, nslots, strings_bytes;
  char model[96]; /* the model id recorded with the vectors it makes */
} kvec_header;

static inline uint32_t kvec_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 16777619u;
  }
  return h;
}

#define KVEC_ALIGN(x) (((x) + 7u) & ~(size_t)7u)

#endif
