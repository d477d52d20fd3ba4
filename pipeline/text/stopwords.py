"""English stopwords: one list of function words, and what each use adds to it."""

from __future__ import annotations

# Words that carry no topic on their own, in any use.
FUNCTION_WORDS = frozenset(
    """
    about above after again against all also and any are because been before being below
    between both but can could did does doing down during each few for from further
    given had has have having here hers him his how into its itself more most not off
    once only other our ours out over own same she should some such than that the their
    theirs them then there these they this those through too under until very was were
    what when where which while who whom whose why will with would you your yours
    """.split()  # noqa: SIM905
)

# Key concepts (``chunk/concepts.py``) also skip words common in technical prose and web
# addresses, which would otherwise top every section's term counts.
PROSE_NOISE = frozenset(
    """
    although always among another aren't around cannot com done either else even ever
    every get gets getting gives herself himself however html http https just less like
    made make makes many may might much must need needs neither never next now often one
    onto org others otherwise per perhaps rather really see seen shall since themselves
    therefore thing things though thus upon use used uses using via way ways well
    whatever whether within without www yet yourself
    """.split()  # noqa: SIM905
)

# BM25 (``index/words.py``) also skips short words and the words questions are phrased
# with ("what is mentioned regarding ..."), which name no part of the answer.
QUESTION_WORDS = frozenset(
    """
    a according am an as at be by describe described discussed do he her i if in is it
    me mention mentioned my no nor of on or particular regarding so specific to up we
    whats
    """.split()  # noqa: SIM905
)

CONCEPT_STOPWORDS = FUNCTION_WORDS | PROSE_NOISE
SEARCH_STOPWORDS = FUNCTION_WORDS | QUESTION_WORDS
