"""Language understanding of the offline model: reading a request and the tools it offers.

Pure functions of text and JSON Schemas, no decision about what to do (that is ``..policy``):

* ``nlu`` — words, numbers, times, places, quoted strings, identifiers, request clauses;
* ``lexicon`` — the word lists it relies on (concepts, request verbs, enum synonyms; data only);
* ``schemas`` — a request's tools as ``ToolInfo`` (names, descriptions, parameters and their kinds);
* ``arguments`` — filling a tool's arguments from one intent, following its JSON Schema;
* ``expressions`` — arithmetic expressions in a request (« 3 fois 4 plus 2 »), parsed, never run;
* ``references`` — values a request describes instead of giving (« la ville de ma réunion »);
* ``polarity`` — yes/no questions, and whether a page says yes, no or not yet;
* ``react_format`` — the ReAct *text* format, read into tool calls and written back.

Text normalisation (folding, words, stems, stop words) is ``course_utils.text``, shared with the
corpus and the embeddings.
"""
