#!/usr/bin/env python3
"""Lint of the shipped Lua (lua/ and policies/) with luacheck (Debian's
lua-check, installed by scripts/setup-deps): no local that shadows another
local or an upvalue (W4xx), no unused variable or value, no variable that is
read but never set (W2xx, W3xx; unused arguments, W212, are allowed — method
signatures keep theirs). A shadowed local is how a check can silently read
the wrong variable: the ARG request budget compared each step's own start
for months because a loop's local shadowed the budget's start.

Usage: tests/lua_lint.py [SOURCE_DIR]     (exit 1 on a warning)
"""
import os
import shutil
import subprocess
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
luacheck = shutil.which("luacheck")
if not luacheck:
    print("lua_lint: luacheck not found; scripts/setup-deps installs it (Debian package lua-check)")
    sys.exit(1)
cmd = [luacheck, "--no-color", "--codes", "--std", "lua54", "--only", "2", "3", "4", "--ignore", "212",
       "--formatter", "plain", "lua", "policies"]
r = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
warnings = [line for line in r.stdout.splitlines() if line.strip()]
for w in warnings:
    print("lua_lint:", w)
if r.returncode not in (0, 1) or (r.returncode == 1 and not warnings):
    print("lua_lint: luacheck failed:", r.stderr.strip()[:400])
    sys.exit(1)
print(f"lua_lint: {len(warnings)} warning(s) in lua/ and policies/")
sys.exit(1 if warnings else 0)
