/*
** embed_http.c — an embedder for OpenAI-compatible `POST /v1/embeddings`
** endpoints (Ollama, llama.cpp server, vLLM, hosted APIs; docs/search.md
** "remote embedders"): {"model": M, "input": [texts]} → {"data": [{"index":
** i, "embedding": [...]}, ...]}. The API key is read from an environment
** variable named by the operator, never stored. A remote embedder is never
** called inside a write transaction (in_transaction = 0): changed elements
** are queued and embedded after commit (store_vectors.c), so a slow or
** unreachable service never holds the write lock or fails a write. The
** request itself is http_post.c's.
*/
#include <stdlib.h>
#include <string.h>

#include "kipint.h"

typedef struct http_embedder {
  char *url, *model, *key;
  long timeout_ms;
  int dim;
} http_embedder;

/* POST texts; the vectors into out (dim each, or *dim learned when 0) */
static int request(http_embedder *h, int n, const char *const *texts, float *out, int *dim, char *msg, size_t msglen) {
  json_t *req = json_object(), *input = json_array();
  json_object_set_new(req, "model", json_string(h->model));
  for (int i = 0; i < n; i++) json_array_append_new(input, json_string(texts[i] ? texts[i] : ""));
  json_object_set_new(req, "input", input);
  char *body = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  if (!body) {
    snprintf(msg, msglen, "cannot encode the request");
    return 1;
  }
  char *reply = NULL;
  size_t reply_len = 0;
  long status = 0;
  int failed = kip_http_post_json(h->url, body, h->key, (int)h->timeout_ms, &reply, &reply_len, &status, msg, msglen);
  free(body);
  if (failed) return 1;
  int rc = 1;
  json_t *r = NULL;
  if (status != 200) snprintf(msg, msglen, "%s answered HTTP %ld", h->url, status);
  else if (!(r = json_loadb(reply, reply_len, 0, NULL)) || !json_is_array(json_object_get(r, "data")))
    snprintf(msg, msglen, "%s answered something that is not an embeddings reply", h->url);
  else {
    json_t *data = json_object_get(r, "data");
    rc = json_array_size(data) == (size_t)n ? 0 : 1;
    if (rc) snprintf(msg, msglen, "%s answered %zu vectors for %d texts", h->url, json_array_size(data), n);
    size_t i;
    json_t *item;
    json_array_foreach(data, i, item) {
      if (rc) break;
      json_t *ix = json_object_get(item, "index"), *emb = json_object_get(item, "embedding");
      size_t at = json_is_integer(ix) ? (size_t)json_integer_value(ix) : i;
      if (!*dim && json_is_array(emb)) *dim = (int)json_array_size(emb);
      if (at >= (size_t)n || !json_is_array(emb) || json_array_size(emb) != (size_t)*dim) {
        snprintf(msg, msglen, "%s answered a vector of %zu dimensions, expected %d", h->url,
                 json_is_array(emb) ? json_array_size(emb) : 0, *dim);
        rc = 1;
        break;
      }
      if (!out) continue;
      for (int d = 0; d < *dim; d++) out[at * (size_t)*dim + (size_t)d] = (float)json_number_value(json_array_get(emb, (size_t)d));
    }
  }
  json_decref(r);
  free(reply);
  return rc;
}

static int embed(void *ud, int n, const char *const *texts, float *out, char *msg, size_t msglen) {
  http_embedder *h = ud;
  return request(h, n, texts, out, &h->dim, msg, msglen);
}

static void release(void *ud) {
  http_embedder *h = ud;
  free(h->url);
  free(h->model);
  free(h->key);
  free(h);
}

int kip_embedder_open_http(const char *url, const char *model, const char *key_env, int dim, int timeout_ms,
                           kip_embedder *out, kip_error *err) {
  memset(out, 0, sizeof *out);
  if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)))
    return kip_err(err, KIP_E_VALUE_TYPE, "Give the full URL of the endpoint, e.g. http://127.0.0.1:11434/v1/embeddings.",
                   "the embedder URL \"%s\" is not an http(s) URL", url ? url : "");
  if (!model || !*model) return kip_err(err, KIP_E_VALUE_TYPE, "Name the model the endpoint should use.", "no embedder model given");
  http_embedder *h = calloc(1, sizeof *h);
  if (!h) abort();
  h->url = strdup(url);
  h->model = strdup(model);
  const char *key = key_env && *key_env ? getenv(key_env) : NULL;
  h->key = key ? strdup(key) : NULL;
  h->timeout_ms = timeout_ms > 0 ? timeout_ms : 30000;
  h->dim = dim > 0 ? dim : 0;
  if (!h->dim) { /* learn the dimension from the service */
    char msg[512] = "";
    const char *probe = "dimension probe";
    if (request(h, 1, &probe, NULL, &h->dim, msg, sizeof msg) || h->dim <= 0) {
      release(h);
      return kip_err(err, KIP_E_INTERNAL, "Start the embedding service, or give its dimension so the nexus can queue work for it.",
                     "cannot reach the embedder to learn its dimension: %s", msg);
    }
  }
  snprintf(out->model, sizeof out->model, "%s", model);
  out->dim = h->dim;
  out->in_transaction = 0;
  out->embed = embed;
  out->ud = h;
  out->release = release;
  return 0;
}
