#!/usr/bin/env python3
"""kip migrate between an SQLite file and a PostgreSQL nexus (docs/postgresql.md
"Moving a memory"), on a throwaway server: SQLite -> PostgreSQL -> SQLite
reproduces the export element for element, ids aside; migrating again changes
nothing; a target that holds something else is not verified (exit 1); kip
dump of the PostgreSQL nexus restored into a new PostgreSQL nexus and into an
SQLite file gives the same export. A link's endpoints exist whoever writes
(the statement-level checks of schema v4, written around the engine by
psql), and a nexus of schema v3 (foreign keys, no vectors) is brought to the
current version (v8) when opened.

Usage: e2e_pg_migrate.py BUILD_DIR [SHARED_DIR]   (default: $KIP_SHARED, else ../shared beside the checkout)
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_cluster  # noqa: E402
from fixtures import Checks  # noqa: E402

checks = Checks(600)
check = checks.check


def blocks(kip, db):
    """the elements of db's export, handles (named after ids) neutral, sorted"""
    text = subprocess.run([kip, "--db", db, "export"], capture_output=True, text=True, check=True).stdout
    out, cur = [], None
    for line in text.split("\n"):
        if re.match(r"^  (CONCEPT|PROPOSITION) ", line):
            if cur:
                out.append("\n".join(cur))
            cur = []
        if cur is not None and line not in ("}", "") and not line.startswith("//") and line != "UPSERT {":
            cur.append(re.sub(r"\?([cp])\d+", r"?\1", line))
    if cur:
        out.append("\n".join(cur))
    return sorted(out)


def refused(cluster, sql):
    """the server's error for sql, or None when it was applied"""
    try:
        cluster.psql(sql)
        return None
    except RuntimeError as e:
        return str(e)


def endpoints(kip, cluster, url):
    """links name existing elements, checked by the schema itself"""
    s = "SET search_path TO kip_moved; "
    link = cluster.psql(s + "SELECT id || ',' || subject FROM element WHERE subject IS NOT NULL ORDER BY id LIMIT 1")
    lid, subject = link.split(",")
    e = refused(cluster, s + "INSERT INTO element(id, subject, predicate, object, updated_at) "
                f"VALUES (99999999, {subject}, 'knows', 88888888, 'now')")
    check("a link to a missing element is refused by the schema", e and "does not exist" in e, e)
    e = refused(cluster, s + f"DELETE FROM element WHERE id = {subject}")
    check("deleting an element a link names is refused by the schema", e and "was deleted" in e, e)
    e = refused(cluster, s + f"UPDATE element SET object = 77777777 WHERE id = {lid}")
    check("repointing a link at a missing element is refused", e and "does not exist" in e, e)
    # a v3 nexus (per-row foreign keys, no vectors) opened by this build: the
    # keys go, the vector tables come and the elements are embedded
    cluster.psql(s + "ALTER TABLE element ADD FOREIGN KEY (subject) REFERENCES element(id), "
                 "ADD FOREIGN KEY (object) REFERENCES element(id); "
                 "DROP TABLE search_vector, search_vector_pending; "
                 "DELETE FROM kip_info WHERE key IN ('vector_model', 'vector_dim'); "
                 "ALTER INDEX search_doc_words RESET (gin_pending_list_limit); "
                 "ALTER INDEX search_doc_name_trgm RESET (gin_pending_list_limit); "
                 "ALTER INDEX search_doc_heading_trgm RESET (gin_pending_list_limit); "
                 "UPDATE kip_info SET value = '3' WHERE key = 'pg_schema_version'")
    r = subprocess.run([kip, "--db", url, "exec", 'FIND(COUNT(?p)) WHERE { ?p {type: "Person"} }'],
                       capture_output=True, text=True)
    keys = cluster.psql("SELECT count(*) FROM pg_constraint WHERE conrelid = 'kip_moved.element'::regclass "
                        "AND contype = 'f'")
    version = cluster.psql(s + "SELECT value FROM kip_info WHERE key = 'pg_schema_version'")
    check("a v3 nexus is brought to the current version when opened (its foreign keys dropped)",
          r.returncode == 0 and keys == "0" and version == "10", (r.stderr, keys, version))
    limits = cluster.psql("SELECT count(*) FROM pg_class WHERE relnamespace = 'kip_moved'::regnamespace AND "
                          "relname LIKE 'search_doc_%' AND 'gin_pending_list_limit=64' = ANY (reloptions)")
    check("... and its SEARCH indexes keep short pending lists (v7)", limits == "3", limits)
    missing = cluster.psql(s + "SELECT count(*) FROM element e WHERE NOT EXISTS "
                           "(SELECT 1 FROM search_vector v WHERE v.id = e.id)")
    check("... and its elements have vectors for semantic SEARCH (the local embedder)", missing == "0", missing)


def main(argv):
    kip = os.path.join(os.path.abspath(argv[0]), "kip")
    shared = argv[1] if len(argv) > 1 else os.environ.get("KIP_SHARED") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared")
    fixtures = os.path.join(os.path.abspath(shared), "conformance", "fixtures")
    with pg_cluster.throwaway("kip-pgmigrate-") as (cluster, tmp):
        src, back, url = os.path.join(tmp, "src.db"), os.path.join(tmp, "back.db"), cluster.url() + "?nexus=moved"
        for f in ("devteam.kip", "pharma.kip"):
            subprocess.run([kip, "--db", src, "import", os.path.join(fixtures, f)], capture_output=True, check=True)
        r = subprocess.run([kip, "migrate", src, url, "--page", "40"], capture_output=True, text=True)
        check("SQLite -> PostgreSQL, verified", r.returncode == 0 and "verified:" in r.stderr, r.stderr)
        r = subprocess.run([kip, "migrate", url, back], capture_output=True, text=True)
        check("PostgreSQL -> SQLite, verified", r.returncode == 0 and "verified:" in r.stderr, r.stderr)
        a, b = blocks(kip, src), blocks(kip, back)
        check(f"the round trip reproduces the export ({len(a)} elements, ids aside)", a == b and len(a) > 100,
              next((x for x, y in zip(a, b) if x != y), f"{len(a)} vs {len(b)}"))
        check("... and the PostgreSQL nexus exports the same", blocks(kip, url) == a)
        dump = os.path.join(tmp, "moved.jsonl")
        r = subprocess.run([kip, "--db", url, "dump", "-o", dump], capture_output=True, text=True)
        check("kip dump of a PostgreSQL nexus", r.returncode == 0 and os.path.getsize(dump) > 0, r.stderr)
        for target in (cluster.url() + "?nexus=restored", os.path.join(tmp, "restored.db")):
            r = subprocess.run([kip, "--db", target, "restore", dump], capture_output=True, text=True)
            check(f"... restored into {'PostgreSQL' if target.startswith('postgres') else 'SQLite'} exports the same",
                  r.returncode == 0 and blocks(kip, target) == a, r.stderr)
        r = subprocess.run([kip, "migrate", src, url], capture_output=True, text=True)
        check("migrating again changes nothing and verifies", r.returncode == 0 and blocks(kip, url) == a, r.stderr)
        subprocess.run([kip, "--db", url, "exec", 'UPSERT { CONCEPT ?p { {type: "Person", name: "Extra"} '
                        'SET ATTRIBUTES {person_class: "Human"} } } WITH METADATA {source: "e2e", author: "$system"}'],
                       capture_output=True, check=True)
        r = subprocess.run([kip, "migrate", src, url], capture_output=True, text=True)
        check("a target holding something else is not verified (exit 1)", r.returncode == 1 and "NOT verified" in r.stderr,
              r.stderr)
        endpoints(kip, cluster, url)
        r = subprocess.run([kip, "migrate", src], capture_output=True, text=True)
        check("a missing TARGET is an error with help", r.returncode != 0 and "TARGET" in r.stderr, r.stderr)
    checks.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
