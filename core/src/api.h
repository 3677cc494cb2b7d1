/*
** api.h — the private header of the api family (request*.c, nexus.c,
** bootstrap.c): the top layer, what kip.h's calls run on. Nothing below
** includes it.
*/
#ifndef KIP_API_H
#define KIP_API_H

#include "exec.h"

/* request_bulk.c: a bulk load's commands (kip import, kip restore: UPSERTs
** sent with kip_call_options.defer_index, outside any transaction) */
/* the elements a bulk command writes at most, or 0 when it is not one */
int64_t kip_bulk_writes(kip_nexus *nx, const ast_command *cmd);
/* the arena to parse a command into: a bulk load's commands reuse the one
** before's memory (the nexus's load arena) when it is free, else `own` */
kip_arena *kip_bulk_arena(kip_nexus *nx, const kip_call_options *opt, kip_arena *own);
/* give back an arena kip_bulk_arena handed out (own: freed; the load
** arena: emptied for the next command, or freed once the load ended) */
void kip_bulk_release_arena(kip_nexus *nx, kip_arena *a);
/* before a bulk command's transaction: foreign key checks off for a large
** one; returns whether they were switched off (kip_bulk_after gets it) */
int kip_bulk_before(kip_nexus *nx, const ast_command *cmd, int64_t bulk);
/* inside its transaction, before it runs: the element indexes deferred on
** a (nearly) empty nexus, its SEARCH index built beside it */
int kip_bulk_begin(kip_nexus *nx, int64_t bulk, kip_error *err);
/* after its transaction: the checks back on; rc is the command's */
int kip_bulk_after(kip_nexus *nx, int checks_off, int rc, kip_error *err);
/* any other command: the load is over (kip_store_end_bulk) and its memory goes back */
int kip_bulk_end(kip_nexus *nx, kip_error *err);
/* request_replica.c: readonly calls answered by a hot standby (?read=): the
** standby's nexus to run this call on (its embedder lent), or NULL for the
** primary; after the call, kip_replica_done gives the embedder back and
** returns 1 when the standby's connection broke (run the call again on the
** primary); kip_replica_close at kip_close */
kip_nexus *kip_replica_for(kip_nexus *nx);
int kip_replica_done(kip_nexus *nx);
void kip_replica_close(kip_nexus *nx);
/* nexus.c: free the api layer's state of nx (kip_close) */
void kip_api_state_free(kip_nexus *nx);

#endif
