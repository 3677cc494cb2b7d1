--- kip.arg.semantic — the semantic approximator of the router (seed 003
--- §0.2: "vectors are bounded approximators for shortlisting/ranking and MUST
--- NOT expand scope"; docs/arg.md "Routing"). When the nexus has an embedder
--- (the local word vectors, an OpenAI-compatible endpoint, or an operator's
--- Lua embedder: docs/search.md), every node of the pinned snapshot gets a
--- vector once per version (packed for core.dot_top), and the request's
--- TOP_K most similar nodes above BASE add to their lexical scores — only
--- nodes of the snapshot, never anything else.
local core = require "kip.core"

local M = {}

M.BASE = 0.3 -- similarities below this add nothing
M.TOP_K = 40 -- nodes a request's vector may lift

local function text_of(n) return n.title .. ". " .. n.chunk end

--- build the node vectors of model m once (nothing without an embedder)
function M.warm(nx, m)
  if not nx.embedder or not nx.embed or m.node_vectors ~= nil then return end
  local texts = {}
  for i, name in ipairs(m.node_names) do texts[i] = text_of(m.nodes[name]) end
  local ok, v = pcall(nx.embed, nx, texts)
  m.node_vectors = false
  if ok and type(v) == "table" and #v == #texts and #texts > 0 then
    local packed, dim = core.pack_f32(v)
    m.node_vectors = { packed = packed, dim = dim }
  end
end

--- node name -> similarity above BASE, or nil without an embedder
function M.scores(nx, m, text)
  if not nx.embedder or not nx.embed then return nil end
  M.warm(nx, m)
  if not m.node_vectors then return nil end
  local ok, q = pcall(nx.embed, nx, { text })
  q = ok and type(q) == "table" and q[1]
  if type(q) ~= "table" or #q ~= m.node_vectors.dim then return nil end
  local out = {}
  for _, hit in ipairs(core.dot_top(m.node_vectors.packed, m.node_vectors.dim, q, M.BASE, M.TOP_K)) do
    -- rounded: the score enters the decision record, which replay compares
    out[m.node_names[hit[1]]] = math.floor((hit[2] - M.BASE) * 1e6 + 0.5) / 1e6
  end
  return out
end

return M
