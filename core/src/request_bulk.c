/*
** request_bulk.c — the API side of a bulk load (kip import, kip restore;
** the store's side is store_bulk.c): which commands are a load's, the
** arena their text is parsed into (kept from one command to the next),
** foreign key checks off for large ones, the element indexes deferred and
** the SEARCH index built beside the load, and the load's end. Its state is
** the api layer's own (kip_nexus.api).
*/
#include <stdlib.h>

#include "api.h"

struct kip_api_state {
  /* a bulk load's commands (kip import's batches of megabytes) are parsed
  ** into it and it is emptied between them: the memory stays with the
  ** nexus until the load ends instead of going back to the system and
  ** being faulted in again for every batch */
  kip_arena load_arena;
  int load_arena_busy; /* a command parsed into it is running */
};

void kip_api_state_free(kip_nexus *nx) {
  if (!nx->api) return;
  kip_arena_free(&nx->api->load_arena);
  free(nx->api);
  nx->api = NULL;
}

/* A bulk load's command: UPSERTs only, sent with
** kip_call_options.defer_index (kip import, kip restore), outside any
** transaction. It runs without the element table's secondary indexes when
** it loads a (nearly) empty nexus, and they stay away while bulk commands
** follow, whatever their size (kip_store_defer_indexes). A large one also
** runs without SQLite's foreign key checks: every endpoint an UPSERT links
** is an element it found or created in the same transaction
** (resolve_endpoint), so the checks cannot fail there; SQLite would re-read
** both endpoints of every new proposition (about a fifth of a bulk load's
** write time). Anything else — a DELETE, a MERGE, a single write — keeps
** them. The pragma expires every prepared statement (each is compiled again
** at its next use), so it is switched only for commands large enough to
** gain from it. */
#define BULK_CHECKS_OFF_BYTES (64 * 1024)

/* the elements a bulk command writes at most (its blocks and the
** propositions they set), or 0 when it is not one */
int64_t kip_bulk_writes(kip_nexus *nx, const ast_command *cmd) {
  if (!nx->req->defer_index || nx->tx_depth != 0) return 0;
  int64_t writes = 0;
  for (int i = 0; i < cmd->n; i++) {
    if (cmd->stmts[i]->kind != S_UPSERT) return 0;
    const ast_upsert *u = &cmd->stmts[i]->u.upsert;
    writes += u->n;
    for (int b = 0; b < u->n; b++) writes += u->blocks[b]->nprops;
  }
  return writes;
}

kip_arena *kip_bulk_arena(kip_nexus *nx, const kip_call_options *opt, kip_arena *own) {
  kip_arena_init(own);
  if (!opt || !opt->defer_index) return own;
  if (!nx->api) {
    nx->api = calloc(1, sizeof *nx->api);
    if (!nx->api) return own;
    kip_arena_init(&nx->api->load_arena);
  }
  if (nx->api->load_arena_busy) return own;
  nx->api->load_arena_busy = 1;
  return &nx->api->load_arena;
}

void kip_bulk_release_arena(kip_nexus *nx, kip_arena *a) {
  if (!nx->api || a != &nx->api->load_arena) {
    kip_arena_free(a);
    return;
  }
  kip_arena_reset(a);
  nx->api->load_arena_busy = 0;
}

int kip_bulk_before(kip_nexus *nx, const ast_command *cmd, int64_t bulk) {
  return bulk && cmd->len >= BULK_CHECKS_OFF_BYTES && !kip_store_foreign_keys(nx, 0);
}

int kip_bulk_begin(kip_nexus *nx, int64_t bulk, kip_error *err) {
  if (kip_store_defer_indexes(nx, bulk, err)) return err->code;
  if (nx->indexes_deferred) { /* a load into a (nearly) empty nexus: its index beside it */
    kip_index_builder_check(nx);
    kip_index_builder_start(nx);
  }
  nx->req->bulk = 1;
  return 0;
}

int kip_bulk_after(kip_nexus *nx, int checks_off, int rc, kip_error *err) {
  if (checks_off && kip_store_foreign_keys(nx, 1) && !rc)
    return kip_err(err, KIP_E_INTERNAL, "Close and reopen the nexus before writing again.",
                   "the command was applied, but foreign key checks could not be switched back on");
  return rc;
}

int kip_bulk_end(kip_nexus *nx, kip_error *err) {
  int rc = kip_store_end_bulk(nx, err);
  /* the load's memory goes back */
  if (nx->api && !nx->api->load_arena_busy) kip_arena_free(&nx->api->load_arena);
  return rc;
}
