-- A sleep phase added after the orphans phase (docs/extending.md "Sleep
-- phases"): it counts the people the memory knows and flags one that has
-- no email. It reads through the cycle (c:read) and writes only through
-- its KIP helpers, as $system under the policies.
return {
  name = "people",
  title = "people without an email",
  after = "orphans",
  run = function(c)
    -- a FIND of two columns answers with two lists: the names, the emails
    local cols = c:read('FIND(?p.name, ?p.attributes.email) WHERE { ?p {type: "Person"} } LIMIT 1000')
    local names, emails = cols[1], cols[2]
    local missing = 0
    for i, name in ipairs(names) do
      if name ~= "$self" and name ~= "$system" and emails[i] == kip.null then
        missing = missing + 1
        c:flag(name, "no email recorded", "person without email")
      end
    end
    return { people = #names, without_email = missing }
  end,
}
