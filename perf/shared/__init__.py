"""What the timing scripts of perf/ share with the tests: the Hub stand-in (:mod:`.hub_stub`) and synthetic
StreamGaze submissions (:mod:`.synthetic`). The tests import them from here; nothing in perf/ imports from tests/
(tests/unit/test_test_layout.py), since the scripts are run on a checkout as they are."""
