#!/usr/bin/env python3
"""Pseudo-relevance feedback (RM3-style) measured before building it (issue
39, docs/search.md "Conversational memory"): over the conversational sets'
Events, a plain FTS5 bm25() ranking, then the same with an expansion query —
the words of the first pass's top FB results weighted by rank, term
frequency and IDF, in at least 2 of them, neither stopwords nor the
question's own — interpolated with weight LAMBDA; and a proximity bonus
(the results where two of the question's words occur within WIN words,
FTS5 NEAR, raised by LAMBDA toward 1). Prints recall@5/@10 per setting.
Usage: search_prf_experiment.py KIP [SET...]   (default dev)"""
import json, re, sqlite3, subprocess, sys, math, os, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_conversations import flatten, KS
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conversations")
STOP = set("a an the and or of to in on for is are be it my our we i you your can do does how what why when where which who with me us this that there at by from as if not no get got so just any all did was were has have had he she they his her their them about after before will would should could been being than then also into over more some very".split())
def load(kip, name):
    db = os.path.join(tempfile.mkdtemp(), name + ".db")
    subprocess.run([kip, "--db", db, "import", os.path.join(HERE, name, "memory.kip")], check=True, capture_output=True)
    src = sqlite3.connect(db)
    mem = sqlite3.connect(":memory:")
    mem.execute("CREATE VIRTUAL TABLE t USING fts5(name UNINDEXED, text, tokenize = 'porter unicode61')")
    docs = {}
    for name_, attrs in src.execute("SELECT name, attributes FROM element WHERE type = 'Event'"):
        parts = []; flatten(json.loads(attrs), parts)
        txt = " ".join(parts); docs[name_] = txt
        mem.execute("INSERT INTO t VALUES (?, ?)", (name_, txt))
    qs = [json.loads(l) for l in open(os.path.join(HERE, name, "questions.jsonl")) if l.strip()]
    return mem, docs, qs
def words(s): return [w for w in re.findall(r"[a-z0-9]+", s.lower())]
def run(mem, docs, qs, lam, fb=5, nterms=8, mindf=2):
    N = len(docs)
    df = {}
    for txt in docs.values():
        for w in set(words(txt)): df[w] = df.get(w, 0) + 1
    tot = {k: 0.0 for k in KS}
    for q in qs:
        qw = [w for w in re.findall(r"[A-Za-z0-9]+", q["query"])]
        match = " OR ".join('"%s"' % w for w in qw)
        first = mem.execute("SELECT name, bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 100", (match,)).fetchall()
        scores = {n: -s for n, s in first}
        if lam > 0 and first:
            cand = {}
            qset = set(w.lower() for w in qw)
            for rank, (n, s) in enumerate(first[:fb]):
                ws = [w for w in words(docs[n]) if w not in STOP and w not in qset and not w.isdigit() and len(w) > 2]
                seen = set()
                for w in ws:
                    cand.setdefault(w, [0.0, 0])
                    cand[w][0] += 1.0 / (rank + 1) / max(1, len(ws))
                    if w not in seen: cand[w][1] += 1; seen.add(w)
            terms = sorted(((v[0] * math.log(N / df.get(w, 1)), w) for w, v in cand.items() if v[1] >= mindf), reverse=True)[:nterms]
            if terms:
                m2 = " OR ".join('"%s"' % w for _, w in terms)
                second = mem.execute("SELECT name, bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 200", (m2,)).fetchall()
                mx1 = max(scores.values()) or 1
                mx2 = max(-s for _, s in second) if second else 1
                for n, s in second:
                    scores[n] = (1 - lam) * scores.get(n, 0) / mx1 + lam * (-s) / mx2
                for n in list(scores):
                    if n not in dict(second): scores[n] = (1 - lam) * scores[n] / mx1
        ranked = [n for n, _ in sorted(scores.items(), key=lambda x: -x[1])]
        for k in KS: tot[k] += sum(1 for e in q["expect"] if e in ranked[:k]) / len(q["expect"])
    return {k: round(tot[k] / len(qs), 3) for k in KS}
def proximity(mem, qs, lam, win):
    tot = {k: 0.0 for k in KS}
    for q in qs:
        words_ = re.findall(r"[A-Za-z0-9]+", q["query"])
        qw = [w for w in words_ if w.lower() not in STOP]
        first = mem.execute("SELECT name, bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 200",
                            (" OR ".join('"%s"' % w for w in words_),)).fetchall()
        if not first:
            continue
        mx = max(-s for _, s in first) or 1
        scores = {n: -s / mx for n, s in first}
        near = set()
        for i in range(len(qw)):
            for j in range(i + 1, len(qw)):
                near.update(n for (n,) in mem.execute("SELECT name FROM t WHERE t MATCH ?",
                                                      ('NEAR("%s" "%s", %d)' % (qw[i], qw[j], win),)))
        for n in scores:
            if n in near:
                scores[n] += lam * (1 - scores[n])
        ranked = [n for n, _ in sorted(scores.items(), key=lambda x: -x[1])]
        for k in KS:
            tot[k] += sum(1 for e in q["expect"] if e in ranked[:k]) / len(q["expect"])
    return {k: round(tot[k] / len(qs), 3) for k in KS}


if len(sys.argv) < 2:
    sys.exit(__doc__)
for name in sys.argv[2:] or ["dev"]:
    mem, docs, qs = load(sys.argv[1], name)
    for lam in (0, 0.1, 0.2, 0.3, 0.5):
        for fb in (3, 5):
            print(name, "feedback LAMBDA", lam, "FB", fb, "recall@5/@10", run(mem, docs, qs, lam, fb=fb))
    for lam in (0.1, 0.2, 0.4):
        for win in (3, 6, 10):
            print(name, "proximity LAMBDA", lam, "WIN", win, "recall@5/@10", proximity(mem, qs, lam, win))
