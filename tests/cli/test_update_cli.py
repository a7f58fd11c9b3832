"""``memlens absorb`` of an update said in plain text supersedes the fact it updates."""

from __future__ import annotations

import json

from tests.cli.conftest import Run


def test_an_update_in_plain_text_supersedes_through_the_cli(run: Run) -> None:
    code, out, _ = run("absorb", "Lena works at Brightline Labs.", "The weekly sync is on Tuesdays at 10:00.", "--json")
    assert code == 0
    old, sync_old = (it["fact_id"] for it in json.loads(out)["items"])
    code, out, _ = run("--now", "2026-12-01T12:00:00Z", "absorb", "Lena now works at Corvid Systems.",
                       "The weekly sync moved to Thursdays at 10:00.", "--json")
    items = json.loads(out)["items"]
    assert code == 0 and [(it["outcome"], it["target_id"]) for it in items] == [("supersede", old),
                                                                                ("supersede", sync_old)]
    for before, item in zip((old, sync_old), items):
        code, out, _ = run("--now", "2026-12-02T12:00:00Z", "timeline", str(item["fact_id"]), "--json")
        timeline = json.loads(out)
        assert [(v["id"], v["status_then"]) for v in timeline["versions"]] == [(before, "superseded"),
                                                                              (item["fact_id"], "active")]
    code, out, _ = run("--now", "2026-12-02T12:00:00Z", "timeline", str(items[0]["fact_id"]))
    assert f"v1 #{old} [superseded]" in out and f"v2 #{items[0]['fact_id']} [active]" in out


def test_a_disagreement_without_newer_wording_is_a_contradiction_and_a_restatement_reinforces(run: Run) -> None:
    code, out, _ = run("absorb", "The billing API runs in eu-west-1.", "--json")
    stored = json.loads(out)["items"][0]["fact_id"]
    outcomes = []
    for text in ("The billing API is deployed to eu-west-1.", "The search API runs in us-east-2.",
                 "The billing API runs in us-east-2."):
        code, out, _ = run("absorb", text, "--json")
        item = json.loads(out)["items"][0]
        outcomes.append((item["outcome"], item["target_id"]))
    assert outcomes[0] == ("duplicate", stored)
    assert outcomes[1][0] in ("related", "new")  # another API of the same shape
    assert outcomes[2] == ("contradict", stored)
