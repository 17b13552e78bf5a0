"""Studies as data (mage.studies): every study definition plans on a GPU's request, names only cases and
implementations that exist, in the order it gives, and its predictions are ones its run can judge; every study
says what its runs showed; every study of model blocks names blocks, precisions and compile modes mage context
takes; mage study lists them, refuses an unknown one, and runs one as mage run (or mage context) would, the
study's name stored with the run."""

import datetime
import json
import sqlite3

import pytest
from typer.testing import CliRunner

from mage import cli, experiments, registry, studies
from mage.context import blocks, measure
from mage.errors import MageError, UnknownNameError
from mage.plan import plan


OP_STUDIES = [name for name in studies.names() if studies.load(name).context is None]
CONTEXT_STUDIES = [name for name in studies.names() if studies.load(name).context is not None]


def test_the_lower_precision_and_model_context_studies_are_defined():
    assert "lower-precision" in OP_STUDIES and "model-context" in CONTEXT_STUDIES


@pytest.mark.parametrize("name", OP_STUDIES)
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


@pytest.mark.parametrize("name", studies.names())
def test_every_study_ends_with_what_its_runs_showed_in_a_few_sentences(name):
    conclusion = " ".join((studies.load(name).conclusion or "").split())
    assert conclusion.endswith("."), f"{name}.toml has no conclusion"
    assert conclusion.count(". ") < 8, f"{name}.toml: a conclusion is a few sentences, not a report"


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


@pytest.mark.parametrize("name", CONTEXT_STUDIES)
def test_every_study_of_model_blocks_is_a_context_request_mage_context_accepts(name):
    study = studies.load(name)
    request = study.context_request("cuda")
    measure.check_request(request)  # unknown blocks, precisions, assignments or compile modes raise here
    assert request.study == name and request.method.budget_s == study.budget_s
    assert blocks.select(request.blocks, request.size) and not study.predict and not study.ops
    assert study.headline.endswith(("?", "."))


@pytest.mark.parametrize("text, message", [
    ('ops = ["softmax"]\n[context]\nblocks = ["mlp"]', "measures them with mage context .*: it has no ops"),
    ('[context]\nblock = ["mlp"]', "unknown keys block; its \\[context\\] table has"),
    ('[context]\nprecisions = ["tf32"]', "missing .*blocks"),
])
def test_a_study_of_model_blocks_with_op_keys_or_a_wrong_context_table_is_refused(tmp_path, monkeypatch, text,
                                                                                   message):
    monkeypatch.setattr(studies, "FOLDER", tmp_path)
    (tmp_path / "blocks.toml").write_text(f'question = "q"\n{text}\n')
    with pytest.raises(MageError, match=message):
        studies.load("blocks")


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


def test_mage_study_runs_a_study_of_model_blocks_as_mage_context_on_the_cpu(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "FOLDER", tmp_path)
    (tmp_path / "tiny-blocks.toml").write_text("\n".join([
        'question = "Does Triton\'s bias+GELU speed up a tiny GNN layer? A test study."', "budget_s = 0.05",
        "[context]", 'blocks = ["gnn/powerlaw-tiny"]', 'size = "tiny"', 'assign = {bias_gelu = "triton"}',
        "compile_modes = []", "fused = false"]))
    listed = CliRunner().invoke(cli.app, ["study"], env={"COLUMNS": "160"})
    assert listed.exit_code == 0 and "1 model block at ieee" in listed.output
    db = tmp_path / "mage.db"
    ran = CliRunner().invoke(cli.app, ["study", "tiny-blocks", "--device", "cpu", "--db", str(db)],
                             env={"COLUMNS": "200"})
    assert ran.exit_code == 0, ran.output
    assert "bias_gelu=triton" in ran.output and "stored as run 1 in" in ran.output
    suite, method = sqlite3.connect(db).execute("SELECT suite, method_json FROM runs").fetchone()
    method = json.loads(method)
    assert suite == "context" and studies.named_study({"method": method}) == "tiny-blocks"
    assert (method["blocks"], method["precisions"], method["assign"], method["compile_modes"], method["fused"],
            method["budget_s"]) == (["gnn/powerlaw-tiny"], ["ieee"], {"bias_gelu": "triton"}, [], False, 0.05)
    assigned = {row[0] for row in sqlite3.connect(db).execute("SELECT assignment FROM block_results")}
    assert {"eager", "bias_gelu=triton"} <= assigned


@pytest.mark.parametrize("dated", ['conclusion = "It held."', "concluded = 2026-12-05",
                                   'conclusion = "It held."\nconcluded = "last week"'])
def test_a_conclusion_goes_with_the_date_it_was_written(tmp_path, monkeypatch, dated):
    monkeypatch.setattr(studies, "FOLDER", tmp_path)
    (tmp_path / "dated.toml").write_text(f'question = "q"\nops = ["softmax"]\ncases = ["1024x1024"]\n'
                                         f'impls = ["eager"]\n{dated}\n')
    with pytest.raises(MageError, match="dated.toml: a conclusion goes with the date it was written"):
        studies.load("dated")
    (tmp_path / "dated.toml").write_text('question = "q"\nops = ["softmax"]\ncases = ["1024x1024"]\n'
                                         'impls = ["eager"]\nconclusion = "It held."\nconcluded = 2026-12-05\n')
    assert studies.load("dated").concluded == datetime.date(2026, 12, 5)
