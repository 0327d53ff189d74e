"""People see a citation's title, section and date, not the repository file it points to: the CLI's text, the
Slack findings, the web panels and the quote alike (ui/citations.py); the JSON outputs keep the full source."""

from __future__ import annotations

import json

from rules.findings import Finding
from ui.citations import source_without_path
from ui.cli.entry import main
from ui.slack import render as slack_render

GUIDE = "大模型训练与推理显卡全指南 (news article, 2025-06-16), RTX 4090 (seeds/000_40d9afaaa53413f3.txt)"
URL = "vLLM docs, Engine Arguments (https://docs.vllm.ai/en/v0.8.5/serving/engine_args.html, retrieved 2026-12-02)"


def test_the_repository_path_goes_and_the_rest_stays():
    assert source_without_path(GUIDE) == "大模型训练与推理显卡全指南 (news article, 2025-06-16), RTX 4090"
    assert source_without_path(f"{GUIDE}; {URL}") == f"大模型训练与推理显卡全指南 (news article, 2025-06-16), RTX 4090; {URL}"
    assert source_without_path("guide-000 §3 (../shared/reference/notes.md)") == "guide-000 §3"
    assert source_without_path(URL) == URL


def test_cli_recommend_text_cites_without_paths_and_json_keeps_them(capsys):
    argv = ["recommend", "--model", "qwen2.5-72b", "--concurrency", "20", "--region", "cn"]
    assert main(argv) in (0, None)
    text = capsys.readouterr().out
    assert "大模型训练与推理显卡全指南" in text  # the guide is cited
    assert "seeds/" not in text and "(knowledge/" not in text and "reference/" not in text
    assert main([*argv, "--json"]) in (0, None)
    data = json.loads(capsys.readouterr().out)
    sources = [f["source"] for o in data["options"] for f in o["findings"]] + [f["source"] for f in data["findings"]]
    assert any("seeds/" in s for s in sources)  # the contract still says where the claim is


def test_slack_findings_cite_without_paths():
    finding = Finding(rule_id="risk-used-card", severity="warn", message="Used cards carry risk.",
                      message_zh="二手卡有风险。", source=GUIDE, as_of="2025-06-16")
    [line] = slack_render.finding_lines([finding], "zh")
    assert "大模型训练与推理显卡全指南" in line and "seeds/" not in line and "2025-06-16" in line
