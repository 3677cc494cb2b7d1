#!/usr/bin/env python3
"""search_conversations.py — SEARCH on conversational memory (docs/search.md
"Conversational memory"; scripts/bench/search runs it).

For each set of scripts/bench/conversations (dev: what the mechanisms were
developed on; test: kept apart), loads its turns (RC11 Events) into a fresh
nexus with `kip import` and prints recall@5 / @10 of the questions' evidence
turns, overall and per category (single-hop, multi-hop, temporal,
open-domain):
  - keyword, semantic (the local word vectors) and hybrid, by
    `kip search eval --json`;
  - a plain FTS5 baseline over the same text: every string attribute of the
    turn in one column, `porter unicode61`, the question's words OR-ed,
    ordered by FTS5's own bm25();
  - keyword and hybrid without the question's cues (KIP_SEARCH_WITHOUT=
    people, dates, both: search_episodic.c), and without a repeated text's
    single place among the first results (repeats: exec_search.c), without
    the second hop through the top hit's people (bridge:
    search_episodic.c) and without the length prior among equal scores
    (length: search_keyword.c), the effect of each.

Usage: search_conversations.py KIP EMBEDDINGS.kvec [--sets dev,test] [--show]
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KS = (5, 10)


def flatten(v, out):
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, list):
        for x in v:
            flatten(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            flatten(x, out)


def load_set(kip, tmp, name):
    """a conversational set imported into a fresh nexus under tmp: (questions, nexus path, questions file)"""
    qfile = os.path.join(HERE, "conversations", name, "questions.jsonl")
    questions = [json.loads(l) for l in open(qfile) if l.strip()]
    db = os.path.join(tmp, name + ".db")
    subprocess.run([kip, "--db", db, "import", os.path.join(HERE, "conversations", name, "memory.kip")],
                   check=True, capture_output=True)
    return questions, db, qfile


def event_texts(db):
    """(name, text) of every Event of the nexus: its string attributes joined, what the baselines index"""
    src = sqlite3.connect(db)
    for name, attrs in src.execute("SELECT name, attributes FROM element WHERE type = 'Event'"):
        parts = []
        flatten(json.loads(attrs), parts)
        yield name, " ".join(parts)
    src.close()


def fts5_baseline(db, questions):
    """recall per query of a plain FTS5 bm25() top 10 over the Events' text"""
    mem = sqlite3.connect(":memory:")
    mem.execute("CREATE VIRTUAL TABLE t USING fts5(name UNINDEXED, text, tokenize = 'porter unicode61')")
    mem.executemany("INSERT INTO t VALUES (?, ?)", event_texts(db))
    out = []
    for q in questions:
        words = re.findall(r"[A-Za-z0-9]+", q["query"])
        match = " OR ".join('"%s"' % w for w in words)
        names = [r[0] for r in mem.execute("SELECT name FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", (match,))]
        out.append({k: sum(1 for e in q["expect"] if e in names[:k]) / len(q["expect"]) for k in KS})
    return out


def kip_eval(kip, db, qfile, env):
    r = subprocess.run([kip, "--db", db, "search", "eval", qfile, "--json", "--show"], env=env,
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def table(rows, cats):
    head = "%-34s %11s" % ("", "all") + "".join(" %15s" % c for c in cats)
    print(head)
    print("%-34s %11s" % ("", "@5    @10") + "".join(" %15s" % "@5    @10" for _ in cats))
    for label, per in rows:
        cells = ["%5.3f %5.3f" % (per["all"][5], per["all"][10])]
        cells += ["%5.3f %5.3f" % (per[c][5], per[c][10]) if c in per else "" for c in cats]
        print("%-34s %11s" % (label, cells[0]) + "".join(" %15s" % x for x in cells[1:]))


def by_category(questions, recalls):
    per = {"all": {k: 0.0 for k in KS}}
    counts = {}
    for q, r in zip(questions, recalls):
        counts[q["category"]] = counts.get(q["category"], 0) + 1
    for q, r in zip(questions, recalls):
        c = q["category"]
        per.setdefault(c, {k: 0.0 for k in KS})
        for k in KS:
            per["all"][k] += r[k] / len(questions)
            per[c][k] += r[k] / counts[c]
    return per, counts


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kip, vectors = sys.argv[1], sys.argv[2]
    sets = ["dev", "test"]
    if "--sets" in sys.argv:
        sets = sys.argv[sys.argv.index("--sets") + 1].split(",")
    tmp = tempfile.mkdtemp()
    for name in sets:
        questions, db, qfile = load_set(kip, tmp, name)
        base_env = dict(os.environ, KIP_EMBEDDINGS=vectors)
        rows, counts = [], None
        runs = [("", ""), ("people", " without people"), ("dates", " without dates"), ("people,dates", " without both"),
                ("repeats", " without repeats"), ("bridge", " without bridge"), ("length", " without length prior")]
        for off, suffix in runs:
            env = dict(base_env, KIP_SEARCH_WITHOUT=off)
            r = kip_eval(kip, db, qfile, env)
            for mode in (["keyword", "semantic", "hybrid"] if not off else ["keyword", "hybrid"]):
                recalls = [{k: pq[mode][str(k)] for k in KS} for pq in r["per_query"]]
                per, counts = by_category(questions, recalls)
                rows.append((mode + suffix, per))
        per, counts = by_category(questions, fts5_baseline(db, questions))
        rows.insert(3, ("plain FTS5 bm25()", per))
        cats = list(counts)
        turns = sum(1 for l in open(os.path.join(HERE, "conversations", name, "memory.kip")) if '"Event"' in l)
        print("\n%s set: %d turns, %d questions (%s)" % (name, turns, len(questions),
                                                        ", ".join("%s %d" % (c, counts[c]) for c in cats)))
        table(rows, cats)
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
