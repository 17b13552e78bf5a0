"""Every file Mage writes is written whole or not at all: a failed write leaves the old file and no temporary."""

import errno
import json

import pytest

from mage import atomic, transfer
from mage.store import Store

from test_store_trust import mage_here
from test_transfer import store_run


class _FullDisk:
    """A file whose writes stop halfway with ENOSPC, as on a full disk."""

    def __init__(self, real):
        self.real = real

    def write(self, data):
        self.real.write(data[:len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.real.close()


@pytest.fixture
def full_disk(monkeypatch):
    def fill(*args, **kwargs):
        return _FullDisk(open(*args, **kwargs))

    def install():
        monkeypatch.setattr(atomic, "open", fill, raising=False)
    return install


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, full_disk):
    target = tmp_path / "report.html"
    atomic.write_text(target, "the old report")
    full_disk()
    with pytest.raises(atomic.OutputError, match=f"cannot write {target}: No space left on device"):
        atomic.write_text(target, "the new report " * 1000)
    assert target.read_text() == "the old report" and leftovers(tmp_path) == []


def test_report_export_and_history_keep_their_old_files_on_a_full_disk(tmp_path, monkeypatch, capsys, full_disk):
    db = tmp_path / "mage.db"
    store = Store(db)
    store_run(store)
    # No ceilings or GPU readings: the report needs only the results here.
    store.db.execute("UPDATE runs SET ceilings_json = '{}', env_json = '{}', env_end_json = '{}'")
    store.db.commit()
    out = tmp_path / "report"
    assert mage_here(monkeypatch, capsys, "report", "1", "--db", str(db), "--out", str(out))[0] == 0
    assert mage_here(monkeypatch, capsys, "export", "1", "--run-json", "-o", str(tmp_path / "run.json.gz"),
                     "--db", str(db))[0] == 0
    assert mage_here(monkeypatch, capsys, "history", "--db", str(db), "--html", str(tmp_path / "history.html"))[0] == 0
    written = {path: path.read_bytes() for path in [*out.iterdir(), tmp_path / "run.json.gz", tmp_path / "history.html"]}
    assert {path.name for path in written} >= {"report.html", "tables.md", "figure.png", "figure.svg"}
    full_disk()
    for command in (["report", "1", "--out", str(out)], ["export", "1", "--run-json", "-o", str(tmp_path / "run.json.gz")],
                    ["history", "--html", str(tmp_path / "history.html")]):
        code, _, err = mage_here(monkeypatch, capsys, *command, "--db", str(db))
        assert code == 2 and "No space left on device" in err and "Traceback" not in err, err
    assert {path: path.read_bytes() for path in written} == written
    assert leftovers(out) == leftovers(tmp_path) == []


def test_an_output_path_of_the_wrong_kind_is_one_line(tmp_path, monkeypatch, capsys):
    db = tmp_path / "mage.db"
    store_run(Store(db))
    (tmp_path / "a-file").write_text("keep")
    code, _, err = mage_here(monkeypatch, capsys, "export", "1", "--run-json", "-o", str(tmp_path), "--db", str(db))
    assert code == 2 and f"{tmp_path} is a directory; give a file name" in err
    code, _, err = mage_here(monkeypatch, capsys, "report", "1", "--out", str(tmp_path / "a-file"), "--db", str(db))
    assert code == 2 and "a-file is a file; give a folder" in err and "Traceback" not in err
    assert (tmp_path / "a-file").read_text() == "keep"


def test_an_atomic_gzip_export_still_reads_back(tmp_path):
    source = Store(tmp_path / "gpu.db")
    document = transfer.export_runs(source, [store_run(source)])
    transfer.write(document, tmp_path / "run.json.gz")
    assert transfer.read(tmp_path / "run.json.gz") == json.loads(json.dumps(document))
