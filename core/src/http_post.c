/*
** http_post.c — one JSON POST to an OpenAI-compatible service (DESIGN.md
** "judgment enters through operator-configured hooks"): what the remote
** embedder (embed_http.c, `/v1/embeddings`) and the ARG route hook's
** chat-completions client (lua/kip/arg/route_llm.lua, seed 003 step 3's
** "LLM-assisted routing") send. http and https only, a total timeout and a
** connect timeout, no signals (safe in threaded hosts), a reply of at most
** 64 MiB; the API key is sent as a Bearer token and never kept.
*/
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "kipint.h"

#define REPLY_MAX (64u << 20)

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
  kip_buf *b = ud;
  if (b->len + size * n > REPLY_MAX) return 0; /* too long for any reply we read */
  kip_buf_add(b, p, size * n);
  return size * n;
}

int kip_http_post_json(const char *url, const char *body, const char *bearer, int timeout_ms, char **reply,
                       size_t *reply_len, long *status, char *msg, size_t msglen) {
  *reply = NULL;
  *reply_len = 0;
  *status = 0;
  if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))) {
    snprintf(msg, msglen, "\"%s\" is not an http(s) URL", url ? url : "");
    return 1;
  }
  static int curl_ready;
  if (!curl_ready && curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK) curl_ready = 1;
  long timeout = timeout_ms > 0 ? timeout_ms : 30000;
  CURL *c = curl_easy_init();
  if (!c) {
    snprintf(msg, msglen, "cannot start an HTTP request");
    return 1;
  }
  struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
  if (bearer && *bearer) {
    kip_buf auth;
    kip_buf_init(&auth);
    kip_buf_printf(&auth, "Authorization: Bearer %s", bearer);
    hdr = curl_slist_append(hdr, auth.p);
    kip_buf_free(&auth);
  }
  kip_buf out;
  kip_buf_init(&out);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "{}");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout < 5000 ? timeout : 5000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  CURLcode cc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
  curl_slist_free_all(hdr);
  curl_easy_cleanup(c);
  if (cc != CURLE_OK) {
    snprintf(msg, msglen, "%s: %s", url, curl_easy_strerror(cc));
    kip_buf_free(&out);
    return 1;
  }
  *reply_len = out.len;
  kip_buf_addc(&out, '\0');
  *reply = kip_buf_detach(&out);
  return 0;
}
