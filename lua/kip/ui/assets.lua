--- kip.ui.assets — the inspector's static files (issue 41; docs/ui.md): its
--- own pages from <home>/ui/ and the npm packages it draws with (pinned in
--- ui/package-lock.json, installed by scripts/setup-deps into the build
--- tree, or installed beside the pages as ui/vendor/), served from disk: no
--- CDN, no network at run time.
local core = require "kip.core"

local M = {}

local TYPES = { html = "text/html; charset=utf-8", js = "text/javascript; charset=utf-8", css = "text/css; charset=utf-8",
  svg = "image/svg+xml", png = "image/png", json = "application/json", ico = "image/x-icon" }

--- the vendored files the pages load, by URL under /vendor/, and where each
--- is in an npm tree
M.VENDOR = { ["cytoscape.min.js"] = "cytoscape/dist/cytoscape.min.js" }

local function home() return require("kip.nexus").home() end

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

-- where vendored file `name` is: $KIP_UI_VENDOR, the build tree's npm
-- packages, <home>/ui/vendor (an installed kipnexus)
local function vendor_path(name)
  local rel = M.VENDOR[name]
  if not rel then return nil end
  for _, dir in ipairs { os.getenv("KIP_UI_VENDOR") or "", core.ui_vendor or "" } do
    if dir ~= "" and read(dir .. "/" .. rel) then return dir .. "/" .. rel end
  end
  local p = home() .. "/ui/vendor/" .. name
  if read(p) then return p end
end

--- which vendored files are there: {["cytoscape.min.js"] = true|false}
function M.vendor_status()
  local out = {}
  for name in pairs(M.VENDOR) do out[name] = vendor_path(name) ~= nil end
  return out
end

--- a small page saying what happened and what to do
function M.message_page(what, hint)
  local function esc(s) return (s:gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" })) end
  return ("<!doctype html><meta charset=utf-8><title>kipnexus inspector</title>" ..
    "<body style=\"font:16px system-ui;margin:3em\"><h1>%s</h1><p>%s</p>"):format(esc(what), esc(hint))
end

--- GET path: status, content type, body
function M.get(path)
  if path == "/" or path == "" then path = "/index.html" end
  local file
  local vendor = path:match("^/vendor/([%w._-]+)$")
  if vendor then
    file = vendor_path(vendor)
  elseif path:match("^/[%w_-]+[%w._/-]*$") and not path:find("..", 1, true) then
    file = home() .. "/ui" .. path
  end
  local body = file and read(file)
  if not body or path:match("package") then return 404, "text/plain; charset=utf-8", "not found\n" end
  local ext = path:match("%.(%w+)$") or ""
  return 200, TYPES[ext] or "application/octet-stream", body
end

return M
