--- kip.ui.graph — what the inspector's graph page shows (issue 41, "Graph";
--- docs/ui.md): one element with its links, and its neighbourhood to a few
--- hops as nodes and edges, read through KIP as the viewer (so the scope
--- and the policies decide what is there). A node with more links than the
--- page can draw is summarised: its first links are drawn, the rest counted
--- by predicate and direction.
local M = {}

M.MAX_HOPS = 3
M.PER_NODE = 40     -- links drawn per node and direction
M.MAX_NODES = 1500  -- nodes drawn in all

local function is_link(id) return type(id) == "string" and id:sub(1, 2) == "P:" end

--- the element called id (a concept "C:…" or a link "P:…") as the viewer
--- sees it, or nil and a KIP error
function M.element(nx, id, opts)
  if type(id) ~= "string" or not id:match("^[CP]:[%w_.%-]+$") then
    return nil, { code = "KIP_1001", message = "not an element id: " .. tostring(id),
      hint = "Ids look like C:123 (a concept) or P:456 (a link), as FIND and SEARCH return them." }
  end
  local cmd = is_link(id) and "FIND(?e) WHERE { ?e (id: :id) }" or "FIND(?e) WHERE { ?e {id: :id} }"
  local rows, err = nx:query(cmd, { id = id }, opts)
  if not rows then return nil, err end
  if not rows[1] then
    return nil, { code = "KIP_3002", message = "no element " .. id .. " (or not visible to you)",
      hint = "It may have been deleted or merged, or be outside what your identity may see." }
  end
  return rows[1]
end

local function node_of(e)
  if e.predicate then
    return { id = e.id, label = e.predicate, type = "(link)", link = true }
  end
  return { id = e.id, label = e.name, type = e.type }
end

-- one direction of id's links: up to `per` of them and, when there are
-- more, their counts by predicate
local function links(nx, id, dir, f, per, opts)
  local me = is_link(id) and "(id: :id)" or "{id: :id}"
  local pat = dir == "out" and ("?l (" .. me .. ", ?p, ?n)") or ("?l (?n, ?p, " .. me .. ")")
  local where, params = { pat }, { id = id }
  if f.predicate then where[#where + 1] = "FILTER(?p == :pred)" params.pred = f.predicate end
  if f.type then where[#where + 1] = "?n {type: :type}" params.type = f.type end
  local body = table.concat(where, " ")
  local rows, err = nx:query("FIND(?l, ?n) WHERE { " .. body .. " } LIMIT " .. (per + 1), params, opts)
  if not rows then return nil, err end
  local ls, ns = rows[1] or {}, rows[2] or {}
  local out = { links = {}, nodes = {} }
  for i = 1, math.min(#ls, per) do out.links[i], out.nodes[i] = ls[i], ns[i] end
  if #ls > per then
    local counts = nx:query("FIND(?p, COUNT(?l)) WHERE { " .. body .. " }", params, opts)
    out.more = {}
    if counts then
      local ps, cs = counts[1] or {}, counts[2] or {}
      local drawn = {}
      for _, l in ipairs(out.links) do drawn[l.predicate] = (drawn[l.predicate] or 0) + 1 end
      for i, p in ipairs(ps) do
        local rest = (tonumber(cs[i]) or 0) - (drawn[p] or 0)
        if rest > 0 then out.more[#out.more + 1] = { predicate = p, count = rest } end
      end
    end
  end
  return out
end

--- the neighbourhood of id to `hops` (1..3) links in both directions:
--- {root, nodes = {{id, label, type, depth}}, edges = {{id, source, target,
--- predicate}}, more = {{node, direction, predicate, count}}, truncated}.
--- f: predicate, type (only links of that predicate, neighbours of that
--- type), per_node, max_nodes.
function M.neighbourhood(nx, id, f, opts)
  f = f or {}
  local hops = math.max(1, math.min(M.MAX_HOPS, math.floor(tonumber(f.hops) or 1)))
  local per = math.max(1, math.min(1000, math.floor(tonumber(f.per_node) or M.PER_NODE)))
  local cap = math.max(1, math.min(5000, math.floor(tonumber(f.max_nodes) or M.MAX_NODES)))
  local root, err = M.element(nx, id, opts)
  if not root then return nil, err end
  local nodes, edges, more, seen, seen_edge = {}, {}, {}, {}, {}
  local function add_node(e, depth)
    if seen[e.id] then return true end
    if #nodes >= cap then return false end
    local n = node_of(e)
    n.depth = depth
    nodes[#nodes + 1], seen[e.id] = n, n
    return true
  end
  add_node(root, 0)
  local frontier, truncated = { root.id }, false
  for depth = 1, hops do
    local next_frontier = {}
    for _, nid in ipairs(frontier) do
      -- the drawing is full: the rest of the frontier is not read
      if #nodes >= cap then truncated = true break end
      for _, dir in ipairs { "out", "in" } do
        local r, lerr = links(nx, nid, dir, f, per, opts)
        if not r then return nil, lerr end
        for i, l in ipairs(r.links) do
          local n = r.nodes[i]
          if type(n) == "table" and n.id then
            local fresh = not seen[n.id]
            if add_node(n, depth) then
              if fresh then next_frontier[#next_frontier + 1] = n.id end
              if not seen_edge[l.id] then
                seen_edge[l.id] = true
                edges[#edges + 1] = { id = l.id, source = l.subject, target = l.object, predicate = l.predicate }
              end
            else
              truncated = true
            end
          end
        end
        for _, m in ipairs(r.more or {}) do
          more[#more + 1] = { node = nid, direction = dir, predicate = m.predicate, count = m.count }
        end
      end
    end
    frontier = next_frontier
  end
  -- an edge whose ends are both drawn (a link between two neighbours found
  -- from either side) keeps; one to a node the cap left out goes
  local kept = {}
  for _, e in ipairs(edges) do if seen[e.source] and seen[e.target] then kept[#kept + 1] = e end end
  local array = require("kip.core").array_mt
  return { root = root, nodes = setmetatable(nodes, array), edges = setmetatable(kept, array), more = setmetatable(more, array),
    truncated = truncated, hops = hops }
end

return M
