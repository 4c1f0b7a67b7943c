"""Tool-use policy of the offline model: what to call next, when to stop, what to say.

Used by the ``react`` and ``tool_use`` skills; reads requests through ``..understanding``:

* ``intents`` — the data: ``Intent`` (one thing asked), ``Deferred`` (an argument still to come);
* ``selection`` — from a request to *intents*: which tool serves each part, with which arguments;
* ``deferral`` — an argument described instead of given is read from another tool's result first;
* ``planning`` — the next calls from the intents and the conversation so far (``decide``);
* ``history`` — what happened since the user's last message (calls, results, errors);
* ``records`` — reading values out of tool results (records, the field of a given kind);
* ``research`` — documentary research: search, read the relevant pages, stop, answer from them;
* ``relevance`` — whether a sentence answers the question;
* ``answers`` — French answers built only from what the tools returned;
* ``turns`` — the shape of one turn (forced ``tool_choice``, mandatory call, text turn);
* ``phrasing`` — the wording templates, and where sampling lets them vary.
"""
