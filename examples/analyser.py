#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# A toy analyser for `jv analyze --command examples/analyser.py`: reads one entry, prints one answer.
import json, sys
entry = json.load(sys.stdin)
words = "".join(c if c.isalnum() or c.isspace() else " " for c in entry["content"]).split()
people = sorted({w for w in words[1:] if w[:1].isupper()})
mood = "positive" if any(w.lower() in ("glad", "calm", "good", "happy") for w in words) else "neutral"
print(json.dumps({"sentiment": mood, "themes": entry["tags"], "entities": {"people": people},
                  "nodes": [{"type": "person", "name": p} for p in people],
                  "relations": [{"from": {"type": "person", "name": "me"}, "to": {"type": "person", "name": p},
                                 "type": "mentions", "strength": 0.5} for p in people]}))
