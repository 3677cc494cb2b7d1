/*
** fold.c — the duplicate key of sleep-cycle Phase 6 (SystemInstructions.md
** "Duplicate Detection"; ../shared/sleep rule 4): NFKD, combining marks
** dropped, case-folded, every non-alphanumeric character turned into a
** space, runs of spaces collapsed, trimmed. "Malmö Central Station" and
** "malmo  central-station" share the key "malmo central station".
**
** ASCII is handled directly; other code points of the Latin, ligature,
** fullwidth and punctuation blocks come from fold_table.h (generated from
** Python's unicodedata by tools/gen_fold_table.py); combining marks
** (U+0300–U+036F) are dropped; any other code point is kept as it is.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kipint.h"
#include "fold_table.h"

static const char *lookup(unsigned cp) {
  size_t lo = 0, hi = sizeof FOLD_TABLE / sizeof *FOLD_TABLE;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (FOLD_TABLE[mid].cp == cp) return FOLD_TABLE[mid].to;
    if (FOLD_TABLE[mid].cp < cp) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* the next code point of s[*i..n) (a malformed byte reads as itself) */
static unsigned next_cp(const unsigned char *s, size_t n, size_t *i, size_t *len) {
  unsigned c = s[*i];
  size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
  if (*i + k > n) k = 1;
  unsigned cp = k == 1 ? c : k == 2 ? c & 0x1F : k == 3 ? c & 0x0F : c & 0x07;
  for (size_t j = 1; j < k; j++) {
    if ((s[*i + j] & 0xC0) != 0x80) {
      k = 1;
      cp = c;
      break;
    }
    cp = (cp << 6) | (s[*i + j] & 0x3F);
  }
  *len = k;
  *i += k;
  return cp;
}

char *kip_fold_key(const char *text) {
  const unsigned char *s = (const unsigned char *)(text ? text : "");
  size_t n = strlen((const char *)s), i = 0;
  kip_buf raw;
  kip_buf_init(&raw);
  while (i < n) {
    size_t start = i, len;
    unsigned cp = next_cp(s, n, &i, &len);
    if (cp < 0x80) kip_buf_addc(&raw, isalnum((int)cp) ? (char)tolower((int)cp) : ' ');
    else if (cp >= 0x300 && cp <= 0x36F) continue; /* combining marks */
    else {
      const char *to = lookup(cp);
      if (to) kip_buf_adds(&raw, to);
      else kip_buf_add(&raw, (const char *)s + start, len);
    }
  }
  /* collapse and trim spaces */
  char *out = malloc(raw.len + 1);
  if (!out) abort();
  size_t w = 0;
  for (size_t k = 0; k < raw.len; k++) {
    if (raw.p[k] == ' ' && (w == 0 || out[w - 1] == ' ')) continue;
    out[w++] = raw.p[k];
  }
  while (w && out[w - 1] == ' ') w--;
  out[w] = 0;
  kip_buf_free(&raw);
  return out;
}
