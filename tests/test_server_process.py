"""A long-running server's process settings (ui/server/process.py): the collector out of the way and a short GIL
switch interval, set once before serving."""

from __future__ import annotations

import gc
import logging
import sys

import pytest

from ui.server import process as sp


@pytest.fixture
def restore():
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    yield
    sys.setswitchinterval(interval)
    gc.set_threshold(*thresholds)
    gc.unfreeze()


def test_settle_process_sets_the_collector_and_the_switch_interval(restore, monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_SWITCH_INTERVAL_MS", raising=False)
    sp.settle_process()
    assert gc.get_threshold() == sp.GC_THRESHOLDS
    assert sys.getswitchinterval() == pytest.approx(sp.SWITCH_INTERVAL_S)
    assert gc.get_freeze_count() > 0  # what was loaded before serving is out of the collector's scans


@pytest.mark.parametrize("raw, expected", [("5", 0.005), ("0.5", 0.0005), ("100", 0.1)])
def test_the_environment_sets_the_interval(raw, expected):
    assert sp.switch_interval_s({"GPU_ADVISOR_SWITCH_INTERVAL_MS": raw}) == pytest.approx(expected)


@pytest.mark.parametrize("raw", ["fast", "", "0", "-1", "1e9", "nan", "inf"])
def test_a_bad_value_keeps_the_default_and_says_so(raw, caplog):
    with caplog.at_level(logging.WARNING, logger="ui.server.process"):
        assert sp.switch_interval_s({"GPU_ADVISOR_SWITCH_INTERVAL_MS": raw}) == sp.SWITCH_INTERVAL_S
    assert "GPU_ADVISOR_SWITCH_INTERVAL_MS" in caplog.text and "0.01 to 100" in caplog.text
