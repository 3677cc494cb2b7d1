--- kip.mind.anchor — the persistence scopes of memory (seed 004 "Anchor
--- Model"): `global` (a fixed id), `repo` (the logical repository shared by
--- all its worktrees: git's common directory) and `worktree` (one checkout:
--- its canonical top-level path), derived deterministically from the
--- filesystem, never from a semantic field. Outside a git checkout the
--- worktree is the canonical working directory and there is no repo.
local M = {}

M.GLOBAL = "global"

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function run(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  if not p then return nil end
  local out = p:read("a") or p:read("*a")
  p:close()
  out = out and out:gsub("%s+$", "") or ""
  return out ~= "" and out or nil
end

local function realpath(path) return run("realpath -e " .. sh_quote(path)) or path end

--- {global=, repo=, worktree=, parent_of_worktree=} for directory dir
--- (default: the working directory)
function M.current(dir)
  dir = dir or run("pwd") or "."
  local q = "cd " .. sh_quote(dir) .. " && "
  local top = run(q .. "git rev-parse --show-toplevel")
  local common = run(q .. "git rev-parse --path-format=absolute --git-common-dir")
  local out = { global = M.GLOBAL }
  if top then
    out.worktree = "worktree:" .. realpath(top)
    if common then
      common = realpath(common)
      out.repo = "repo:" .. (common:gsub("/%.git$", ""))
    end
  else
    out.worktree = "worktree:" .. realpath(dir)
  end
  out.parent_of_worktree = out.repo
  return out
end

--- the anchor fields of kind ("global" | "repo" | "worktree") here
function M.fields(kind, here)
  here = here or M.current()
  if kind == "global" then return { anchor_kind = "global", anchor_id = M.GLOBAL } end
  if kind == "repo" then
    if not here.repo then return nil, "not inside a git repository: no repo anchor here" end
    return { anchor_kind = "repo", anchor_id = here.repo }
  end
  if kind == "worktree" then
    return { anchor_kind = "worktree", anchor_id = here.worktree, parent_anchor_id = here.parent_of_worktree }
  end
  return nil, ("unknown anchor kind %q (global, repo, worktree)"):format(tostring(kind))
end

--- the next anchor outward: worktree -> repo -> global
function M.outward(kind)
  return ({ worktree = "repo", repo = "global" })[kind]
end

return M
