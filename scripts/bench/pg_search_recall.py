#!/usr/bin/env python3
"""pg_search_recall.py — what PostgreSQL's own full-text ranking finds on the
conversational sets, beside a plain FTS5 bm25() baseline (issue 40 item 2:
the keyword ranking of the PostgreSQL backend, measured before it is chosen;
docs/postgresql.md "Search").

For each set of scripts/bench/conversations (dev, test), the turns are
loaded with `kip import` into a scratch nexus, their text (every string
attribute, as the FTS5 baseline of search_conversations.py reads it) copied
into a throwaway PostgreSQL 15 cluster (tests/pg_cluster.py), one tsvector
per turn with the `english` configuration, and each question asked as the
OR of its words (websearch_to_tsquery with "or"; the configuration drops
its stopwords). Ranked four ways, recall@5 / @10 of the evidence turns,
overall and per category:
  - ts_rank, ts_rank with length normalisation (1: divided by 1 + log length),
    ts_rank_cd (cover density);
  - BM25 written in SQL over the same tsvectors (k1 1.2, b 0.75; document
    frequencies from ts_stat, term frequencies and lengths from unnest),
    i.e. what a PostgreSQL backend would compute to rank as FTS5 does.

Usage: pg_search_recall.py KIP [--sets dev,test]
Exit 77 when PostgreSQL 15 is not installed (scripts/setup-deps installs it).
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, HERE)
from pg_cluster import Cluster, available  # noqa: E402
import search_conversations as sc  # noqa: E402

KS = (5, 10)

RANKINGS = {
    "ts_rank": "ts_rank(d.tsv, q.tsq)",
    "ts_rank, length-normalised": "ts_rank(d.tsv, q.tsq, 1)",
    "ts_rank_cd": "ts_rank_cd(d.tsv, q.tsq)",
}

# BM25 over the tsvectors: idf from ts_stat, tf and length from unnest
BM25_SQL = """
WITH n AS (SELECT count(*)::float AS n, avg(len) AS avglen FROM doc),
stat AS (SELECT word, ndoc FROM ts_stat('SELECT tsv FROM doc')),
terms AS (SELECT q.id, t.lexeme FROM q, unnest(to_tsvector('english', q.query)) t),
scored AS (
  SELECT terms.id, d.name,
         sum(ln(1 + (n.n - s.ndoc + 0.5) / (s.ndoc + 0.5))
             * (u.tf * 2.2) / (u.tf + 1.2 * (0.25 + 0.75 * d.len / n.avglen))) AS score
  FROM terms JOIN stat s ON s.word = terms.lexeme
  JOIN doc d ON d.tsv @@ to_tsquery('english', quote_literal(terms.lexeme))
  CROSS JOIN n
  CROSS JOIN LATERAL (SELECT coalesce(array_length(x.positions, 1), 1) AS tf FROM unnest(d.tsv) x
                      WHERE x.lexeme = terms.lexeme) u
  GROUP BY terms.id, d.name),
ranked AS (SELECT id, name, row_number() OVER (PARTITION BY id ORDER BY score DESC, md5(name)) AS r FROM scored)
SELECT id, string_agg(name, ' ' ORDER BY r) FROM ranked WHERE r <= 10 GROUP BY id ORDER BY id
"""


def top10(pg, db, rank):
    # (equal scores in an order that favours no turn: by a hash of the name,
    # not the name, which would put early sessions first)
    sql = (f"SELECT q.id, (SELECT string_agg(name, ' ' ORDER BY r DESC, md5(name)) FROM "
           f"(SELECT d.name, {rank} AS r FROM doc d WHERE d.tsv @@ q.tsq ORDER BY r DESC, md5(d.name) LIMIT 10) x) "
           f"FROM q ORDER BY q.id")
    return parse(pg.psql(sql, db=db))


def parse(out):
    lists = {}
    for line in out.splitlines():
        qid, _, names = line.partition("|")
        lists[int(qid)] = names.split() if names else []
    return lists


def recalls(questions, lists):
    return [{k: sum(1 for e in q["expect"] if e in lists.get(i, [])[:k]) / len(q["expect"]) for k in KS}
            for i, q in enumerate(questions)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if not available():
        print("skipped: PostgreSQL 15 is not installed (scripts/setup-deps installs it)")
        return 77
    kip = sys.argv[1]
    sets = ["dev", "test"]
    if "--sets" in sys.argv:
        sets = sys.argv[sys.argv.index("--sets") + 1].split(",")
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o755)  # the server runs as another user and reads the files copied in
    with Cluster(os.path.join(tmp, "pg")) as pg:
        for name in sets:
            questions, db, _ = sc.load_set(kip, tmp, name)
            docs = os.path.join(tmp, name + "-docs.tsv")
            with open(docs, "w") as f:
                for ename, text in sc.event_texts(db):
                    text = text.replace("\\", " ").replace("\t", " ").replace("\n", " ")
                    f.write(f"{ename}\t{text}\n")
            qs = os.path.join(tmp, name + "-questions.tsv")
            with open(qs, "w") as f:
                for i, q in enumerate(questions):
                    words = re.findall(r"[A-Za-z0-9]+", q["query"])
                    f.write(f"{i}\t{q['query']}\t{' or '.join(words)}\n")
            pgdb = "conv_" + name
            pg.psql(f"CREATE DATABASE {pgdb}")
            pg.psql("CREATE TABLE doc(name text PRIMARY KEY, body text, tsv tsvector, len float)", db=pgdb)
            pg.psql(f"\\copy doc(name, body) FROM '{docs}'", db=pgdb)
            pg.psql("UPDATE doc SET tsv = to_tsvector('english', body); "
                    "UPDATE doc SET len = (SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0) "
                    "FROM unnest(tsv)); CREATE INDEX ON doc USING gin(tsv)", db=pgdb)
            pg.psql("CREATE TABLE q(id int PRIMARY KEY, query text, ors text, tsq tsquery)", db=pgdb)
            pg.psql(f"\\copy q(id, query, ors) FROM '{qs}'", db=pgdb)
            pg.psql("UPDATE q SET tsq = websearch_to_tsquery('english', ors)", db=pgdb)
            rows = []
            for label, rank in RANKINGS.items():
                per, counts = sc.by_category(questions, recalls(questions, top10(pg, pgdb, rank)))
                rows.append(("PostgreSQL " + label, per))
            per, counts = sc.by_category(questions, recalls(questions, parse(pg.psql(BM25_SQL, db=pgdb))))
            rows.append(("BM25 in SQL over tsvectors", per))
            per, counts = sc.by_category(questions, sc.fts5_baseline(db, questions))
            rows.append(("plain FTS5 bm25()", per))
            cats = list(counts)
            print("\n%s set: %d questions (%s)" % (name, len(questions),
                                                 ", ".join("%s %d" % (c, counts[c]) for c in cats)))
            sc.table(rows, cats)
    subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
