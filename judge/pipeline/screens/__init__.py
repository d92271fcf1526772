"""Screens: answer- and request-level findings beside the per-claim checks. Text addressed to
the judge inside the data (the injection screen) and citations spread over every passage
(citation stuffing) are read once per request, not once per claim."""
