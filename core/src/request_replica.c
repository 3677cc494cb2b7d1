/*
** request_replica.c — readonly calls answered by a hot standby (issue 40,
** "many hosts, one memory"; docs/postgresql.md "Reads on a standby"). A
** nexus opened with `postgresql://…?nexus=NAME&read=postgresql://STANDBY/DB`
** sends every readonly call (execute_kip_readonly: kip_call_options.readonly)
** to a second nexus handle on the standby, opened read-only when first
** needed, and everything else to the primary. The staleness rule:
** a standby answers with what it has replayed — other connections' writes
** arrive with its replay lag — but never behind this handle's own writes:
** after this handle commits, its reads go to the primary until the standby
** has replayed the primary's WAL position read after that commit
** (kip_store_replica_fresh). A standby that cannot be reached, or whose
** connection breaks during a call, leaves the call to the primary (reads
** are repeatable: the call runs again there) and is tried again 5 s later.
*/
#include <string.h>

#include "api.h"

#define RETRY_US 5000000

static void drop_replica(kip_nexus *nx) {
  kip_close(nx->replica);
  nx->replica = NULL;
  nx->replica_retry_us = kip_now_us() + RETRY_US;
}

kip_nexus *kip_replica_for(kip_nexus *nx) {
  nx->last_read_on_replica = 0;
  const char *url = kip_store_read_url(nx);
  if (!url || nx->tx_depth > 0) return NULL;
  if (!nx->replica) {
    if (kip_now_us() < nx->replica_retry_us) return NULL;
    kip_open_options o = {0};
    o.readonly = 1;
    kip_error e;
    if (kip_open(url, &o, &nx->replica, &e)) {
      nx->replica = NULL; /* (not there yet, or not reachable: the primary answers) */
      nx->replica_retry_us = kip_now_us() + RETRY_US;
      return NULL;
    }
  }
  if (!kip_store_replica_fresh(nx, nx->replica)) {
    if (kip_store_connection_lost(nx->replica)) drop_replica(nx);
    return NULL;
  }
  /* the embedder is lent for the call (a semantic SEARCH embeds its query) */
  nx->replica->embedder = nx->embedder;
  nx->replica->has_embedder = nx->has_embedder;
  return nx->replica;
}

int kip_replica_done(kip_nexus *nx) {
  kip_nexus *r = nx->replica;
  r->has_embedder = 0;
  memset(&r->embedder, 0, sizeof r->embedder);
  if (kip_store_connection_lost(r)) {
    drop_replica(nx);
    return 1;
  }
  nx->last_read_on_replica = 1;
  return 0;
}

void kip_replica_close(kip_nexus *nx) {
  if (nx->replica) kip_close(nx->replica);
  nx->replica = NULL;
}

int kip_last_read_on_standby(const kip_nexus *nx) { return nx->last_read_on_replica; }
