#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# A local analyser for `jv analyze --command` (README "Analyser protocol"): one entry's JSON on
# standard input, one answer on standard output. Sentiment is VADER's (vaderSentiment: a
# lexicon and rules, nothing to download; examples/vader/setup.sh installs it). People and
# places come from one rule, on purpose simple enough to predict:
#  - a name is a run of capitalised words ("Anna", "Anna Berg", "Hyde Park"), a trailing 's
#    dropped; a word that starts a sentence or a line is never part of one (it is capitalised
#    anyway), nor are "I", weekdays and months;
#  - a name is a place if its last word is a place word (Park, Street, Lake, …) or it follows
#    "in", "near", "around", "across" or "through"; every other name is a person.
import json
import re
import sys

from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

PLACE_WORDS = {"street", "road", "avenue", "lane", "square", "park", "garden", "gardens", "lake", "river",
               "beach", "bay", "island", "mountain", "hill", "valley", "forest", "station", "airport",
               "market", "bridge", "museum", "library", "café", "cafe", "church", "castle", "harbour",
               "harbor", "city", "town", "village"}
PLACE_BEFORE = {"in", "near", "around", "across", "through"}
NOT_NAMES = {"i", "i'm", "i've", "i'd", "i'll", "monday", "tuesday", "wednesday", "thursday", "friday",
             "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august",
             "september", "october", "november", "december"}
# A word: a letter, then letters, digits, apostrophes or hyphens.
WORD = re.compile(r"[^\W\d_][\w'’-]*")


def names(text):
    """The (person, place) names in text, in order of first mention, each once."""
    people, places = {}, {}
    run, before, previous_end = [], None, 0

    def close_run():
        if run:
            name = " ".join(run)
            is_place = run[-1].lower() in PLACE_WORDS or before in PLACE_BEFORE
            (places if is_place else people).setdefault(name, None)
            run.clear()

    last_word = None
    for match in WORD.finditer(text):
        gap = text[previous_end:match.start()]
        previous_end = match.end()
        word = re.sub(r"['’]s$", "", match.group())
        starts_sentence = last_word is None or re.search(r"[.!?:\n]", gap) is not None
        capitalised = word[0].isupper() and word.lower() not in NOT_NAMES and not starts_sentence
        # A run is broken by anything but one space (a comma, a line break, another word).
        if not capitalised or gap != " ":
            close_run()
        if capitalised:
            if not run:
                before = (last_word or "").lower()
            run.append(word)
        last_word = word
    close_run()
    return list(people), list(places)


entry = json.load(sys.stdin)
text = entry["content"]
scores = SentimentIntensityAnalyzer().polarity_scores(text)
# VADER's authors' thresholds on the compound score (-1 … 1).
compound = scores["compound"]
sentiment = "positive" if compound >= 0.05 else "negative" if compound <= -0.05 else "neutral"
people, places = names(text)
nodes = [{"type": "person", "name": p} for p in people] + [{"type": "place", "name": p} for p in places]
print(json.dumps({
    "model": "vader",
    "sentiment": sentiment,
    "themes": entry["tags"],
    "entities": {"people": people, "places": places},
    "vader": scores,  # kept with the analysis as an extra member
    "nodes": nodes,
    "relations": [{"from": {"type": "person", "name": "me"}, "to": node, "type": "mentions", "strength": 0.5}
                  for node in nodes],
}))
