/*
** store_backup.c — kip_backup: an online copy of the nexus file through
** SQLite's backup API, a few hundred pages at a time, so writers in other
** connections and processes keep going meanwhile (kip backup).
*/
#include "store_sqlite.h"

int kip_backup(kip_nexus *nx, const char *path, void (*progress)(int done, int total, void *ud), void *ud,
               kip_error *err) {
  kip_err_clear(err);
  if (nx->pg)
    return kip_err(err, KIP_E_INTERNAL, "Back a PostgreSQL nexus up with the server's tools (pg_dump -n kip_NAME) or kip dump.",
                   "kip backup copies an SQLite nexus file; this nexus is on PostgreSQL");
  sqlite3 *dst;
  if (sqlite3_open_v2(path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    kip_err(err, KIP_E_INTERNAL, "Check the path and the directory's permissions.", "cannot create %s: %s", path,
            sqlite3_errmsg(dst));
    sqlite3_close(dst);
    return err->code;
  }
  sqlite3_backup *b = sqlite3_backup_init(dst, "main", nx->db, "main");
  if (!b) {
    kip_err(err, KIP_E_INTERNAL, NULL, "cannot start the backup: %s", sqlite3_errmsg(dst));
    sqlite3_close(dst);
    return err->code;
  }
  int rc;
  do {
    rc = sqlite3_backup_step(b, 256);
    if (progress) {
      int total = sqlite3_backup_pagecount(b);
      progress(total - sqlite3_backup_remaining(b), total, ud);
    }
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(20);
  } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
  sqlite3_backup_finish(b);
  rc = rc == SQLITE_DONE ? sqlite3_errcode(dst) : rc;
  if (rc != SQLITE_OK) kip_err(err, KIP_E_INTERNAL, "Check the disk and the destination.", "backup failed: %s", sqlite3_errstr(rc));
  sqlite3_close(dst);
  return rc == SQLITE_OK ? 0 : err->code;
}
