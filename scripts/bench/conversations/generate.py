#!/usr/bin/env python3
"""generate.py — the conversational-memory evaluation of SEARCH (docs/search.md
"Conversational memory"; scripts/bench/search runs it).

Writes, deterministically, two independent sets — `dev` (the one search
mechanisms were developed on) and `test` (kept apart: never looked at while
tuning) — each:

  <set>/memory.kip        conversations between a few people over months,
                          one RC11 `Event` concept per turn (event_class
                          "Conversation", start_time, participants,
                          content_summary "Speaker: words", context.session)
                          plus the `Person` concepts and `involves` links
  <set>/questions.jsonl   questions in the `kip search eval` format
                          {"query", "expect": [turn names], "type": "Event",
                          "category": single-hop | multi-hop | temporal |
                          open-domain}

The two sets share no person, place, activity, pet name or sentence
template: each fact kind has one pool of phrasings for dev and another for
test, and each list of names is split in two. A question's evidence is the
turn(s) that state what it asks about; other people state similar facts
(everyone travels, takes up hobbies, adopts pets) so that a question is
only answered by the right person's turn, and people change their minds
(a diet, a plan) so that a later turn supersedes an earlier one.

Run: python3 scripts/bench/conversations/generate.py  (rewrites both sets)
"""
import datetime
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]

# ---------------------------------------------------------------- the worlds
# Everything a set talks about; nothing here is shared between the sets.
WORLD = {
    "dev": {
        "people": ["Maya", "Tomas", "Priya", "Jonah", "Elif", "Rafael"],
        "hobbies": [("a pottery class", "clay", "a ceramics exhibition"),
                    ("salsa lessons", "dancing", "a Latin music festival"),
                    ("bouldering at a climbing gym", "climbing", "an outdoor crag weekend"),
                    ("a community choir", "singing", "a concert of sacred music"),
                    ("watercolour painting", "painting", "an art supply shop sale"),
                    ("a beginners' chess club", "chess", "a grandmaster simultaneous exhibition"),
                    ("sourdough baking", "bread", "a bakery tour")],
        "cities": ["Lisbon", "Montreal", "Edinburgh", "Osaka", "Valparaiso", "Tallinn"],
        "trips": [("Iceland", "the glaciers were unreal"), ("Morocco", "the markets in Marrakesh were wild"),
                  ("Norway", "we hiked up to a fjord viewpoint"), ("Vietnam", "the street food in Hanoi was incredible"),
                  ("Sicily", "we ate granita every single morning"), ("Patagonia", "the wind nearly knocked me over"),
                  ("Crete", "the water was so clear"), ("Scotland", "it rained but the highlands were gorgeous")],
        "pets": [("beagle", "Biscuit"), ("tabby cat", "Miso"), ("greyhound", "Comet"), ("parrot", "Kiwi"),
                 ("corgi", "Waffles"), ("rabbit", "Clover")],
        "jobs": [("team lead", "a logistics startup"), ("head nurse", "the children's hospital"),
                 ("senior editor", "a travel magazine"), ("lab manager", "the university"),
                 ("product designer", "a game studio"), ("sous chef", "a seafood restaurant")],
        "books": [("The Overstory", "trees and the people who fight for them", "novels about nature"),
                  ("Project Hail Mary", "an astronaut who wakes up alone", "science fiction"),
                  ("Educated", "a woman who grows up without school", "memoirs"),
                  ("Piranesi", "a man living in an endless house of statues", "fantasy"),
                  ("Sapiens", "how humans came to rule the world", "popular history")],
        "diets": [("went vegetarian", "started eating fish again", "meat", "fish"),
                  ("cut out sugar", "gave up on the no-sugar thing", "sugar", "sugar"),
                  ("stopped drinking coffee", "went back to two coffees a day", "coffee", "caffeine")],
        "injuries": [("sprained my ankle", "playing five-a-side football"), ("broke my wrist", "falling off my bike"),
                     ("pulled a muscle in my back", "moving a sofa")],
    },
    "test": {
        "people": ["Nadia", "Oskar", "Leila", "Bruno", "Hana", "Declan"],
        "hobbies": [("a woodworking course", "carving", "a furniture makers' fair"),
                    ("tango classes", "tango", "a milonga in Buenos Aires"),
                    ("a rowing club", "rowing", "a regatta on the river"),
                    ("jazz piano lessons", "piano", "a late-night jazz club"),
                    ("a pickleball league", "pickleball", "a racket sports tournament"),
                    ("birdwatching walks", "birds", "a wetland nature reserve"),
                    ("a stand-up comedy workshop", "comedy", "an open mic night")],
        "cities": ["Porto", "Vancouver", "Dublin", "Kyoto", "Cape Town", "Helsinki"],
        "trips": [("Peru", "Machu Picchu at sunrise was worth the climb"), ("Jordan", "Petra by candlelight felt magical"),
                  ("New Zealand", "we bungee jumped in Queenstown"), ("Greece", "the ferry between islands took forever"),
                  ("Croatia", "Dubrovnik was packed but beautiful"), ("Mexico", "the tacos al pastor changed my life"),
                  ("Japan", "the cherry blossoms were in full bloom"), ("Kenya", "we saw lions on the second day")],
        "pets": [("labrador", "Pepper"), ("siamese cat", "Noodle"), ("dachshund", "Pretzel"), ("hamster", "Nugget"),
                 ("border collie", "Scout"), ("tortoise", "Sheldon")],
        "jobs": [("engineering manager", "a payments company"), ("principal", "the primary school"),
                 ("staff photographer", "a newspaper"), ("head of research", "a pharma lab"),
                 ("store manager", "a bookshop chain"), ("pilot", "a regional airline")],
        "books": [("Klara and the Sun", "a robot companion watching a sick girl", "literary fiction"),
                  ("The Martian", "a botanist stranded on Mars", "science fiction"),
                  ("Born a Crime", "growing up mixed-race under apartheid", "memoirs"),
                  ("Circe", "a witch exiled to an island by the gods", "mythology retellings"),
                  ("Atomic Habits", "how small routines add up", "self-help")],
        "diets": [("went vegan", "started eating cheese again", "animal products", "cheese"),
                  ("quit alcohol", "had wine again at a wedding", "alcohol", "alcohol"),
                  ("gave up red meat", "caved and had a burger", "red meat", "red meat")],
        "injuries": [("twisted my knee", "skiing in the Alps"), ("cracked a rib", "a rugby tackle"),
                     ("burned my hand", "grabbing a hot pan")],
    },
}

# ------------------------------------------------------------ the phrasings
# {rel} is a relative time ("yesterday", "last week"), resolved against the
# session's date by whoever answers: the question asks when, the turn says
# "yesterday", the Event's start_time says which day that was.
PHRASES = {
    "dev": {
        "hobby": ["Guess what, I finally signed up for {hobby} — the first session was {rel}!",
                  "I started {hobby} {rel}. I'm terrible at it but I love it."],
        "hobby_more": ["The teacher says my {topic} is improving, slowly.",
                       "I can't stop thinking about {topic}, honestly."],
        "move": ["Big news: I'm moving to {city} next month, the new job is there.",
                 "We signed the lease, so it's official, I'm moving to {city}."],
        "trip": ["We just got back from {place} {rel}. {detail}!",
                 "I was in {place} {rel} and {detail}."],
        "pet": ["We adopted a {breed} {rel}, his name is {pet}.",
                "Meet {pet}, our new {breed}! We brought him home {rel}."],
        "job": ["I got promoted to {role} at {company} {rel}!",
                "Starting Monday I'm officially {role} at {company}."],
        "book": ["I'm reading {book} at the moment, it's about {about}.",
                 "Just finished {book}. A story about {about}, I couldn't put it down."],
        "diet1": ["I {d1} {rel}. Feeling pretty good so far.",
                  "So I {d1} a few weeks ago, it's been an adjustment."],
        "diet2": ["Confession: I {d2}. The {x} rule didn't last.",
                  "I {d2}, so much for no {x}."],
        "injury": ["I {hurt} {rel} {how}. So annoying.",
                   "Ugh, I {hurt} {how}, I'm on the couch for a while."],
        "reply": ["Wow, that's amazing!", "Oh no, that sounds rough.", "Haha, classic {other}.",
                  "Tell me more about that.", "I'm so happy for you!", "No way, really?",
                  "That's a big step.", "Send me photos!", "How are you feeling about it?"],
        "small": ["Work has been hectic this week, too many meetings.", "The weather here turned cold again.",
                  "I mostly stayed home and cleaned the flat this weekend.", "Did you watch the game last night?",
                  "I need a holiday, seriously.", "My neighbour's renovation starts at seven every morning.",
                  "I tried a new recipe, it was only okay.", "We should catch up properly soon.",
                  "I've been sleeping badly lately.", "Traffic was a nightmare today."],
        "greet": ["Hey {other}! How have you been?", "Hi {other}, long time no talk!", "Morning {other}!"],
        "aside": ["My cousin keeps telling me to visit {place}.", "I've always wanted to try {hobby} myself.",
                  "A friend of mine has a {breed}, they're a lot of work.", "I read a review of {book}, sounds good.",
                  "Apparently rents in {city} are crazy now."],
    },
    "test": {
        "hobby": ["So {rel} was my very first go at {hobby}, and I'm hooked.",
                  "You'll laugh: I joined {hobby} {rel}."],
        "hobby_more": ["I practise {topic} every evening now.",
                       "My partner is sick of hearing about {topic}."],
        "move": ["We're relocating to {city} in the spring, I got the transfer.",
                 "It's decided: {city} is our new home from next month."],
        "trip": ["{place} was the trip of a lifetime {rel}, {detail}.",
                 "Back from {place}! {detail}, we went {rel}."],
        "pet": ["There's a {breed} called {pet} living with us since {rel}.",
                "We rescued {pet} {rel}, a little {breed}."],
        "job": ["They made me {role} at {company} {rel}, still sinking in.",
                "New title: {role}, {company}. Started {rel}."],
        "book": ["Currently halfway through {book}, which is about {about}.",
                 "My book club picked {book}; it follows {about}."],
        "diet1": ["Since {rel} I've {d1_pp}, so far so good.",
                  "Heads up for dinner: I {d1} recently."],
        "diet2": ["Full disclosure, I {d2}, {x} won.",
                  "Well, I {d2}. Goodbye no-{x} life."],
        "injury": ["I {hurt} {how} {rel}, doctor says six weeks.",
                   "Bad news, {how} ended with me having {hurt_pp}."],
        "reply": ["That's brilliant news.", "Ouch, poor you.", "You never change, {other}.",
                  "Go on, what happened next?", "I'm really proud of you.", "Seriously? Wow.",
                  "That's huge.", "Pictures or it didn't happen!", "And how do you feel now?"],
        "small": ["The office coffee machine broke again.", "It hasn't stopped raining since Tuesday.",
                  "I spent Sunday doing laundry and nothing else.", "Did you see the final on TV?",
                  "I really need some time off.", "The upstairs flat is having its floors redone.",
                  "Dinner experiments continue, mostly failures.", "Let's grab lunch one of these days.",
                  "I keep waking up at four for no reason.", "The bus was forty minutes late again."],
        "greet": ["Hello {other}, how's life?", "{other}! Been ages.", "Hey you, {other}."],
        "aside": ["Everyone at work raves about {place} lately.", "My sister does {hobby}, she swears by it.",
                  "The neighbours got a {breed} and it barks all night.", "Someone lent me {book} but I haven't opened it.",
                  "A colleague just moved to {city}, she loves it."],
    },
}
# past participles for the test set's phrasings (dev does not use them)
PARTICIPLE = {"went vegan": "gone vegan", "quit alcohol": "quit alcohol", "gave up red meat": "given up red meat",
              "twisted my knee": "a twisted knee", "cracked a rib": "a cracked rib", "burned my hand": "a burned hand"}

# -------------------------------------------------------------- questions
QUESTIONS = {
    "dev": {
        "hobby": "What new hobby did {p} take up?",
        "hobby_when": "When did {p} start {hobby_short}?",
        "hobby_open": "Would {p} enjoy going to {related}?",
        "move": "Which city is {p} moving to?",
        "trip_month": "Where did {p} travel in {month}?",
        "trip_when": "When did {p} go to {place}?",
        "pet": "What is the name of {p}'s {breed}?",
        "pet_when": "When did {p} adopt {pet}?",
        "job": "What job was {p} promoted to?",
        "book": "What book was {p} reading?",
        "book_open": "What genre of books does {p} seem to like?",
        "diet_now": "Does {p} still avoid {x}?",
        "injury": "How did {p} get injured?",
        "multi_pet_city": "What is the pet's name of the person who is moving to {city}?",
        "multi_trips": "Which countries did {p} visit?",
        "multi_hobby_job": "What does the person who got promoted at {company} do for fun?",
    },
    "test": {
        "hobby": "What activity has {p} recently got into?",
        "hobby_when": "How long ago did {p} begin {hobby_short}?",
        "hobby_open": "Is {related} something {p} might like?",
        "move": "Where is {p} relocating?",
        "trip_month": "Which country did {p} visit in {month}?",
        "trip_when": "When was {p}'s trip to {place}?",
        "pet": "What did {p} call the {breed}?",
        "pet_when": "Since when has {p} had {pet}?",
        "job": "What is {p}'s new position?",
        "book": "Which book is {p} into lately?",
        "book_open": "What kind of reading does {p} go for?",
        "diet_now": "Is {p} still off {x}?",
        "injury": "What happened to {p}'s health recently?",
        "multi_pet_city": "The person relocating to {city}: what is their pet called?",
        "multi_trips": "Name the places {p} has travelled to.",
        "multi_hobby_job": "What hobby does the new {role} at {company} have?",
    },
}


def rel_phrase(rng):
    return rng.choice(["yesterday", "last week", "last weekend", "on Saturday", "two days ago", "this morning"])


def kip_str(s):
    return json.dumps(s, ensure_ascii=False)


def build(name, seed):
    rng = random.Random(seed)
    w, ph, qs = WORLD[name], PHRASES[name], QUESTIONS[name]
    people = w["people"]
    start = datetime.datetime(2025, 1, 6, 18, 0) if name == "dev" else datetime.datetime(2025, 2, 3, 19, 30)
    # each person's facts: kind -> list of (slots); every one stated in a session later
    facts = []  # (person, kind, slots)
    hobbies, cities, pets, jobs, books = (list(w[k]) for k in ("hobbies", "cities", "pets", "jobs", "books"))
    for lst in (hobbies, cities, pets, jobs, books):
        rng.shuffle(lst)
    trips = list(w["trips"])
    rng.shuffle(trips)
    for i, p in enumerate(people):
        facts.append((p, "hobby", hobbies[i]))
        facts.append((p, "move", cities[i]))
        facts.append((p, "pet", pets[i]))
        facts.append((p, "job", jobs[i]))
        facts.append((p, "book", books[i % len(books)]))
        facts.append((p, "trip", trips[i]))
        facts.append((p, "trip", trips[(i + 3) % len(trips)]))
        if i < len(w["diets"]) * 2:
            facts.append((p, "diet1", w["diets"][i % len(w["diets"])]))
            facts.append((p, "diet2", w["diets"][i % len(w["diets"])]))
        facts.append((p, "injury", w["injuries"][i % len(w["injuries"])]))
    # sessions: pairs of people, every 3–5 days over ~10 months
    pending = {p: [f for f in facts if f[0] == p] for p in people}
    for p in people:  # diet2 must come after diet1: keep the order, shuffle the rest
        lst = pending[p]
        others = [f for f in lst if f[1] not in ("diet1", "diet2")]
        rng.shuffle(others)
        d = [f for f in lst if f[1] in ("diet1", "diet2")]
        if d:
            pos = sorted(rng.sample(range(len(others) + 2), 2))
            others.insert(pos[0], d[0])
            others.insert(pos[1], d[1])
        pending[p] = others
    turns, sessions, stated = [], [], {}
    when = start
    sid = 0
    while any(pending.values()) or sid < 90:
        sid += 1
        when += datetime.timedelta(days=rng.randint(3, 5), minutes=rng.randint(-90, 90))
        a, b = rng.sample(people, 2)
        sname = f"S{sid:03d}"
        sessions.append((sname, when, (a, b)))
        t = [0]

        def say(who, text, fact=None):
            t[0] += 1
            tname = f"{name}/{sname}/T{t[0]:02d}"
            at = when + datetime.timedelta(minutes=2 * t[0])
            turns.append({"name": tname, "speaker": who, "with": [a, b], "time": at, "text": text})
            if fact is not None:
                stated.setdefault(fact, []).append((tname, at))
            return tname

        other_of = {a: b, b: a}

        def chatter(n):
            for _ in range(n):
                who = rng.choice((a, b))
                if rng.random() < 0.3:
                    text = rng.choice(ph["aside"]).format(place=rng.choice(w["trips"])[0], hobby=rng.choice(w["hobbies"])[0],
                                                          breed=rng.choice(w["pets"])[0], book=rng.choice(w["books"])[0],
                                                          city=rng.choice(w["cities"]))
                else:
                    text = rng.choice(ph["small"])
                say(who, text)
                say(other_of[who], rng.choice(ph["reply"]).format(other=who))

        say(a, rng.choice(ph["greet"]).format(other=b))
        chatter(rng.randint(1, 4))
        for who in (a, b):
            for _ in range(rng.randint(1, 2)):
                if not pending[who]:
                    break
                f = pending[who].pop(0)
                p, kind, s = f
                rel = rel_phrase(rng)
                if kind == "hobby":
                    text = rng.choice(ph["hobby"]).format(hobby=s[0], rel=rel)
                elif kind == "move":
                    text = rng.choice(ph["move"]).format(city=s)
                elif kind == "trip":
                    text = rng.choice(ph["trip"]).format(place=s[0], detail=s[1], rel=rel)
                    text = text[0].upper() + text[1:]
                elif kind == "pet":
                    text = rng.choice(ph["pet"]).format(breed=s[0], pet=s[1], rel=rel)
                elif kind == "job":
                    text = rng.choice(ph["job"]).format(role=s[0], company=s[1], rel=rel)
                elif kind == "book":
                    text = rng.choice(ph["book"]).format(book=s[0], about=s[1])
                elif kind == "diet1":
                    text = rng.choice(ph["diet1"]).format(d1=s[0], d1_pp=PARTICIPLE.get(s[0], s[0]), rel=rel)
                elif kind == "diet2":
                    text = rng.choice(ph["diet2"]).format(d2=s[1], x=s[3])
                else:  # injury
                    text = rng.choice(ph["injury"]).format(hurt=s[0], hurt_pp=PARTICIPLE.get(s[0], s[0]),
                                                           how=s[1], rel=rel)
                say(who, text, fact=(p, kind, s))
                say(other_of[who], rng.choice(ph["reply"]).format(other=who))
                if kind == "hobby":
                    say(who, rng.choice(ph["hobby_more"]).format(topic=s[1]), fact=(p, "hobby_more", s))
            chatter(rng.randint(0, 3))
        say(b, rng.choice(ph["reply"]).format(other=a))

    def ev(fact):
        return [n for n, _ in stated[fact]]

    def month_of(fact):
        return MONTHS[stated[fact][0][1].month - 1]

    questions = []

    def q(cat, text, expect):
        questions.append({"query": text, "expect": expect, "type": "Event", "category": cat})

    for p in people:
        mine = [f for f in facts if f[0] == p]
        by = {}
        for f in mine:
            by.setdefault(f[1], []).append(f)
        h = by["hobby"][0]
        q("single-hop", qs["hobby"].format(p=p), ev(h))
        q("temporal", qs["hobby_when"].format(p=p, hobby_short=h[2][0]), ev(h))
        q("open-domain", qs["hobby_open"].format(p=p, related=h[2][2]), ev(h) + ev((p, "hobby_more", h[2])))
        mv = by["move"][0]
        q("single-hop", qs["move"].format(p=p), ev(mv))
        months = {}
        for tr in by["trip"]:
            months.setdefault(month_of(tr), []).extend(ev(tr))
            q("temporal", qs["trip_when"].format(p=p, place=tr[2][0]), ev(tr))
        for month, evidence in months.items():
            q("temporal", qs["trip_month"].format(p=p, month=month), evidence)
        pt = by["pet"][0]
        q("single-hop", qs["pet"].format(p=p, breed=pt[2][0]), ev(pt))
        q("temporal", qs["pet_when"].format(p=p, pet=pt[2][1]), ev(pt))
        jb = by["job"][0]
        q("single-hop", qs["job"].format(p=p), ev(jb))
        bk = by["book"][0]
        q("single-hop", qs["book"].format(p=p), ev(bk))
        q("open-domain", qs["book_open"].format(p=p), ev(bk))
        if "diet1" in by:
            d = by["diet1"][0]
            q("multi-hop", qs["diet_now"].format(p=p, x=d[2][2]), ev(d) + ev(by["diet2"][0]))
        inj = by["injury"][0]
        q("single-hop", qs["injury"].format(p=p), ev(inj))
        q("multi-hop", qs["multi_pet_city"].format(city=mv[2]), ev(mv) + ev(pt))
        q("multi-hop", qs["multi_trips"].format(p=p), ev(by["trip"][0]) + ev(by["trip"][1]))
        q("multi-hop", qs["multi_hobby_job"].format(company=jb[2][1], role=jb[2][0]), ev(jb) + ev(h))
    return people, turns, questions


def write(name, seed):
    people, turns, questions = build(name, seed)
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "memory.kip"), "w") as f:
        f.write(f"// generated by scripts/bench/conversations/generate.py ({name} set): "
                f"{len(turns)} conversation turns between {len(people)} people\n")
        f.write("UPSERT {\n")
        for p in people:
            f.write(f"  CONCEPT ?p_{p} {{ {{type: \"Person\", name: {kip_str(p)}}} "
                    f"SET ATTRIBUTES {{ person_class: \"Human\" }} }}\n")
        f.write("}\n")
        for i in range(0, len(turns), 100):
            f.write("UPSERT {\n")
            for j, t in enumerate(turns[i:i + 100]):
                attrs = {"event_class": "Conversation", "start_time": t["time"].isoformat() + "Z",
                         "participants": t["with"], "content_summary": f"{t['speaker']}: {t['text']}",
                         "context": {"session": t["name"].split("/")[1], "speaker": t["speaker"]}}
                body = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in attrs.items())
                f.write(f"  CONCEPT ?e{j} {{ {{type: \"Event\", name: {kip_str(t['name'])}}} SET ATTRIBUTES {{ {body} }}"
                        f" SET PROPOSITIONS {{ (\"involves\", {{type: \"Person\", name: {kip_str(t['speaker'])}}}) }} }}\n")
            f.write("}\n")
    with open(os.path.join(out, "questions.jsonl"), "w") as f:
        for qq in questions:
            f.write(json.dumps(qq, ensure_ascii=False) + "\n")
    print(f"{name}: {len(turns)} turns, {len(questions)} questions")


if __name__ == "__main__":
    write("dev", 11)
    write("test", 29)
