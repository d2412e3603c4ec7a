#!/usr/bin/python3
"""The Xapian peer of bench:text (run with /usr/bin/python3, Debian python3-xapian).

Usage: xapian_bm25.py INPUT.json
INPUT: {"docs": [[id, text], ...], "queries": [str, ...], "k": 10, "k1": 1.2, "b": 0.75,
        "stopwords": [str, ...], "warmup": int, "rounds": int, "backend": "glass" | "inmemory", "dir": path}
Indexes every document with a TermGenerator (English stemmer, STEM_SOME, positions), commits,
then runs the queries one at a time with a QueryParser (default op OR, STEM_SOME, the same
stopword list as the query-side stopper) and BM25Weight(k1, 0, 1, b, 0.5),
`rounds` passes over the queries (alternating order), each query's fastest time kept. All timing is taken
inside this process (perf_counter), so interpreter start-up and JSON I/O are excluded.
Prints one JSON object on stdout: version, index_s, per-query ms, and each query's top-k ids.
"""
import json
import sys
import time

import xapian


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    docs = cfg["docs"]
    queries = cfg["queries"]
    k = int(cfg.get("k", 10))
    k1 = float(cfg.get("k1", 1.2))
    b = float(cfg.get("b", 0.75))
    warmup = int(cfg.get("warmup", 5))
    rounds = max(1, int(cfg.get("rounds", 1)))
    backend = cfg.get("backend", "glass")
    ids = [d[0] for d in docs]
    texts = [d[1] for d in docs]
    del docs, cfg["docs"]

    stemmer = xapian.Stem("english")
    t0 = time.perf_counter()
    if backend == "inmemory":
        db = xapian.inmemory_open()
    else:
        db = xapian.WritableDatabase(cfg["dir"], xapian.DB_CREATE_OR_OVERWRITE | xapian.DB_BACKEND_GLASS)
    tg = xapian.TermGenerator()
    tg.set_stemmer(stemmer)
    tg.set_stemming_strategy(xapian.TermGenerator.STEM_SOME)
    for text in texts:
        doc = xapian.Document()
        tg.set_document(doc)
        tg.index_text(text)
        db.add_document(doc)  # docids 1..N in order
    db.commit()
    index_s = time.perf_counter() - t0

    stopper = xapian.SimpleStopper()
    for w in cfg.get("stopwords", []):
        stopper.add(w)
    qp = xapian.QueryParser()
    qp.set_stemmer(stemmer)
    qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
    qp.set_default_op(xapian.Query.OP_OR)
    qp.set_stopper(stopper)
    qp.set_database(db)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(xapian.BM25Weight(k1, 0.0, 1.0, b, 0.5))

    fallbacks = 0

    def run(q):
        nonlocal fallbacks
        try:
            query = qp.parse_query(q)
        except xapian.QueryParserError:
            fallbacks += 1
            query = qp.parse_query(q, 0)
        enquire.set_query(query)
        mset = enquire.get_mset(0, k)
        return [ids[m.docid - 1] for m in mset]

    for q in queries[:warmup]:
        run(q)
    n = len(queries)
    ms = [float("inf")] * n
    all_ms = []
    results = [None] * n
    for rnd in range(rounds):
        order = range(n) if rnd % 2 == 0 else range(n - 1, -1, -1)
        for i in order:
            t = time.perf_counter()
            r = run(queries[i])
            dt = (time.perf_counter() - t) * 1000.0
            ms[i] = min(ms[i], dt)
            all_ms.append(dt)
            if rnd == 0:
                results[i] = r
    out = {
        "version": xapian.version_string(),
        "backend": backend,
        "docs": db.get_doccount(),
        "index_s": index_s,
        "query_ms": ms,
        "query_ms_all": all_ms,
        "results": results,
        "parse_fallbacks": fallbacks,
    }
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
