#!/usr/bin/env python3
"""Writes the requests of the ARG learning-curve experiment (docs/arg.md
"Routing that learns"): traffic.jsonl (the first 99 requests, routed and
then corrected by a reviewer) and later.jsonl (99 other requests of the same
topics, asked afterwards). Each topic is a question people ask in a word the
fixture ontology (../shared/arg/ontology.kip) does not have — "logout",
"PayPal", "freelancers", "todo", "pings", "trashcan", "cheque", "leavers",
"agency", "YubiKey", "passkey", "hijacked", "scam" — in phrasings written by hand, none shared between the two files.
Every line carries the label a reviewer would give it (expect.primary_label),
which `kip arg eval --record --feedback` files as a verification or a
correction. Usage: make.py (rewrites both files beside it)."""
import json
import os

TOPICS = {
    "security.sessions": (
        ["how do I logout of every device at once?", "is there a logout everywhere button?",
         "I want a logout on my old laptop too", "can I force a logout on the phone I lost?",
         "where is the remote logout?", "logout all other browsers please explain how",
         "does a logout on one device end the others?", "how to do a global logout",
         "remote logout of a stolen tablet, how?", "what's the fastest logout for all sessions?",
         "logout from the office computer I forgot, possible?"],
        ["logout of my work PC from home, how?", "I need a logout on all devices except this one",
         "can a logout be done for the iPad I sold?", "how do I trigger logout on every browser?",
         "forgot to logout at the library, what do I do?", "is a full logout possible from the web app?",
         "logout for all my devices, where?", "how does the logout everywhere option work?",
         "can I logout the desktop app remotely?", "need a logout across devices after a breach scare",
         "logout of shared computers, how?"]),
    "billing.payments.methods": (
        ["can we pay with PayPal?", "is PayPal accepted for the annual plan?", "PayPal as a payment option?",
         "do you take PayPal or only cards?", "switching our billing to PayPal, possible?",
         "can the Team plan be paid via PayPal?", "we prefer PayPal, is that supported?",
         "pay by cheque, is that an option?", "can we send a cheque for the invoice?",
         "do you accept a paper cheque?", "cheque payments for annual billing?"],
        ["PayPal for monthly billing, can we?", "our finance team only uses PayPal, okay?",
         "can I add PayPal as the default method?", "is PayPal among the accepted methods?",
         "PayPal checkout for upgrades?", "paying through PayPal instead of a card?",
         "can a cheque cover the renewal?", "mailing a cheque for our plan, allowed?",
         "cheque instead of bank transfer?", "do you cash cheques from abroad?", "PayPal business account payments?"]),
    "workspace.guests": (
        ["can freelancers join just one channel?", "how do I add a freelancer to a project channel?",
         "freelancers should not see everything, how?", "inviting freelancers without giving full access",
         "do freelancers cost a seat?", "can an agency we hire get limited access?",
         "add our design agency to one channel", "an agency needs access to two channels only",
         "giving an outside agency a restricted login", "freelancer access that expires, possible?",
         "how many freelancers can we bring in for free?"],
        ["our freelancers need to collaborate in one channel", "freelancer wants to join the launch channel",
         "limit a freelancer to a single channel", "are freelancers billed like members?",
         "how do I invite an agency contact?", "agency staff should only see the campaign channel",
         "can the agency we work with join as guests?", "freelancer invites with an end date",
         "do agency people count toward seats?", "set up access for a freelancer copywriter",
         "an agency partner needs channel access"]),
    "workspace.tasks": (
        ["can I keep a todo list in a channel?", "how do I assign a todo to a colleague?",
         "is there a todo board?", "todo items with due dates, possible?", "make a recurring todo",
         "can a todo depend on another?", "where do I track todos for my team?", "todo reminders before deadlines?",
         "move a todo to done", "shared todo lists for the channel?", "how do todos work?"],
        ["set a deadline on a todo", "can todos repeat every Monday?", "a todo blocked by another todo",
         "who gets reminded about a todo?", "todo columns like in a kanban?", "add a todo for the whole team",
         "todo list per channel?", "mark a todo as finished", "assign two people to one todo",
         "weekly todo that recreates itself", "how do I see all open todos?"]),
    "workspace.notifications": (
        ["too many pings, how do I reduce them?", "stop the pings from busy channels",
         "I only want pings when mentioned", "can I pause pings for the evening?", "pings at night are annoying",
         "why am I not getting pings on my phone?", "turn off pings for one channel", "mute pings on weekends",
         "pings for every message is too much", "get pings only for direct mentions", "silence pings during meetings"],
        ["how do I cut down the pings?", "no pings after 6pm please, how?", "pings only when someone tags me",
         "my phone stopped giving me pings", "pings from a noisy channel, stop them", "schedule quiet hours for pings",
         "fewer pings from threads", "pings are overwhelming, what settings?", "disable pings temporarily",
         "channel pings vs mention pings", "I miss pings on mobile"]),
    "data.restore": (
        ["where is the trashcan for deleted docs?", "can I get a file back from the trashcan?",
         "how long do things stay in the trashcan?", "empty trashcan, can support recover?",
         "restore a channel from the trashcan", "trashcan for messages?", "who can restore from the trashcan?",
         "is there a trashcan for files?", "find the trashcan in settings", "trashcan after 30 days?",
         "pull a doc out of the trashcan"],
        ["I deleted a doc, is it in the trashcan?", "trashcan location please", "recover a file from trashcan",
         "how old can trashcan items be?", "is the trashcan per workspace?", "channel in the trashcan, bring it back",
         "can members use the trashcan?", "trashcan restore for admins", "what goes into the trashcan?",
         "trashcan retention time", "restore everything in the trashcan"]),
    "accounts.deactivation": (
        ["how do we handle leavers?", "remove access for leavers", "what happens to a leaver's tasks?",
         "leavers should lose access today", "can a leaver come back later?", "offboard leavers quickly",
         "leavers and their messages, what stays?", "process for leavers in the workspace",
         "do leavers keep their channels?", "a leaver still has access, how to stop it?",
         "leavers list cleanup"],
        ["we have three leavers this week, what do we do?", "leaver access removal steps",
         "does a leaver's content stay searchable?", "reactivate a leaver who returned",
         "leavers and task assignments", "sign out leavers everywhere", "leaver offboarding in settings",
         "can the owner be a leaver?", "remove a leaver but keep their docs", "handling leavers at month end",
         "leaver still appears in members"]),
    "accounts.2fa": (
        ["can I use a YubiKey as my second factor?", "does sign-in work with a passkey?", "set up a YubiKey for login",
         "are passkeys supported?", "YubiKey plus an authenticator, both allowed?", "passkey instead of codes?",
         "how do I register my YubiKey?", "passkeys for the whole team, can admins require them?",
         "which YubiKey models work?", "passkey on my phone as the second step?", "YubiKey on the mobile app?"],
        ["register a passkey on my account", "is a YubiKey enough for two-step login?",
         "passkeys or authenticator app, which is supported?", "add a second YubiKey as backup",
         "can we enforce passkeys for members?", "my YubiKey is new, how do I enrol it?",
         "passkey sign-in on the desktop app?", "YubiKey NFC with the phone app?", "does a passkey replace the code?",
         "YubiKey setup steps", "passkey support for our workspace"]),
    "security.suspicious_activity": (
        ["I think my account got hijacked", "a scam message asked for my login code", "what to do if hijacked?",
         "is this a scam DM from support?", "our admin's account may be hijacked", "report a scam message",
         "got a scam email pretending to be Threadline", "hijacked account, first steps?",
         "someone hijacked my session, help", "how do I spot a scam message?", "scam link in a channel, what now?"],
        ["my login may be hijacked, what should I do?", "a scam message is going around our channels",
         "report a hijacked account", "scam asking for my password, real?", "steps after a hijacked sign-in",
         "how to flag a scam DM", "hijacked by someone abroad?", "is a message asking for codes a scam?",
         "colleague's account looks hijacked, what do we do?", "scam invoices in chat", "recover from a hijacked account"]),
}

here = os.path.dirname(os.path.abspath(__file__))
CALLER = {"role": "workspace_admin", "workspace": "globex", "user": "lee@globex.example", "channel": "web_chat",
          "product": "threadline", "environment": "prod"}
for name, part in (("traffic", 0), ("later", 1)):
    with open(os.path.join(here, name + ".jsonl"), "w") as f:
        n = 0
        for label, pair in TOPICS.items():
            for prompt in pair[part]:
                n += 1
                f.write(json.dumps({"id": f"{name[0]}{n:03d}", "prompt": prompt, "context": CALLER,
                                    "expect": {"outcome": "ANSWER", "primary_label": label, "action": None,
                                               "must_include_nodes": [], "must_exclude_labels": []}}) + "\n")
