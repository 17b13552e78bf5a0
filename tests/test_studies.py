"""Studies as data (mage.studies): every study definition plans on a GPU's request, names only cases and
implementations that exist, in the order it gives, and its predictions are ones its run can judge; mage study
lists them, refuses an unknown one, and runs one as mage run would, the study's name stored with the run."""

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from mage import cli, experiments, registry, studies
from mage.errors import MageError, UnknownNameError
from mage.plan import plan


@pytest.mark.parametrize("name", studies.names())
def test_every_study_plans_each_named_case_in_order_and_its_predictions_can_be_judged(name):
    study = studies.load(name)
    request = study.request("cuda")
    work = plan(request)
    assert [p.case.name for p in work if p.case.name not in [q.case.name for q in work[:work.index(p)]]] == [
        case for case in study.cases if any(p.case.name == case for p in work)]
    assert {p.case.name for p in work} == set(study.cases), "a named case has no selected implementation"
    assert all(p.impls for p in work)
    experiments.validate(experiments.parse_all(study.predict, registry.ops()), request)
    assert study.headline.endswith(("?", ".")) and len(study.headline) < len(" ".join(study.question.split())) + 1


def test_a_study_file_with_an_unknown_key_or_a_missing_one_is_refused_by_name(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "FOLDER", tmp_path)
    (tmp_path / "typo.toml").write_text('question = "q"\nops = ["softmax"]\ncases = ["1024x1024"]\nimpl = ["eager"]\n')
    with pytest.raises(MageError, match="typo.toml: unknown keys impl; a study has"):
        studies.load("typo")
    (tmp_path / "short.toml").write_text('question = "q"\nops = ["softmax"]\n')
    with pytest.raises(MageError, match="short.toml: .*missing"):
        studies.load("short")
    with pytest.raises(UnknownNameError, match="unknown study 'none'; known: short, typo"):
        studies.load("none")


def test_mage_study_runs_one_on_the_cpu_and_stores_its_name_hypothesis_and_order(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "FOLDER", tmp_path)
    (tmp_path / "tiny.toml").write_text("\n".join([
        'question = "Is eager softmax slower than eager LayerNorm at 1024 columns? A test study."',
        'ops = ["layernorm", "softmax"]', 'cases = ["1024x1024"]',
        'impls = ["eager/rows/ieee", "eager/affine/ieee"]', "budget_s = 0.01", "min_samples = 3",
        'hypothesis = "Softmax takes longer."', 'predict = ["softmax/eager/rows/ieee@1024x1024:span<1e9"]']))
    listed = CliRunner().invoke(cli.app, ["study"], env={"COLUMNS": "120"})
    assert listed.exit_code == 0 and "tiny" in listed.output and "Is eager softmax slower" in listed.output
    db = tmp_path / "mage.db"
    ran = CliRunner().invoke(cli.app, ["study", "tiny", "--device", "cpu", "--db", str(db)])
    assert ran.exit_code == 0, ran.output
    run = sqlite3.connect(db).execute("SELECT hypothesis, method_json, command FROM runs").fetchone()
    assert run[0] == "Softmax takes longer." and json.loads(run[1])["request"]["study"] == "tiny"
    unknown = CliRunner().invoke(cli.app, ["study", "nope", "--db", str(db)])  # mage's main gives it exit code 2
    assert isinstance(unknown.exception, UnknownNameError) and "unknown study 'nope'" in str(unknown.exception)
