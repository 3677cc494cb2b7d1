#!/usr/bin/env python3
"""Docs are tests: every runnable example of README.md and docs/*.md, run
as written, in order, one document at a time, on a fresh nexus (a ctest).

What runs: every ```sh block, and every block an HTML comment on the line
before marks:
  <!-- docs-test: skip REASON -->  not run; reported, with the reason, and counted
  <!-- docs-test: file PATH -->    the block is written to PATH before the document's first command
  <!-- docs-test: lua -->          the block is run with `kip run`
  <!-- docs-test: policy PATH -->  written to PATH and loaded with `kip policy check`
Other blocks (json, sql, Lua fragments that need a nexus in hand) are
reference, not examples.

How: each document runs in its own empty directory that holds links to the
checkout's top-level entries (so `capsules/…`, `docs/examples/…` resolve),
with `kip` on PATH, HOME and XDG_DATA_HOME inside it, and KIP_SHARED naming
the evaluation fixtures. A command is a line (with its `\\` continuations);
exported variables carry over to the next. Comment lines right after a
command (no blank line between) are its documented output: each must match
a line of what it printed ("…" matches anything). A command must exit 0
unless the document says it fails (its comment or documented output says
refused, fails, KIP_…, ARG_…, error, or not …); a crash (a Lua traceback, a
signal) always fails. A document that needs the fixtures is skipped when
they are missing, and the test then exits 77 (ctest: skipped), never 0.

usage: docs_examples.py BUILD_DIR [DOC.md ...]"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

BUILD = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = sys.argv[2:] or ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
SHARED = os.environ.get("KIP_SHARED") or os.path.join(os.path.dirname(ROOT), "shared")
FAILS_WORDS = re.compile(r"refus|fails|KIP_\d|ARG_[A-Z]|error|not ", re.I)
MARK = re.compile(r"<!--\s*docs-test:\s*(\w+)\s*(.*?)\s*-->")


def blocks(path):
    """(line, lang, mark, arg, text) of every fenced block"""
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mk = MARK.search(lines[k]) if k >= 0 else None
        out.append((i + 1, m.group(1), mk.group(1) if mk else None, mk.group(2) if mk else "", "\n".join(lines[i + 1:j])))
        i = j + 1
    return out


def commands(text):
    """(command, trailing comment, documented output lines) of a shell block"""
    out, cur, lines = [], None, text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            cur = None
            i += 1
            continue
        if line.lstrip().startswith("#"):
            if cur is not None:
                cur[2].append(line.lstrip()[1:].strip())
            i += 1
            continue
        cmd = line
        while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
        # a trailing comment: a # after whitespace, outside quotes
        comment, q = "", None
        for pos, ch in enumerate(cmd):
            if q:
                if ch == q:
                    q = None
            elif ch in "'\"":
                q = ch
            elif ch == "#" and pos > 0 and cmd[pos - 1] in " \t":
                comment = cmd[pos + 1:].strip()
                cmd = cmd[:pos].rstrip()
                break
        cur = [cmd, comment, []]
        out.append(cur)
        i += 1
    return out


def write_block(work, rel, body):
    """a block's text as the file rel under the work directory; its path"""
    path = os.path.join(work, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(body + "\n")
    return path


def pattern(expected):
    parts = [re.escape(p) for p in re.split(r"\s*…\s*", " ".join(expected.split()))]
    return re.compile(".*?".join(parts))


def main():
    if not os.path.isfile(os.path.join(BUILD, "kip")):
        print(f"FAIL: {BUILD}/kip does not exist")
        return 1
    passed, failed, skipped, notes, missing_fixtures = 0, 0, 0, [], False
    have_shared = os.path.isdir(os.path.join(SHARED, "arg")) and os.path.isdir(os.path.join(SHARED, "sleep"))
    for doc in DOCS:
        text = open(os.path.join(ROOT, doc), encoding="utf-8").read()
        if "$KIP_SHARED" in text and not have_shared:
            n = sum(1 for b in blocks(doc) if b[1] in ("sh", "bash") or b[2])
            skipped += n
            missing_fixtures = True
            notes.append(f"SKIPPED {doc}: {n} block(s) need the fixtures ({SHARED} is missing; set KIP_SHARED)")
            continue
        work = tempfile.mkdtemp(prefix="kip-docs-")
        try:
            bindir = os.path.join(work, ".bin")
            os.makedirs(bindir)
            os.symlink(os.path.join(BUILD, "kip"), os.path.join(bindir, "kip"))
            for entry in os.listdir(ROOT):
                if not entry.startswith(".") and not entry.startswith("build"):
                    os.symlink(os.path.join(ROOT, entry), os.path.join(work, entry))
            env_file = os.path.join(work, ".env.sh")
            with open(env_file, "w") as f:
                f.write(f"export PATH={bindir}:$PATH HOME={work} XDG_DATA_HOME={work}/.data "
                        f"XDG_STATE_HOME={work}/.state KIP_SHARED={SHARED}\nunset KIP_DB KIP_EMBEDDER\n")
            # the files a document defines exist before its first command
            for line, lang, mark, arg, body in blocks(doc):
                if mark == "file":
                    write_block(work, arg, body)
            for line, lang, mark, arg, body in blocks(doc):
                where = f"{doc}:{line}"
                if mark == "skip":
                    skipped += 1
                    notes.append(f"skipped {where}: {arg}")
                    continue
                if mark == "file":
                    passed += 1
                    continue
                if mark == "policy":
                    write_block(work, arg, body)
                    body, lang = f"kip policy check {arg}", "sh"
                if mark == "lua":
                    body, lang = f"kip run {write_block(work, f'.block{line}.lua', body)}", "sh"
                if lang not in ("sh", "bash"):
                    continue
                ok = True
                for cmd, comment, expected in commands(body):
                    # set -a: a variable a command sets (ep=$(…)) is there for the next
                    script = f"set -a\nsource {env_file}\n{cmd}\nrc=$?\nexport -p > {env_file}.new\nexit $rc\n"
                    try:
                        r = subprocess.run(["bash", "-c", script], cwd=work, capture_output=True, text=True, timeout=900,
                                           stdin=subprocess.DEVNULL)
                        output, rc = r.stdout + r.stderr, r.returncode
                    except subprocess.TimeoutExpired:
                        output, rc = "(timed out after 900 s)", -9
                    if os.path.exists(env_file + ".new"):
                        os.replace(env_file + ".new", env_file)
                    problems = []
                    if "stack traceback" in output or rc < 0 or rc > 128:
                        problems.append(f"crashed (exit {rc})")
                    elif rc != 0 and not FAILS_WORDS.search(comment + " " + " ".join(expected)):
                        problems.append(f"exit {rc}, and the document does not say it fails")
                    out_lines = [" ".join(l.split()) for l in output.split("\n")]
                    for e in expected:
                        p = pattern(e)
                        if not any(p.search(l) for l in out_lines):
                            problems.append(f"documented output not printed: {e!r}")
                    if problems:
                        ok = False
                        print(f"FAIL {where}: {cmd}")
                        for p in problems:
                            print(f"     {p}")
                        print("     output: " + "\n             ".join(output.strip().split("\n")[-15:]))
                if ok:
                    passed += 1
                else:
                    failed += 1
        finally:
            subprocess.run(["chmod", "-R", "u+w", work])
            shutil.rmtree(work, ignore_errors=True)
    for n in notes:
        print(n)
    print(f"{passed} block(s) passed, {failed} failed, {skipped} skipped")
    if failed:
        return 1
    return 77 if missing_fixtures else 0  # a counted skip, never a pass, without the fixtures


if __name__ == "__main__":
    sys.exit(main())
