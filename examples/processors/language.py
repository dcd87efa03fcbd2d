#!/usr/bin/env python3
"""A godwit external processor: guesses a page's language from its stop
words and counts its words.

    godwit crawl --processor 'exec:python3 examples/processors/language.py' ...

It speaks godwit's JSON Lines protocol (docs/processors.md): one request
per line on stdin, one answer per line on stdout, carrying the request's
id. Anything written to stderr goes to godwit's log. Standard library only.
"""
import html
import json
import re
import sys

STOP_WORDS = {
    "en": "the of and to in is that it for was on are with as his they be at this have from or by".split(),
    "fr": "le la les de des et est un une du que qui dans pour pas sur au avec ce il sont".split(),
    "de": "der die das und ist nicht ein eine zu den von mit sich des auf für im dem auch es".split(),
    "es": "el la los las de que y en un una es por con para no se del al lo como su".split(),
    "nl": "de het een en van is dat niet op te zijn voor met die aan er maar om ook als".split(),
}
STOP_SETS = {lang: set(words) for lang, words in STOP_WORDS.items()}

SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I)
TAG = re.compile(r"<[^>]*>")
WORD = re.compile(r"[^\W\d_]+", re.U)


def visible_words(body):
    text = SCRIPT_OR_STYLE.sub(" ", body)
    text = html.unescape(TAG.sub(" ", text))
    return [w.lower() for w in WORD.findall(text)]


def answer(req):
    out = {"id": req["id"]}
    body = req.get("body")
    if not body:
        return out  # not an HTML page: nothing to say
    words = visible_words(body)
    ann = {"words": str(len(words))}
    scores = {lang: sum(1 for w in words if w in stop) for lang, stop in STOP_SETS.items()}
    lang, best = max(scores.items(), key=lambda kv: kv[1])
    if best >= 3 and best >= 0.02 * len(words):
        ann["lang"] = lang
    out["annotations"] = ann
    return out


def main():
    for line in sys.stdin:
        try:
            req = json.loads(line)
        except ValueError as e:
            print(f"language.py: bad request: {e}", file=sys.stderr)
            continue
        try:
            out = answer(req)
        except Exception as e:  # say so, and go on with the next page
            out = {"id": req.get("id", 0), "error": str(e)}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
