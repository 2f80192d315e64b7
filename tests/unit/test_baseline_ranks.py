"""The baseline models take their rank and world size from the launcher's environment and stay on the
CPU (moved out of tests/e2e/test_distributed.py, whose two-process run is end to end)."""


def test_baselines_take_rank_world_size_and_device_from_the_launcher(monkeypatch):
    from lmms_tasks.models import OracleBaseline, RandomBaseline

    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    for cls in (RandomBaseline, OracleBaseline):
        model = cls(batch_size="1", device="cuda:1")  # lmms-eval passes --device through; baselines stay on CPU
        assert (model.rank, model.world_size, str(model.device)) == (1, 2, "cpu")
