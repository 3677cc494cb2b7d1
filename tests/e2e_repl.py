#!/usr/bin/env python3
"""End-to-end test of the kip REPL through a pseudo-terminal.

Usage: e2e_repl.py KIP_BINARY
Starts `kip repl` on a pty (readline active), types commands, and checks the
table rendering, the caret under a syntax error, tab completion of a keyword
and of a concept type from the live schema, :params, and that the history
file is written on exit.
"""
import os
import pty
import select
import subprocess
import sys
import tempfile
import time

KIP = sys.argv[1]
tmp = tempfile.mkdtemp()
env = dict(os.environ, HOME=tmp, XDG_STATE_HOME=os.path.join(tmp, "state"), TERM="dumb", COLUMNS="100")
db = os.path.join(tmp, "repl.db")
subprocess.run([KIP, "--db", db, "exec", "--no-policies",
                'UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Gadget"} } CONCEPT ?g { {type: "Gadget", name: "Widget"} } }'],
               check=True, capture_output=True)

master, slave = pty.openpty()
p = subprocess.Popen([KIP, "--db", db, "repl"], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
os.close(slave)
out = b""


def read_until(needle, timeout=10):
    global out
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            out += chunk
            if needle.encode() in out:
                return True
    return False


def send(s):
    os.write(master, s.encode())


failures = []


def check(name, cond):
    if not cond:
        failures.append(name)


check("banner", read_until("kip>"))
send('FIND(?g.name, ?g.type) WHERE { ?g {type: "Gadget"} }\r')
check("table", read_until("(1 row)"))
check("table header", b"?g.name" in out and b"Widget" in out)
send('FIND(?x) WHERE { ?x {type: "Gadget"} } LIMIT ?x\r')
check("caret", read_until("^"))
check("error code", b"KIP_1001" in out)
send(":params {\"t\": \"Gadget\"}\r")
check("params", read_until("params set"))
send("FIND(COUNT(?x)) WHERE { ?x {type: :t} }\r")
check("count", read_until("\r\n1\r\n"))
send("DESCR\t")  # completes the keyword
check("keyword completion", read_until("DESCRIBE"))
send(" CONCEPT TYPE \"Gad\t")  # completes a type from the live schema
check("type completion", read_until("Gadget"))
send("\r")  # readline closed the quote
check("describe", read_until("\"name\": \"Gadget\""))
# an unbalanced parenthesis runs at once (the error, where it is), not a
# continuation that swallows the next command
send('FIND(?g.name WHERE { ?g {type: "Gadget"} }\r')
check("unbalanced: the error at once", read_until("found 'WHERE'"))
send('FIND(?g.name) WHERE { ?g {type: "Gadget"} }\r')
check("unbalanced: the next command runs", read_until("(1 row)", timeout=5) and b"...>" not in out[-400:])
# an incomplete multi-line command: a blank line shows what is missing
send('FIND(?g.name) WHERE {\r')
check("continuation prompt", read_until("...>"))
send('\r')
check("blank line: the syntax error, not (cancelled)", read_until("the command is incomplete") and b"found end of input" in out)
send("help\r")
check("bare help", read_until(":params {json}"))
send("exit\r")  # bare exit leaves, like :quit
try:
    p.wait(timeout=10)
except subprocess.TimeoutExpired:
    p.kill()
    failures.append("exit")
hist = os.path.join(tmp, "state", "kip", "history")
check("history", os.path.exists(hist) and "COUNT" in open(hist).read())

# a script piped into the shell: exit 1 when a command failed, 0 otherwise
bad = subprocess.run([KIP, "--db", db, "repl"], input='FIND(?x WHERE\nDESCRIBE DOMAINS\n', capture_output=True, text=True)
check("piped: exit 1 after a failed command", bad.returncode == 1 and "CoreSchema" in bad.stdout)
good = subprocess.run([KIP, "--db", db, "repl"], input='DESCRIBE DOMAINS\n', capture_output=True, text=True)
check("piped: exit 0 when every command worked", good.returncode == 0)

for f in failures:
    print("FAIL", f)
if failures:
    print(out.decode(errors="replace")[-3000:])
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
