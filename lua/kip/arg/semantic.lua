--- kip.arg.semantic — the semantic approximator of the router (seed 003
--- §0.2: "vectors are bounded approximators for shortlisting/ranking and MUST
--- NOT expand scope"; docs/arg.md "Routing"). When the nexus has an embedder
--- (the local word vectors, an OpenAI-compatible endpoint, or an operator's
--- Lua embedder: docs/search.md), every node of the pinned snapshot gets a
--- vector once per version, and a request's similarity to them adds to the
--- nodes' lexical scores — only nodes of the snapshot, never anything else,
--- and never a label the lexical step could not also reach through its nodes.
local M = {}

M.BASE = 0.3 -- similarities below this add nothing

local function text_of(n) return n.title .. ". " .. n.chunk end

--- node name -> similarity above BASE, or nil without an embedder
function M.scores(nx, m, text)
  if not nx.embedder or not nx.embed then return nil end
  if m.node_vectors == nil then
    local texts = {}
    for i, name in ipairs(m.node_names) do texts[i] = text_of(m.nodes[name]) end
    local ok, v = pcall(nx.embed, nx, texts)
    m.node_vectors = ok and type(v) == "table" and #v == #texts and v or false
  end
  if not m.node_vectors then return nil end
  local ok, q = pcall(nx.embed, nx, { text })
  q = ok and type(q) == "table" and q[1]
  if type(q) ~= "table" then return nil end
  local out, dim = {}, #q
  for i, name in ipairs(m.node_names) do
    local v, s = m.node_vectors[i], 0
    for k = 1, dim do s = s + q[k] * v[k] end
    if s > M.BASE then out[name] = s - M.BASE end
  end
  return out
end

return M
