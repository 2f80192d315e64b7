"""What the timing scripts of perf/ share with the tests: the Hub stand-in with its Jobs API (:mod:`.hub_stub`,
:mod:`.jobs_stub`), synthetic StreamGaze submissions (:mod:`.synthetic`), the release-format fixture
(:mod:`.release_fixture`), tiny random-weight checkpoints (:mod:`.tiny_checkpoints`), the leaderboard-jobs setting
(:mod:`.leaderboard_jobs`), the cache variables pointed away from the user's home (:mod:`.caches`) and the timing
scripts loaded as modules by one another (:mod:`.scripts`). The tests
import them from here; nothing in perf/ imports from tests/ (tests/unit/test_test_layout.py), since the scripts are
run on a checkout as they are."""
